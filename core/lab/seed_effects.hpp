// Is a difference between settings (H = 1, 4, 8; a variant against canonical) real, or seed noise? The same runs
// with seeds 1..S for every setting are paired: seed s draws the same data order and the same initialisation stream
// whatever the setting, so the difference of setting g to the reference setting r is measured seed by seed,
// d_s = x[g][s] - x[r][s], and only these S differences are judged (what a seed does to both settings cancels).
//
// The rule (named in every verdict): the 95% confidence interval of the mean paired difference from Student's t,
//   mean(d) ± t_{0.975, S-1} · sd(d) / √S,
// read three ways:
//   - an effect: the interval excludes 0 (said to be small, "all of it within ±δ", when the interval also lies
//     within ±δ: real, but below what matters in practice);
//   - no effect larger than δ: the whole interval lies within ±δ (an equivalence statement, as two one-sided
//     tests at 2.5% each);
//   - cannot tell yet: neither, with the number of seeds that would likely decide it if the mean and the standard
//     deviation of the differences stay what they are.
// Why t and not a rank or sign test: the sign test cannot reach 95% with fewer than 6 seeds (2·0.5^5 = 0.0625)
// and Wilcoxon's signed-rank test not with fewer than 6 either, while the lab's comparisons run 3 to 8 seeds and
// the size of the difference is what a student reads. The interval narrows as 1/√S, so power grows with seeds:
// adding seeds whose differences have the sign and size of those seen never turns an effect into "cannot tell".
// The t interval assumes the differences are roughly normal; with few seeds a single wild seed widens the interval
// (sd grows), so an outlier costs a verdict rather than making one.
//
// δ, the practical threshold, is an absolute number of nats: every comparison in the lab is of final validation
// losses in nats per token, and a difference of δ nats is a factor e^δ in perplexity. kPracticalMargin = 0.02 nats
// is 2% in perplexity: about a third of how much the text task's final loss moves from seed to seed at 300 steps,
// and a twentieth of what the lesson's bugs do when their symptom shows (docs/experiments.md, "Verdicts").
//
//   SeedComparison c;
//   std::string err = compare_over_seeds({"H = 1", "H = 4"}, {{2.24, 2.26, 2.25}, {2.10, 2.13, 2.11}}, 0, c);
//   c.verdicts[1]  // "H = 4 is lower than H = 1 by 0.137 nats (95% t-interval over 3 paired seeds: −0.151 to
//                  //  −0.122; lower on 3 of 3): an effect, large next to how much seeds differ (±0.015)."
#pragma once
#include <string>
#include <vector>

namespace mha {

// δ: a difference smaller than this (in nats) does not matter in practice; see above
constexpr double kPracticalMargin = 0.02;
// the confidence of the interval (two-sided)
constexpr double kConfidence = 0.95;
// the most seeds a "seeds to decide" estimate names (mha-train's --seeds takes up to 64)
constexpr int kMaxSeedsToDecide = 64;

struct SeedSummary {
    int seeds = 0;
    double mean = 0, min = 0, max = 0;
    double spread() const { return (max - min) / 2; }  // the half-range: "±"
};

// what the paired differences say: an effect, no effect larger than δ, or not yet either
enum class SeedOutcome { effect, equivalent, undecided };

// "effect", "equivalent", "undecided": the names the page reads
const char* outcome_name(SeedOutcome o);

struct PairedDifference {
    double mean = 0, min = 0, max = 0;  // of d_s = x[g][s] - x[reference][s] over the seeds
    double sd = 0;                      // their sample standard deviation (0 with one seed)
    double low = 0, high = 0;           // the 95% t-interval of their mean (infinite with one seed)
    double spread = 0;                  // how much seeds differ: the larger half-range of the two settings
    int agree = 0;                      // seeds whose difference has the sign of the mean
    SeedOutcome outcome = SeedOutcome::undecided;
    int seeds_to_decide = 0;  // undecided: the seeds in all that would likely decide it (0: more than
                              // kMaxSeedsToDecide, or unknown with one seed); decided: 0
};

struct SeedComparison {
    double margin = kPracticalMargin;            // δ
    std::vector<SeedSummary> settings;           // (G) one per setting
    std::vector<PairedDifference> to_reference;  // (G) setting g against the reference (zero for itself)
    std::vector<std::string> verdicts;           // (G) the sentence for each (empty for the reference)
};

// values (G,S): one number per setting and seed (e.g. the final validation loss), every setting with the same S >= 1
// seeds in the same order; labels (G) name the settings; reference indexes the setting the others are compared
// with; margin is δ. "" and out, or a sentence (ragged or empty values, a non-finite value, a bad reference).
std::string compare_over_seeds(const std::vector<std::string>& labels, const std::vector<std::vector<double>>& values,
                               int reference, SeedComparison& out, double margin = kPracticalMargin);

// the paired differences d (S >= 1) judged by the rule above, with margin δ (spread left 0 for the caller)
PairedDifference judge_paired(const std::vector<double>& d, double margin = kPracticalMargin);

// the rule in one sentence, for a page or a table's caption
std::string seed_rule_text(double margin = kPracticalMargin);

// pieces of verdicts, shared with variant_lessons: "+0.012" / "−0.004" (a real minus) / "0.000"; "0.012"
std::string signed_nats(double v);
std::string plain_nats(double v);
// "95% t-interval over 3 paired seeds: −0.151 to −0.122; lower on 3 of 3" (or "… with one seed: no interval")
std::string interval_text(const PairedDifference& d, int seeds);
// "small next to how much seeds differ (±0.060)" / "about as large as …" / "large next to …"
std::string size_against_spread(const PairedDifference& d);
// "about 9 seeds in all would likely decide it" / "more than 64 seeds would be needed at this size" / the one-seed
// advice
std::string seeds_to_decide_text(const PairedDifference& d, int seeds);

}  // namespace mha
