// compare_over_seeds / judge_paired: a 95% t-interval on the paired differences, read as an effect (it excludes 0),
// no effect larger than δ (it lies within ±δ) or cannot tell yet. Every interval below is worked by hand with the
// printed t table (t_{0.975} = 4.303, 3.182, 2.365 for 2, 3, 7 degrees of freedom).
#include <catch2/catch.hpp>

#include <cmath>

#include "prng.hpp"
#include "seed_effects.hpp"

using namespace mha;

namespace {
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("seed comparison: summaries, paired differences and their interval, worked by hand", "[seeds]") {
    // H = 1: 2.24 2.26 2.25 (mean 2.25, ±0.01); H = 4: 2.10 2.13 2.11 (mean 2.1133, ±0.015)
    SeedComparison c;
    REQUIRE(compare_over_seeds({"H = 1", "H = 4"}, {{2.24, 2.26, 2.25}, {2.10, 2.13, 2.11}}, 0, c).empty());
    REQUIRE(c.settings.size() == 2);
    CHECK(c.settings[0].mean == Approx(2.25));
    CHECK(c.settings[0].spread() == Approx(0.01));
    CHECK(c.settings[1].min == Approx(2.10));
    CHECK(c.settings[1].max == Approx(2.13));
    // paired: -0.14, -0.13, -0.14: mean -0.136667; deviations -1/300, +2/300, -1/300: SS = 6/90000, sd = 0.0057735;
    // half-width 4.302653 * 0.0057735 / sqrt(3) = 0.0143422
    const PairedDifference& d = c.to_reference[1];
    CHECK(d.mean == Approx(-0.41 / 3));
    CHECK(d.min == Approx(-0.14));
    CHECK(d.max == Approx(-0.13));
    CHECK(d.sd == Approx(0.0057735).epsilon(1e-4));
    CHECK(d.low == Approx(-0.41 / 3 - 0.0143422).epsilon(1e-5));
    CHECK(d.high == Approx(-0.41 / 3 + 0.0143422).epsilon(1e-5));
    CHECK(d.spread == Approx(0.015));
    CHECK(d.agree == 3);
    CHECK(d.outcome == SeedOutcome::effect);
    CHECK(c.verdicts[0].empty());  // the reference
    CHECK(c.verdicts[1] ==
          "H = 4 is lower than H = 1 by 0.137 nats (95% t-interval over 3 paired seeds: \u22120.151 to \u22120.122; "
          "lower on 3 of 3): an effect, large next to how much seeds differ (\u00b10.015).");
}

TEST_CASE("seed comparison: a small consistent difference is an effect although seeds range widely", "[seeds]") {
    // the case: 8 paired differences from +0.005 to +0.029 (mean +0.013) against settings that range ±0.06
    // (H = 4 then ranges 2.205 to 2.349, ±0.072). Deviations -8 16 -3 -1 -5 2 -6 5 (thousandths): SS = 420e-6,
    // sd = sqrt(60e-6) = 0.0077460, half-width 2.364624 * 0.0077460 / sqrt(8) = 0.0064757: +0.0065 to +0.0195
    const std::vector<double> h1 = {2.20, 2.32, 2.25, 2.23, 2.28, 2.21, 2.26, 2.24};
    const std::vector<double> d = {0.005, 0.029, 0.010, 0.012, 0.008, 0.015, 0.007, 0.018};
    std::vector<double> h4(8);
    for (int s = 0; s < 8; ++s) h4[s] = h1[s] + d[s];
    SeedComparison c;
    REQUIRE(compare_over_seeds({"H = 1", "H = 4"}, {h1, h4}, 0, c).empty());
    const PairedDifference& p = c.to_reference[1];
    CHECK(p.outcome == SeedOutcome::effect);
    CHECK(p.low == Approx(0.013 - 0.0064757).epsilon(1e-4));
    CHECK(p.high == Approx(0.013 + 0.0064757).epsilon(1e-4));
    CHECK(c.verdicts[1] ==
          "H = 4 is higher than H = 1 by 0.013 nats (95% t-interval over 8 paired seeds: +0.007 to +0.019; higher on "
          "8 of 8): an effect, but all of it within \u00b10.020 nats, the practical threshold; small next to how "
          "much seeds differ (\u00b10.072).");
}

TEST_CASE("seed comparison: no effect larger than the practical threshold, or cannot tell yet", "[seeds]") {
    // equivalent: +0.001 -0.002 +0.003 0: mean 0.0005, SS = 13e-6, sd = 0.0020817, half-width 3.182446 * sd / 2 =
    // 0.0033124: -0.0028 to +0.0038, within ±0.02
    PairedDifference e = judge_paired({0.001, -0.002, 0.003, 0.000});
    CHECK(e.outcome == SeedOutcome::equivalent);
    CHECK(e.high == Approx(0.0005 + 0.0033124).epsilon(1e-4));
    CHECK(e.seeds_to_decide == 0);
    // undecided: +0.01 -0.02 +0.03: mean 0.006667, sd = 0.025166, half-width 4.302653 * sd / sqrt(3) = 0.062517.
    // If mean and sd hold: within ±0.02 needs 4.303... t_{n-1} sd / sqrt(n) < 0.013333: n = 16 gives 2.1314 / 4 *
    // 0.025166 = 0.01341 (not yet), n = 17 gives 2.1199 / 4.1231 * 0.025166 = 0.01294; excluding 0 would need 58.
    PairedDifference u = judge_paired({0.01, -0.02, 0.03});
    CHECK(u.outcome == SeedOutcome::undecided);
    CHECK(u.low == Approx(0.02 / 3 - 0.062517).epsilon(1e-4));
    CHECK(u.agree == 2);
    CHECK(u.seeds_to_decide == 17);
    SeedComparison c;
    REQUIRE(compare_over_seeds({"a", "b", "c"}, {{2.0, 2.1, 2.2, 2.3}, {2.001, 2.098, 2.203, 2.3},
                                                 {2.01, 2.08, 2.23, 2.3}}, 0, c).empty());
    CHECK(c.to_reference[1].outcome == SeedOutcome::equivalent);
    CHECK(has(c.verdicts[1], ": no difference larger than 0.020 nats, the practical threshold."));
    CHECK(c.to_reference[2].outcome == SeedOutcome::undecided);  // +0.01 -0.02 +0.03 0: sd 0.0208, w 0.033
    CHECK(has(c.verdicts[2], "cannot tell yet (the interval holds 0 and reaches past \u00b10.020); about "));
    CHECK(has(c.verdicts[2], "seeds in all would likely decide it."));
    // a difference too small for its spread at any affordable number of seeds: mean 0.015, sd 0.1 (an effect would
    // need n with t/sqrt(n) < 0.15, about 180 seeds; "within ±0.02" a half-width under 0.005): "more than 64"
    PairedDifference tiny = judge_paired({-0.085, 0.015, 0.115});
    CHECK(tiny.outcome == SeedOutcome::undecided);
    CHECK(tiny.seeds_to_decide == 0);
    CHECK(has(seeds_to_decide_text(tiny, 3), "more than 64 seeds would be needed"));
}

TEST_CASE("seed comparison: adding seeds that agree in sign and size never takes an effect back", "[seeds]") {
    // Two additions that provably narrow the interval: a seed at the mean (SS unchanged, n and the t quantile move
    // the right way) and a second copy of every seed (SS doubles, n doubles). Checked on many random effects.
    Rng rng(29);
    int effects = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const int S = 2 + static_cast<int>(rng.below(7));
        const double mu = (rng.uniform_double() - 0.5) * 0.1, sigma = 0.002 + rng.uniform_double() * 0.03;
        std::vector<double> d(S);
        for (double& v : d) v = mu + sigma * rng.normal();
        const PairedDifference first = judge_paired(d);
        if (first.outcome != SeedOutcome::effect) continue;
        ++effects;
        std::vector<double> at_mean = d, twice = d;
        for (int k = 0; k < 3; ++k) {
            at_mean.push_back(first.mean);
            CHECK(judge_paired(at_mean).outcome == SeedOutcome::effect);
        }
        twice.insert(twice.end(), d.begin(), d.end());
        const PairedDifference doubled = judge_paired(twice);
        CHECK(doubled.outcome == SeedOutcome::effect);
        CHECK(doubled.high - doubled.low < first.high - first.low);
    }
    CHECK(effects > 50);  // the property was exercised
    // the case seed by seed: 3 agreeing seeds state the effect, and 8 keep it
    const std::vector<double> d = {0.012, 0.015, 0.013, 0.012, 0.014, 0.013, 0.015, 0.012};
    for (int n = 3; n <= 8; ++n)
        CHECK(judge_paired(std::vector<double>(d.begin(), d.begin() + n)).outcome == SeedOutcome::effect);
}

TEST_CASE("seed comparison: one seed states nothing; bad input is a sentence", "[seeds]") {
    SeedComparison c;
    REQUIRE(compare_over_seeds({"H = 1", "H = 4"}, {{2.3}, {1.2}}, 0, c).empty());
    CHECK(c.to_reference[1].outcome == SeedOutcome::undecided);
    CHECK(std::isinf(c.to_reference[1].low));
    CHECK(c.verdicts[1] == "H = 4 \u2212 H = 1: \u22121.100 nats (one seed: no interval): cannot tell yet; with one "
                           "seed the spread between seeds is unknown: run 3 or more seeds.");
    CHECK_FALSE(compare_over_seeds({"a", "b"}, {{1, 2}, {1}}, 0, c).empty());             // ragged
    CHECK_FALSE(compare_over_seeds({"a"}, {{}}, 0, c).empty());                           // no seeds
    CHECK_FALSE(compare_over_seeds({"a", "b"}, {{1, 2}, {1, NAN}}, 0, c).empty());        // a blown-up run
    CHECK_FALSE(compare_over_seeds({"a", "b"}, {{1, 2}, {1, 2}}, 2, c).empty());          // no such reference
    CHECK_FALSE(compare_over_seeds({"a"}, {{1, 2}, {1, 2}}, 0, c).empty());               // labels missing
    CHECK_FALSE(compare_over_seeds({"a", "b"}, {{1, 2}, {1, 2}}, 0, c, 0).empty());       // no threshold
    // identical seeds: a zero-width interval decides at once
    REQUIRE(compare_over_seeds({"a", "b"}, {{1, 2}, {1, 2}}, 0, c).empty());
    CHECK(c.to_reference[1].outcome == SeedOutcome::equivalent);
    // an interval that excludes 0 by less than 0.0005 shows it: paired +0.0003 +0.0001 +0.0002 +0.0002, mean 0.0002,
    // sd 0.0000816, half-width 3.182446 * sd / 2 = 0.00013: +0.00007 to +0.00033
    REQUIRE(compare_over_seeds({"a", "b"}, {{1, 2, 3, 4}, {1.0003, 2.0001, 3.0002, 4.0002}}, 0, c).empty());
    CHECK(c.to_reference[1].outcome == SeedOutcome::effect);
    CHECK(has(c.verdicts[1], "paired seeds: +0.0001 to +0.0003;"));
    CHECK(has(seed_rule_text(), "95% t-interval excludes 0"));
    CHECK(has(seed_rule_text(), "0.020 nats (2% in perplexity)"));
}
