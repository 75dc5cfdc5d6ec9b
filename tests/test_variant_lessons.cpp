// compare_variants / lesson_verdict: the "Break it" variants against canonical over paired seeds, with the verdict in
// the lesson's terms. Intervals are worked by hand (t_{0.975} = 4.303 for 3 seeds); the sentences are checked for
// consistency over every variant and every outcome.
#include <catch2/catch.hpp>

#include "variant_lessons.hpp"

using namespace mha;

namespace {
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("variant lessons: a leaking variant far below canonical shows the lesson's symptom", "[seeds][variants]") {
    // canonical 2.25 2.27 2.26; no_transpose_split 1.41 1.40 1.43. Paired: -0.84 -0.87 -0.83, mean -0.846667;
    // deviations +1/150, -7/300, +1/60: SS = 8.6667e-4, sd = 0.020817, half-width 4.302653 * sd / sqrt(3) = 0.051713
    VariantComparison c;
    REQUIRE(compare_variants({"canonical", "no_transpose_split"}, {{2.25, 2.27, 2.26}, {1.41, 1.40, 1.43}}, 200, c)
                .empty());
    REQUIRE(c.lessons.size() == 2);
    CHECK(c.lessons[0].empty());
    CHECK(c.seeds.to_reference[1].mean == Approx(-2.54 / 3));
    CHECK(c.lessons[1] ==
          "no_transpose_split: 0.847 nats below canonical (95% t-interval over 3 paired seeds: \u22120.898 to "
          "\u22120.795; lower on 3 of 3) at 200 steps: the lesson's symptom shows: the loss looks too good (outputs "
          "read the characters they are asked to predict).");
}

TEST_CASE("variant lessons: a worse loss for a leaking variant is the opposite, never 'too good'", "[seeds][variants]") {
    // the sentence: 0.058 nats above canonical was called "the loss looks too good". Paired +0.06 +0.06 +0.055.
    VariantComparison c;
    REQUIRE(compare_variants({"canonical", "no_transpose_split"}, {{2.25, 2.27, 2.26}, {2.31, 2.33, 2.315}}, 200, c)
                .empty());
    CHECK(c.seeds.to_reference[1].outcome == SeedOutcome::effect);
    CHECK(has(c.lessons[1], "no_transpose_split: 0.058 nats above canonical (95% t-interval over 3 paired seeds: "));
    CHECK(has(c.lessons[1], "the opposite of the lesson's prediction: it predicts a lower loss than canonical (outputs "
                            "read the characters they are asked to predict), and the loss is higher."));
    CHECK_FALSE(has(c.lessons[1], "too good"));
}

TEST_CASE("variant lessons: 'as the lesson predicts' only for an equivalence, never for a mere absence",
          "[seeds][variants]") {
    VariantComparison c;
    // canonical first is not required: the reference is wherever canonical is.
    // swapped_order: paired -0.001 +0.002 0.000: sd 0.0015, half-width 0.0037: within ±0.02, as predicted.
    // per_head_proj: paired -0.03 +0.04 +0.00: sd 0.035, half-width 0.087: cannot tell, "could not rule out ±0.091".
    REQUIRE(compare_variants({"swapped_order", "canonical", "per_head_proj"},
                             {{2.019, 2.042, 2.03}, {2.02, 2.04, 2.03}, {1.99, 2.08, 2.03}}, 200, c)
                .empty());
    CHECK(c.lessons[1].empty());
    CHECK(has(c.lessons[0], "at 200 steps: no difference larger than 0.020 nats, as the lesson predicts: trained from "
                            "scratch it learns as well as canonical (the same model with its weights permuted)."));
    CHECK(c.seeds.to_reference[2].outcome == SeedOutcome::undecided);
    CHECK(has(c.lessons[2], "no difference detected at this budget (could not rule out \u00b10.09"));
    CHECK(has(c.lessons[2], "the lesson's prediction that it learns as well as canonical, only slower per step is not "
                            "yet confirmed; about "));
    CHECK_FALSE(has(c.lessons[2], "as the lesson predicts"));
}

TEST_CASE("variant lessons: every variant, every outcome: the words agree with the numbers", "[seeds][variants]") {
    // canonical 2.00 2.10 2.20 and each variant shifted by these paired differences
    const std::vector<std::vector<double>> shifts = {
        {-0.50, -0.52, -0.51},  // an effect, lower
        {+0.10, +0.11, +0.12},  // an effect, higher
        {+0.001, -0.001, 0.0},  // no effect larger than 0.02
        {+0.05, -0.04, +0.03},  // cannot tell yet
    };
    const std::vector<double> canonical = {2.00, 2.10, 2.20};
    for (int v = 1; v < kNumVariants; ++v) {
        const std::string name = variant_name(AttentionVariant(v));
        for (const auto& shift : shifts) {
            std::vector<double> x(3);
            for (int s = 0; s < 3; ++s) x[s] = canonical[s] + shift[s];
            VariantComparison c;
            REQUIRE(compare_variants({"canonical", name}, {canonical, x}, 300, c).empty());
            const std::string& text = c.lessons[1];
            const PairedDifference& d = c.seeds.to_reference[1];
            INFO(text);
            CHECK(has(text, name + ": "));
            CHECK(has(text, " at 300 steps: "));
            if (has(text, "too good")) CHECK((d.outcome == SeedOutcome::effect && d.mean < 0));
            for (const char* worse : {"a weaker model", "slower learning", "a worse loss"})
                if (has(text, worse)) CHECK((d.outcome == SeedOutcome::effect && d.mean > 0));
            if (has(text, "as the lesson predicts")) CHECK(d.outcome == SeedOutcome::equivalent);
            if (has(text, "symptom shows")) CHECK(d.outcome == SeedOutcome::effect);
            if (has(text, "below canonical")) CHECK(d.mean < 0);
            if (has(text, "above canonical")) CHECK(d.mean > 0);
            if (d.outcome == SeedOutcome::undecided) CHECK(has(text, "no difference detected"));
        }
    }
}

TEST_CASE("variant lessons: a symptom that shows but stays within the practical threshold is called small",
          "[seeds][variants]") {
    // tied_heads: paired +0.007 +0.008 +0.009 (sd 0.001, half-width 0.0025): +0.0055 to +0.0105, inside ±0.02
    VariantComparison c;
    REQUIRE(compare_variants({"canonical", "tied_heads"}, {{2.00, 2.10, 2.20}, {2.007, 2.108, 2.209}}, 200, c).empty());
    CHECK(has(c.lessons[1], "at 200 steps: the lesson's symptom shows, though small (all of it within \u00b10.020 "
                            "nats): a weaker model, a higher loss (all heads share one Q/K/V projection)."));
}

TEST_CASE("variant lessons: an equivalence where the lesson predicts a change, the lesson-less no_wo, one seed",
          "[seeds][variants]") {
    VariantComparison c;
    REQUIRE(compare_variants({"canonical", "scale_sqrt_d", "no_wo"},
                             {{2.24, 2.28, 2.26}, {2.241, 2.279, 2.26}, {2.30, 2.34, 2.33}}, 500, c)
                .empty());
    CHECK(has(c.lessons[1], "at 500 steps: no difference larger than 0.020 nats: the lesson's prediction of a higher "
                            "loss than canonical does not show at this budget."));
    CHECK(has(c.lessons[2], "no_wo: 0.063 nats above canonical"));
    CHECK(has(c.lessons[2], "an effect. The lesson makes no prediction about its loss: its prediction is about the "
                            "parameters"));
    // one seed: no verdict about noise at all
    REQUIRE(compare_variants({"canonical", "no_transpose_merge"}, {{2.0}, {1.2}}, 100, c).empty());
    CHECK(c.lessons[1] == "no_transpose_merge: 0.800 nats below canonical (one seed: no interval) at 100 steps: no "
                          "difference detected with one seed: the lesson's prediction of a lower loss than canonical is "
                          "neither confirmed nor ruled out; with one seed the spread between seeds is unknown: run 3 or "
                          "more seeds.");
}

TEST_CASE("variant lessons: every variant has the lesson's words; bad input gets a sentence", "[seeds][variants]") {
    for (int v = 0; v < kNumVariants; ++v) {
        CHECK(std::string(variant_lesson(AttentionVariant(v)).symptom).size() > 10);
        CHECK(std::string(variant_lesson(AttentionVariant(v)).reason).size() > 10);
    }
    VariantComparison c;
    CHECK(compare_variants({"canonical", "no_such"}, {{1}, {2}}, 10, c) ==
          "there is no attention variant called \"no_such\".");
    CHECK(has(compare_variants({"no_wo", "tied_heads"}, {{1}, {2}}, 10, c), "canonical, which is not among them"));
    CHECK(has(compare_variants({"canonical", "no_wo"}, {{1, 2}, {2}}, 10, c), "the same number of seeds"));
    CHECK(has(compare_variants({"canonical", "no_wo"}, {{1}, {2}}, 0, c), "at least one step"));
}
