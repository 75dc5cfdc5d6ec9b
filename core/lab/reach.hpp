// How soon does each setting learn? The first evaluation step at which a run's validation loss is at or below a
// stated threshold, per seed, and per setting the median and range over its seeds: the comparison over time that a
// final loss at one budget hides (the offsets task: four heads reach 0.2 nats about ten times sooner than one head,
// which gets there too; docs/experiments.md, "The offsets task").
//
//   ReachComparison r;
//   std::string err = reach_over_seeds({"H = 1", "H = 4"}, steps, losses, 2, 0.2, 3000, r);
//   r.sentences[1]  // "H = 4 reached 0.200 nats at step 225 (the median of 2 seeds; 200 to 250)."
#pragma once
#include <string>
#include <vector>

namespace mha {

// steps (n) the evaluation steps of one run, increasing; loss (n) its validation loss there: the first step whose
// loss is at or below threshold, or -1 if none is
int first_step_at_or_below(const std::vector<double>& steps, const std::vector<double>& loss, double threshold);

struct SettingReach {
    std::vector<int> first;  // (S) each seed's first step at or below the threshold, -1 where it never got there
    int reached = 0;         // seeds that got there
    double median = -1;      // over the seeds, a seed that never got there counting as later than any step; -1 when
                             // the median is such a seed
    int min = -1, max = -1;  // over the seeds that got there (-1 if none did)
    double lowest = 0;       // the lowest validation loss any seed measured
};

struct ReachComparison {
    double threshold = 0;
    int budget = 0;                       // the steps every run trained for
    std::vector<SettingReach> settings;   // (G)
    std::vector<std::string> sentences;   // (G) one per setting
};

// labels (G); steps and losses (G*S rows, setting-major: row g*S + s is setting g's seed s): each run's evaluation
// steps and validation losses; threshold > 0 in nats; budget the steps of the runs. "" and out, or a sentence.
std::string reach_over_seeds(const std::vector<std::string>& labels, const std::vector<std::vector<double>>& steps,
                             const std::vector<std::vector<double>>& losses, int seeds, double threshold, int budget,
                             ReachComparison& out);

}  // namespace mha
