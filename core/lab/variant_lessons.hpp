// "Break it", judged against seed noise: what the lesson predicts about each attention variant's final validation
// loss against the canonical layer at the same budget, and the verdict on a comparison over paired seeds in the
// lesson's terms. The numbers and the rule are compare_over_seeds' (seed_effects.hpp): a 95% t-interval on the
// paired differences, read as an effect, as no effect larger than δ, or as cannot tell yet. This file adds what the
// lesson expects, so a verdict can say "the lesson's symptom shows", "does not show at this budget", "the opposite"
// or "no difference detected at this budget (could not rule out ±x)"; "as the lesson predicts" is said of a
// predicted "no change" only when the interval shows no effect larger than δ, never for a mere absence of evidence.
//
//   VariantComparison c;
//   std::string err = compare_variants({"canonical", "no_transpose_split"}, {{2.25, 2.27, 2.26}, {1.41, 1.40, 1.43}},
//                                      200, c);
//   c.lessons[1]  // "no_transpose_split: 0.847 nats below canonical (95% t-interval over 3 paired seeds: −0.898 to
//                 //  −0.795; lower on 3 of 3) at 200 steps: the lesson's symptom shows: the loss looks too good
//                 //  (outputs read the characters they are asked to predict)."
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
    const char* reason = "";   // why, in the lesson's terms (no words of the symptom's direction in it)
};

// the lesson's prediction for one variant (canonical: none, it is the reference)
VariantLesson variant_lesson(AttentionVariant v);

// the verdict on variant v against canonical: d its paired difference (judge_paired's) over `seeds` seeds after
// `steps` steps, margin δ
std::string lesson_verdict(AttentionVariant v, const PairedDifference& d, int seeds, int steps,
                           double margin = kPracticalMargin);

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
