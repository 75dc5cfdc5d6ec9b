#include "variant_lessons.hpp"

#include <cmath>
#include <cstdio>

namespace mha {

namespace {

std::string three(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

// "0.853 nats below canonical" / "0.009 nats above canonical" / "0.000 nats from canonical"
std::string against_canonical(double mean) {
    const std::string size = three(std::abs(mean)) + " nats ";
    if (size == "0.000 nats ") return size + "from canonical";
    return size + (mean < 0 ? "below" : "above") + " canonical";
}

}  // namespace

VariantLesson variant_lesson(AttentionVariant v) {
    using V = AttentionVariant;
    using P = LossPrediction;
    switch (v) {
        case V::canonical: return {P::none, "the reference every variant is measured against"};
        case V::swapped_order:
            return {P::same, "trained from scratch it learns as well as canonical (the same model with its weights "
                             "permuted)"};
        case V::no_transpose_split:
        case V::no_transpose_merge:
            return {P::lower, "the loss looks too good (outputs read the characters they are asked to predict)"};
        case V::no_transpose_both:
            return {P::higher, "a worse loss (each position attends only within its block of T/H positions)"};
        case V::scale_sqrt_d:
            return {P::higher, "slower learning (logits \u221aH times too small, flatter attention): a higher loss at "
                               "the same budget"};
        case V::no_wo:
            return {P::none, "its prediction is about the parameters (D\u00b2 + D fewer per layer), not the loss"};
        case V::per_head_proj:
            return {P::same, "the same function class as canonical: it learns as well, only slower per step"};
        case V::split_input:
            return {P::higher, "a weaker model (each head sees only its slice of the input): a higher loss"};
        case V::tied_heads:
            return {P::higher, "a weaker model (all heads share one Q/K/V projection): a higher loss"};
    }
    return {};
}

std::string lesson_verdict(AttentionVariant v, const PairedDifference& d, int seeds, int steps) {
    const VariantLesson lesson = variant_lesson(v);
    std::string out = std::string(variant_name(v)) + ": " + against_canonical(d.mean);
    if (seeds < 2) {
        return out + " with one seed at " + std::to_string(steps) +
               " steps: the spread between seeds is unknown, so this cannot be told from noise; run more seeds.";
    }
    const std::string spread = "(\u00b1" + three(d.spread) + ") at " + std::to_string(steps) + " steps";
    if (d.beyond_noise) {
        const bool far = std::abs(d.mean) >= kFarOutside * d.spread;
        out += std::string(" for every seed, ") + (far ? "far outside" : "outside") + " the seed spread " + spread;
    } else {
        out += ", within seed noise " + spread;
    }
    const bool lower = d.mean < 0;
    switch (lesson.loss) {
        case LossPrediction::lower:
        case LossPrediction::higher: {
            const bool as_predicted = (lesson.loss == LossPrediction::lower) == lower;
            if (!d.beyond_noise)
                return out + ": the lesson's symptom, " + lesson.symptom + ", does not show at this budget.";
            if (as_predicted) return out + ": the lesson's symptom shows: " + lesson.symptom + ".";
            return out + ": the opposite of the lesson's prediction, " + lesson.symptom + ".";
        }
        case LossPrediction::same:
            if (d.beyond_noise)
                return out + ": it differs from canonical, against the lesson's prediction that " + lesson.symptom +
                       ".";
            return out + ", as the lesson predicts: " + lesson.symptom + ".";
        case LossPrediction::none: break;
    }
    return out + ". The lesson makes no prediction about its loss: " + lesson.symptom + ".";
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
                                : lesson_verdict(parsed[g], r.seeds.to_reference[g], S, steps));
    }
    out = std::move(r);
    return "";
}

}  // namespace mha
