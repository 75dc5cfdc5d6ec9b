// Is a difference between settings (H = 1, 4, 8; a variant against canonical) larger than the spread between
// seeds? The same runs with seeds 1..S for every setting are paired: seed s draws the same data order and the same
// initialisation stream whatever the setting, so the difference of setting g to the reference setting r is measured
// seed by seed, d_s = x[g][s] - x[r][s].
//
// The rule (stated in every verdict): a difference counts as beyond seed noise when every paired difference has the
// same sign and their mean is larger than the seed-to-seed spread, the larger half-range (max - min) / 2 of the two
// settings' values. With few seeds this is deliberately strict: the page never states an effect its own runs do not
// show.
//
//   SeedComparison c;
//   std::string err = compare_over_seeds({"H = 1", "H = 4"}, {{2.24, 2.26, 2.25}, {2.23, 2.27, 2.25}}, 0, c);
//   c.verdicts[1]  // "H = 4 − H = 1: −0.000 nats (paired over 3 seeds: −0.010 to +0.010), seeds range ±0.020:
//                  //  no difference beyond seed noise."
#pragma once
#include <string>
#include <vector>

namespace mha {

struct SeedSummary {
    int seeds = 0;
    double mean = 0, min = 0, max = 0;
    double spread() const { return (max - min) / 2; }  // the half-range: "±"
};

struct PairedDifference {
    double mean = 0, min = 0, max = 0;  // of x[g][s] - x[reference][s] over the seeds
    double spread = 0;                  // the larger half-range of the two settings
    bool beyond_noise = false;          // the rule above
};

struct SeedComparison {
    std::vector<SeedSummary> settings;         // (G) one per setting
    std::vector<PairedDifference> to_reference;  // (G) setting g against the reference (zero for itself)
    std::vector<std::string> verdicts;         // (G) the sentence for each (empty for the reference)
};

// values (G,S): one number per setting and seed (e.g. the final validation loss), every setting with the same S >= 1
// seeds in the same order; labels (G) name the settings; reference indexes the setting the others are compared
// with. "" and out, or a sentence (ragged or empty values, a non-finite value, a bad reference).
std::string compare_over_seeds(const std::vector<std::string>& labels, const std::vector<std::vector<double>>& values,
                               int reference, SeedComparison& out, const std::string& unit = "nats");

}  // namespace mha
