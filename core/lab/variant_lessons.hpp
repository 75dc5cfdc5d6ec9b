// "Break it", judged against seed noise: what the lesson predicts about each attention variant's final validation
// loss against the canonical layer at the same budget, and the verdict on a comparison over paired seeds in the
// lesson's terms. The numbers and the rule are compare_over_seeds' (seed_effects.hpp): an effect counts only when
// every seed agrees on its sign and its mean exceeds the seed-to-seed spread. This file adds what the lesson expects,
// so a verdict can say "the lesson's symptom shows", "not at this budget" or "the opposite".
//
//   VariantComparison c;
//   std::string err = compare_variants({"canonical", "no_transpose_split"}, {{2.25, 2.27, 2.26}, {1.41, 1.40, 1.43}},
//                                      200, c);
//   c.lessons[1]  // "no_transpose_split: 0.853 nats below canonical for every seed, far outside the seed spread
//                 //  (±0.015) at 200 steps: the lesson's symptom shows: the loss looks too good (it reads ...)."
#pragma once
#include <string>
#include <vector>

#include "config.hpp"
#include "seed_effects.hpp"

namespace mha {

// the direction of the final validation loss against canonical that the lesson predicts
enum class LossPrediction {
    none,    // the lesson's prediction is not about the loss (parameters, time per step)
    lower,   // the loss looks too good (the variant reads the future)
    higher,  // a weaker or slower-learning model
    same,    // the same model in another layout or another factorisation: it learns as well
};

struct VariantLesson {
    LossPrediction loss = LossPrediction::none;
    const char* symptom = "";  // the lesson's words for what the loss should show (or what it predicts instead)
};

// the lesson's prediction for one variant (canonical: none, it is the reference)
VariantLesson variant_lesson(AttentionVariant v);

// far outside the seed spread: the mean paired difference at least this many times the spread
constexpr double kFarOutside = 3.0;

// the verdict on variant v against canonical: d its paired difference over `seeds` seeds after `steps` steps
std::string lesson_verdict(AttentionVariant v, const PairedDifference& d, int seeds, int steps);

struct VariantComparison {
    SeedComparison seeds;              // compare_over_seeds with canonical as the reference
    std::vector<std::string> lessons;  // (G) the lesson's verdict per variant (empty for canonical)
};

// variants (G): names as parse_variant takes them, canonical among them (the reference); values (G,S): the final
// validation loss of each variant and seed, paired; steps: the budget the runs trained for. "" and out, or a sentence
// (an unknown variant, no canonical, or what compare_over_seeds refuses).
std::string compare_variants(const std::vector<std::string>& variants, const std::vector<std::vector<double>>& values,
                             int steps, VariantComparison& out);

}  // namespace mha
