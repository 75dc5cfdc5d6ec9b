// compare_over_seeds: per-setting summaries, paired differences to the reference, and a verdict that states an
// effect only when every seed agrees on its sign and its mean exceeds the seed-to-seed spread.
#include <catch2/catch.hpp>

#include "seed_effects.hpp"

using namespace mha;

TEST_CASE("seed comparison: summaries and paired differences, worked by hand", "[seeds]") {
    // H = 1: 2.24 2.26 2.25 (mean 2.25, ±0.01); H = 4: 2.10 2.13 2.11 (mean 2.1133, ±0.015)
    SeedComparison c;
    REQUIRE(compare_over_seeds({"H = 1", "H = 4"}, {{2.24, 2.26, 2.25}, {2.10, 2.13, 2.11}}, 0, c).empty());
    REQUIRE(c.settings.size() == 2);
    CHECK(c.settings[0].mean == Approx(2.25));
    CHECK(c.settings[0].spread() == Approx(0.01));
    CHECK(c.settings[1].min == Approx(2.10));
    CHECK(c.settings[1].max == Approx(2.13));
    // paired: -0.14, -0.13, -0.14 -> mean -0.13667, range -0.14..-0.13; spread max(0.01, 0.015) = 0.015
    const PairedDifference& d = c.to_reference[1];
    CHECK(d.mean == Approx(-0.41 / 3));
    CHECK(d.min == Approx(-0.14));
    CHECK(d.max == Approx(-0.13));
    CHECK(d.spread == Approx(0.015));
    CHECK(d.beyond_noise);
    CHECK(c.verdicts[0].empty());  // the reference
    CHECK(c.verdicts[1] ==
          "H = 4 \u2212 H = 1: \u22120.137 nats (paired over 3 seeds: \u22120.140 to \u22120.130), seeds range "
          "\u00b10.015: H = 4 is lower for every seed, by more than the seed spread.");
}

TEST_CASE("seed comparison: no effect is stated within the seed spread or when seeds disagree", "[seeds]") {
    SeedComparison c;
    // the case: differences of a few thousandths against seeds that range over ±0.02
    REQUIRE(compare_over_seeds({"H = 1", "H = 4", "H = 8"},
                               {{2.236, 2.262, 2.250}, {2.230, 2.258, 2.246}, {2.240, 2.250, 2.276}}, 0, c).empty());
    CHECK_FALSE(c.to_reference[1].beyond_noise);  // same sign (-0.006, -0.004, -0.004) but 0.0047 < 0.014
    CHECK(c.verdicts[1].find("no difference beyond seed noise (every seed puts H = 4 lower, but by less than the seeds "
                             "differ among themselves)") != std::string::npos);
    CHECK_FALSE(c.to_reference[2].beyond_noise);  // +0.004, -0.012, +0.026: the seeds disagree
    CHECK(c.verdicts[2].find("the seeds disagree on its sign") != std::string::npos);
    // consistent in sign and larger than the spread, but higher
    REQUIRE(compare_over_seeds({"canonical", "scale_sqrt_d"}, {{1.50, 1.52}, {1.60, 1.61}}, 0, c).empty());
    CHECK(c.to_reference[1].beyond_noise);
    CHECK(c.verdicts[1].find("scale_sqrt_d is higher for every seed") != std::string::npos);
}

TEST_CASE("seed comparison: one seed states nothing; bad input is a sentence", "[seeds]") {
    SeedComparison c;
    REQUIRE(compare_over_seeds({"H = 1", "H = 4"}, {{2.3}, {1.2}}, 0, c).empty());
    CHECK_FALSE(c.to_reference[1].beyond_noise);
    CHECK(c.verdicts[1].find("with one seed") != std::string::npos);
    CHECK_FALSE(compare_over_seeds({"a", "b"}, {{1, 2}, {1}}, 0, c).empty());            // ragged
    CHECK_FALSE(compare_over_seeds({"a"}, {{}}, 0, c).empty());                          // no seeds
    CHECK_FALSE(compare_over_seeds({"a", "b"}, {{1, 2}, {1, NAN}}, 0, c).empty());       // a blown-up run
    CHECK_FALSE(compare_over_seeds({"a", "b"}, {{1, 2}, {1, 2}}, 2, c).empty());         // no such reference
    CHECK_FALSE(compare_over_seeds({"a"}, {{1, 2}, {1, 2}}, 0, c).empty());              // labels missing
}
