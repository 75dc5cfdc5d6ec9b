#include "variant_lessons.hpp"

#include <algorithm>
#include <cmath>

namespace mha {

namespace {

// "0.853 nats below canonical" / "0.009 nats above canonical" / "0.000 nats from canonical"
std::string against_canonical(double mean) {
    const std::string size = plain_nats(std::abs(mean)) + " nats ";
    if (size == "0.000 nats ") return size + "from canonical";
    return size + (mean < 0 ? "below" : "above") + " canonical";
}

// "no difference detected at this budget (could not rule out ±0.041)"
std::string not_detected(const PairedDifference& d, int seeds) {
    if (seeds < 2) return "no difference detected with one seed";
    return "no difference detected at this budget (could not rule out \u00b1" +
           plain_nats(std::max(std::abs(d.low), std::abs(d.high))) + ")";
}

// the judgement for a predicted direction (lower or higher)
std::string judge_direction(const VariantLesson& lesson, const PairedDifference& d, int seeds, double margin) {
    const bool predicted_lower = lesson.loss == LossPrediction::lower;
    const std::string predicted = predicted_lower ? "a lower loss than canonical" : "a higher loss than canonical";
    switch (d.outcome) {
        case SeedOutcome::effect:
            if ((d.mean < 0) == predicted_lower)
                return "the lesson's symptom shows" +
                       (d.low > -margin && d.high < margin
                            ? ", though small (all of it within \u00b1" + plain_nats(margin) + " nats)"
                            : std::string()) +
                       ": " + lesson.symptom + " (" + lesson.reason + ")";
            return "the opposite of the lesson's prediction: it predicts " + predicted + " (" + lesson.reason +
                   "), and the loss is " + (d.mean < 0 ? "lower" : "higher");
        case SeedOutcome::equivalent:
            return "no difference larger than " + plain_nats(margin) + " nats: the lesson's prediction of " +
                   predicted + " does not show at this budget";
        case SeedOutcome::undecided: break;
    }
    return not_detected(d, seeds) + ": the lesson's prediction of " + predicted + " is neither confirmed nor ruled "
           "out; " + seeds_to_decide_text(d, seeds);
}

// the judgement for a predicted "no change"
std::string judge_same(const VariantLesson& lesson, const PairedDifference& d, int seeds, double margin) {
    switch (d.outcome) {
        case SeedOutcome::equivalent:
            return "no difference larger than " + plain_nats(margin) + " nats, as the lesson predicts: " +
                   lesson.symptom + " (" + lesson.reason + ")";
        case SeedOutcome::effect:
            return "it differs from canonical, against the lesson's prediction that " + std::string(lesson.symptom) +
                   " (" + lesson.reason + ")";
        case SeedOutcome::undecided: break;
    }
    return not_detected(d, seeds) + ": the lesson's prediction that " + lesson.symptom + " is not yet confirmed; " +
           seeds_to_decide_text(d, seeds);
}

}  // namespace

VariantLesson variant_lesson(AttentionVariant v) {
    using V = AttentionVariant;
    using P = LossPrediction;
    switch (v) {
        case V::canonical: return {P::none, "the reference every variant is measured against", "it is the lesson's layer"};
        case V::swapped_order:
            return {P::same, "trained from scratch it learns as well as canonical",
                    "the same model with its weights permuted"};
        case V::no_transpose_split:
        case V::no_transpose_merge:
            return {P::lower, "the loss looks too good", "outputs read the characters they are asked to predict"};
        case V::no_transpose_both:
            return {P::higher, "a worse loss", "each position attends only within its block of T/H positions"};
        case V::scale_sqrt_d:
            return {P::higher, "slower learning, a higher loss at the same budget",
                    "logits \u221aH times too small, flatter attention"};
        case V::no_wo:
            return {P::none, "its prediction is about the parameters (D\u00b2 + D fewer per layer), not the loss",
                    "each head writes a fixed slice of the output"};
        case V::per_head_proj:
            return {P::same, "it learns as well as canonical, only slower per step",
                    "the same function class as one D\u00d7D projection"};
        case V::split_input:
            return {P::higher, "a weaker model, a higher loss", "each head sees only its slice of the input"};
        case V::tied_heads:
            return {P::higher, "a weaker model, a higher loss", "all heads share one Q/K/V projection"};
    }
    return {};
}

std::string lesson_verdict(AttentionVariant v, const PairedDifference& d, int seeds, int steps, double margin) {
    const VariantLesson lesson = variant_lesson(v);
    std::string out = std::string(variant_name(v)) + ": " + against_canonical(d.mean) + " (" + interval_text(d, seeds) +
                      ") at " + std::to_string(steps) + " steps: ";
    switch (lesson.loss) {
        case LossPrediction::lower:
        case LossPrediction::higher: return out + judge_direction(lesson, d, seeds, margin) + ".";
        case LossPrediction::same: return out + judge_same(lesson, d, seeds, margin) + ".";
        case LossPrediction::none: break;
    }
    const std::string found = d.outcome == SeedOutcome::effect       ? "an effect"
                              : d.outcome == SeedOutcome::equivalent ? "no difference larger than " +
                                                                           plain_nats(margin) + " nats"
                                                                     : not_detected(d, seeds);
    return out + found + ". The lesson makes no prediction about its loss: " + lesson.symptom + ".";
}

std::string compare_variants(const std::vector<std::string>& variants, const std::vector<std::vector<double>>& values,
                             int steps, VariantComparison& out) {
    std::vector<AttentionVariant> parsed(variants.size());
    int reference = -1;
    for (std::size_t g = 0; g < variants.size(); ++g) {
        if (!parse_variant(variants[g], parsed[g])) return "there is no attention variant called \"" + variants[g] + "\".";
        if (parsed[g] == AttentionVariant::canonical && reference < 0) reference = static_cast<int>(g);
    }
    if (reference < 0) return "the variants are compared with canonical, which is not among them.";
    if (steps < 1) return "the budget must be at least one step.";
    VariantComparison r;
    const std::string err = compare_over_seeds(variants, values, reference, r.seeds);
    if (!err.empty()) return err;
    const int S = static_cast<int>(values[0].size());
    for (std::size_t g = 0; g < variants.size(); ++g) {
        r.lessons.push_back(static_cast<int>(g) == reference
                                ? std::string()
                                : lesson_verdict(parsed[g], r.seeds.to_reference[g], S, steps, r.seeds.margin));
    }
    out = std::move(r);
    return "";
}

}  // namespace mha
