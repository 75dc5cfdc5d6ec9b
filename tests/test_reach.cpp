// reach_over_seeds: the first evaluation step at or below a loss threshold, per seed and per setting, worked by hand.
#include <catch2/catch.hpp>

#include "reach.hpp"

using namespace mha;

namespace {
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("reach: the first step at or below the threshold", "[reach]") {
    CHECK(first_step_at_or_below({0, 50, 100, 150}, {4.4, 0.9, 0.2, 0.1}, 0.2) == 100);   // "at" counts
    CHECK(first_step_at_or_below({0, 50, 100, 150}, {4.4, 0.19, 0.3, 0.1}, 0.2) == 50);  // the first, not the last
    CHECK(first_step_at_or_below({0, 50}, {4.4, 0.3}, 0.2) == -1);
}

TEST_CASE("reach: medians and ranges over seeds, seeds that never get there", "[reach]") {
    // H = 1: seeds cross at 2,400, never, 2,250 -> sorted 2,250 2,400 never: median 2,400, range 2,250 to 2,400
    // H = 4: 200, 250, 225 -> median 225
    const std::vector<double> steps = {0, 200, 225, 250, 2250, 2400, 3000};
    auto curve = [&](double at) {  // 1.0 until step `at`, 0.1 from there
        std::vector<double> y;
        for (double s : steps) y.push_back(s >= at ? 0.1 : 1.0);
        return y;
    };
    ReachComparison r;
    REQUIRE(reach_over_seeds({"H = 1", "H = 4"}, std::vector<std::vector<double>>(6, steps),
                             {curve(2400), curve(1e9), curve(2250), curve(200), curve(250), curve(225)}, 3, 0.2, 3000,
                             r)
                .empty());
    CHECK(r.settings[0].first == std::vector<int>{2400, -1, 2250});
    CHECK(r.settings[0].reached == 2);
    CHECK(r.settings[0].median == 2400);
    CHECK(r.settings[0].min == 2250);
    CHECK(r.settings[0].lowest == Approx(0.1));
    CHECK(r.sentences[0] == "H = 1 reached 0.200 nats on 2 of 3 seeds, at step 2,400 (the median of 3 seeds; 2,250 to "
                            "2,400); 1 did not within 3,000 steps.");
    CHECK(r.settings[1].median == 225);
    CHECK(r.sentences[1] == "H = 4 reached 0.200 nats at step 225 (the median of 3 seeds; 200 to 250).");
    // two seeds of which one never gets there: the median is that seed's
    REQUIRE(reach_over_seeds({"H = 1"}, {steps, steps}, {curve(2250), curve(1e9)}, 2, 0.2, 3000, r).empty());
    CHECK(r.settings[0].median == -1);
    CHECK(r.sentences[0] == "H = 1 reached 0.200 nats on 1 of 2 seeds, at step 2,250; 1 did not within "
                            "3,000 steps.");
    REQUIRE(reach_over_seeds({"H = 1"}, {steps}, {curve(1e9)}, 1, 0.2, 3000, r).empty());
    CHECK(r.sentences[0] == "H = 1 did not reach 0.200 nats within 3,000 steps (its lowest validation loss: 1.000).");
    // an even number of seeds that all got there: the mean of the two middle ones
    REQUIRE(reach_over_seeds({"H = 2"}, {steps, steps}, {curve(200), curve(225)}, 2, 0.2, 3000, r).empty());
    CHECK(r.settings[0].median == 212.5);
    CHECK(has(r.sentences[0], "at step 212.5 (the median of 2 seeds; 200 to 225)"));
}

TEST_CASE("reach: bad input is a sentence", "[reach]") {
    ReachComparison r;
    CHECK(has(reach_over_seeds({"a"}, {{0, 1}}, {{1, 0.1}}, 2, 0.2, 10, r), "one curve"));
    CHECK(has(reach_over_seeds({"a"}, {{0, 1}}, {{1}}, 1, 0.2, 10, r), "a loss at each"));
    CHECK(has(reach_over_seeds({"a"}, {{1, 0}}, {{1, 0.1}}, 1, 0.2, 10, r), "must increase"));
    CHECK(has(reach_over_seeds({"a"}, {{0, 1}}, {{1, NAN}}, 1, 0.2, 10, r), "no finite loss"));
    CHECK(has(reach_over_seeds({"a"}, {{0, 1}}, {{1, 0.1}}, 1, 0, 10, r), "positive number"));
    CHECK(has(reach_over_seeds({"a"}, {{0, 1}}, {{1, 0.1}}, 1, 0.2, 0, r), "at least one step"));
}
