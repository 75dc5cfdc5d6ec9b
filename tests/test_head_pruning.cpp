// Head pruning (core/lab/head_pruning.hpp): one trained model's importance table and curve, measured through the
// Run as the page and mha-train measure it; and the rule over seeds on hand-made curves, one per outcome, with the
// arithmetic that decides each written out.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "error.hpp"
#include "head_pruning.hpp"
#include "probes.hpp"
#include "run.hpp"
#include "run_util.hpp"
#include "student_t.hpp"

using namespace mha;
using mha::test::built;

namespace {

// L = 2 layers of H = 4 heads (8 heads), D = 16, trained 60 steps (run_util.hpp): the heads differ enough to order
RunSpec small_spec() { return mha::test::text_spec(); }

std::vector<float> weights(const Run& run) {
    const Gpt<float>& m = run.model();
    return std::vector<float>(m.params(), m.params() + m.num_params());
}

// a curve (L*H + 1 losses) from a base loss and the rises at k = 1, 2, ...
std::vector<double> curve(double base, std::vector<double> rises) {
    std::vector<double> c{base};
    for (double r : rises) c.push_back(base + r);
    return c;
}

constexpr double kTight = 1e-9;  // the arithmetic below is exact up to rounding

}  // namespace

// ---------------------------------------------------------------- one trained model
TEST_CASE("pruning a trained model: the curve's ends, the order, and the model left as it was", "[pruning]") {
    auto run = built(small_spec());
    run->train_to_end();
    const std::vector<float> before = weights(*run);
    const double val = run->evaluate();

    const PruningCurve c = run->prune_heads();
    const int n = 2 * 4;
    REQUIRE(c.L == 2);
    REQUIRE(c.H == 4);
    REQUIRE(c.importance.size() == std::size_t(n));
    REQUIRE(c.order.size() == std::size_t(n));
    REQUIRE(c.loss.size() == std::size_t(n + 1));

    SECTION("k = 0 is the plain validation loss") {
        CHECK(c.base_loss == val);
        CHECK(c.loss[0] == val);
    }
    SECTION("k = L·H is the loss with a HeadEdit of every head") {
        std::vector<std::pair<int, int>> every;
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 4; ++h) every.emplace_back(l, h);
        double all_off = 0;
        {
            HeadEdit off(run->model(), every, false);
            all_off = run->evaluate();
        }
        CHECK(c.loss[n] == all_off);
        CHECK(c.loss[n] > c.loss[0]);
    }
    SECTION("each importance is the loss with that head alone off, minus the loss as trained") {
        for (int i = 0; i < n; ++i) {
            HeadEdit off(run->model(), {{i / 4, i % 4}}, false);
            CHECK(c.importance[i] == run->evaluate() - val);
        }
    }
    SECTION("the order is a permutation sorted by importance, least important first, ties by index") {
        std::vector<int> sorted = c.order;
        std::sort(sorted.begin(), sorted.end());
        for (int i = 0; i < n; ++i) CHECK(sorted[i] == i);
        for (int i = 0; i + 1 < n; ++i) {
            const double a = c.importance[c.order[i]], b = c.importance[c.order[i + 1]];
            CHECK(a <= b);
            if (a == b) CHECK(c.order[i] < c.order[i + 1]);
        }
    }
    SECTION("the first head removed is the least important one (fails if the order were reversed)") {
        // the heads must differ for the order to mean anything: then the reversed order would take the most
        // important head first, and the first step of the curve would be the largest importance, not the smallest
        const double lo = *std::min_element(c.importance.begin(), c.importance.end());
        const double hi = *std::max_element(c.importance.begin(), c.importance.end());
        REQUIRE(hi > lo);
        CHECK(c.importance[c.order.front()] == lo);
        CHECK(c.importance[c.order.back()] == hi);
        // loss(1) − loss(0) is the importance of the head removed first: both are that head alone off
        CHECK(c.loss[1] - c.loss[0] == lo);
        CHECK(c.loss[1] - c.loss[0] < hi);
    }
    SECTION("the model is unchanged afterwards: the same loss, bitwise the same weights, every head on") {
        CHECK(run->evaluate() == val);
        const std::vector<float> after = weights(*run);
        REQUIRE(after.size() == before.size());
        CHECK(std::memcmp(after.data(), before.data(), before.size() * sizeof(float)) == 0);
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 4; ++h) CHECK(run->model().head_enabled(l, h));
        // and a second pruning measures the same
        const PruningCurve again = run->prune_heads();
        CHECK(again.loss == c.loss);
        CHECK(again.order == c.order);
    }
}

TEST_CASE("pruning refuses a model with a head already off", "[pruning]") {
    auto run = built(small_spec());
    HeadEdit off(run->model(), {{1, 2}}, false);
    CHECK_THROWS_AS(run->prune_heads(), Error);
}

// ---------------------------------------------------------------- the rule over seeds, on hand-made curves
// L = 1, H = 2: curves of 3 losses (k = 0, 1, 2), τ = 0.1, 3 seeds, t = t_{0.975, 2} = 4.3027 and √3 = 1.7321, so
// an interval is mean ± 2.4841·sd. The seeds' base losses differ by 0.5 (2.0, 2.5, 3.0): far more than any rise, so
// only a rule that pairs each seed with itself can decide anything.
TEST_CASE("pruning over seeds: the t-interval of the paired rise against the threshold", "[pruning]") {
    const double tau = 0.1;
    const double t = student_t_quantile(0.975, 2);
    REQUIRE(t == Approx(4.3027).epsilon(1e-4));
    const double w = t / std::sqrt(3.0);  // half-width per unit of sd: 2.4841
    PruningOverSeeds v;

    SECTION("rises: one head can go, the second surely costs more than 0.1") {
        // k = 1: rises 0.01, 0.02, 0.03: mean 0.02, sd 0.01, interval 0.02 ± 0.0248 = −0.0048 to 0.0448 < 0.1
        // k = 2: rises 0.5, 0.6, 0.7: mean 0.6, sd 0.1, interval 0.6 ± 0.2484 = 0.3516 to 0.8484 > 0.1
        const std::vector<std::vector<double>> c = {curve(2.0, {0.01, 0.5}), curve(2.5, {0.02, 0.6}), curve(3.0, {0.03, 0.7})};
        REQUIRE(pruning_over_seeds(1, 2, c, tau, v) == "");
        CHECK(v.seeds == 3);
        CHECK(v.rise[0].low == 0);
        CHECK(v.rise[0].high == 0);
        CHECK(v.rise[1].mean == Approx(0.02).margin(kTight));
        CHECK(v.rise[1].high == Approx(0.02 + 0.01 * w).margin(kTight));
        CHECK(v.rise[2].low == Approx(0.6 - 0.1 * w).margin(kTight));
        CHECK(v.mean_loss[0] == Approx(2.5).margin(kTight));
        CHECK(v.mean_loss[2] == Approx(3.1).margin(kTight));
        CHECK(v.removable == 1);
        CHECK(v.rises_at == 2);
        CHECK(v.outcome == PruneOutcome::rises);
        CHECK(std::string(prune_outcome_name(v.outcome)) == "rises");
        CHECK(v.sentence.find("Over 3 seeds, 1 head of the 2 heads") != std::string::npos);
        CHECK(v.sentence.find("switching off the 2nd") != std::string::npos);
        // 0.6 ± 0.24841: the ends printed to three decimals
        CHECK(v.sentence.find("(95% t-interval +0.352 to +0.848)") != std::string::npos);
    }
    SECTION("an interval just above 0.1 is printed so that it does not seem to start at 0.1") {
        // k = 2: rises 0.1153, 0.1253, 0.1353: mean 0.1253, sd 0.01, low 0.1253 − 0.02484 = 0.10046 > 0.1: rises,
        // and its lower end, "+0.100" to three decimals, is printed as "+0.1005"
        const std::vector<std::vector<double>> c = {curve(2.0, {0.01, 0.1153}), curve(2.5, {0.02, 0.1253}),
                                                    curve(3.0, {0.03, 0.1353})};
        REQUIRE(pruning_over_seeds(1, 2, c, tau, v) == "");
        CHECK(v.outcome == PruneOutcome::rises);
        CHECK(v.sentence.find("(95% t-interval +0.1005 to +0.150)") != std::string::npos);
    }
    SECTION("cannot tell: the second head's rise straddles 0.1") {
        // k = 2: rises 0.0, 0.1, 0.2: mean 0.1, sd 0.1, interval 0.1 ± 0.2484 = −0.1484 to 0.3484, both sides of 0.1
        const std::vector<std::vector<double>> c = {curve(2.0, {0.01, 0.0}), curve(2.5, {0.02, 0.1}), curve(3.0, {0.03, 0.2})};
        REQUIRE(pruning_over_seeds(1, 2, c, tau, v) == "");
        CHECK(v.rise[2].low == Approx(0.1 - 0.1 * w).margin(kTight));
        CHECK(v.rise[2].high == Approx(0.1 + 0.1 * w).margin(kTight));
        CHECK(v.removable == 1);
        CHECK(v.rises_at == -1);
        CHECK(v.outcome == PruneOutcome::cannot_tell);
        CHECK(std::string(prune_outcome_name(v.outcome)) == "cannot-tell");
        CHECK(v.sentence.find("cannot tell yet") != std::string::npos);
    }
    SECTION("removable: every head can go") {
        // k = 2: rises 0.04, 0.05, 0.06: mean 0.05, sd 0.01, interval 0.05 ± 0.0248, up to 0.0748 < 0.1
        const std::vector<std::vector<double>> c = {curve(2.0, {0.01, 0.04}), curve(2.5, {0.02, 0.05}), curve(3.0, {0.03, 0.06})};
        REQUIRE(pruning_over_seeds(1, 2, c, tau, v) == "");
        CHECK(v.rise[2].high == Approx(0.05 + 0.01 * w).margin(kTight));
        CHECK(v.removable == 2);
        CHECK(v.rises_at == -1);
        CHECK(v.outcome == PruneOutcome::removable);
        CHECK(v.sentence.find("all 2 heads") != std::string::npos);
    }
    SECTION("removable counts only an unbroken run from k = 0") {
        // k = 1 straddles (0.0, 0.1, 0.2 as above), k = 2 is surely below (0.01, 0.02, 0.03): removable stays 0,
        // the outcome is decided at k = 1
        const std::vector<std::vector<double>> c = {curve(2.0, {0.0, 0.01}), curve(2.5, {0.1, 0.02}), curve(3.0, {0.2, 0.03})};
        REQUIRE(pruning_over_seeds(1, 2, c, tau, v) == "");
        CHECK(v.rise[2].high < tau);
        CHECK(v.removable == 0);
        CHECK(v.outcome == PruneOutcome::cannot_tell);
        CHECK(v.sentence.find("not even one") != std::string::npos);
    }
    SECTION("one seed: no interval, so it cannot tell (as compare_over_seeds with one seed)") {
        // even a rise of 5 nats at k = 1 is not "sure" from one seed: the spread between seeds is unknown
        REQUIRE(pruning_over_seeds(1, 2, {curve(2.0, {5.0, 6.0})}, tau, v) == "");
        CHECK(v.rise[0].low == 0);
        CHECK(v.rise[1].low == -std::numeric_limits<double>::infinity());
        CHECK(v.rise[1].high == std::numeric_limits<double>::infinity());
        CHECK(v.removable == 0);
        CHECK(v.rises_at == -1);
        CHECK(v.outcome == PruneOutcome::cannot_tell);
        CHECK(v.sentence.find("one seed") != std::string::npos);
        CHECK(v.sentence.find("with the 1st head off") != std::string::npos);
    }
    SECTION("refusals, as sentences") {
        CHECK(pruning_over_seeds(1, 2, {}, tau, v) != "");
        CHECK(pruning_over_seeds(1, 2, {{2.0, 2.1}}, tau, v) != "");                         // 2 losses, not 3
        CHECK(pruning_over_seeds(1, 2, {{2.0, 2.1, 2.2}, {2.0, 2.1}}, tau, v) != "");        // ragged
        CHECK(pruning_over_seeds(1, 2, {{2.0, NAN, 2.2}}, tau, v) != "");                     // not finite
        CHECK(pruning_over_seeds(1, 2, {{2.0, 2.1, 2.2}}, 0.0, v) != "");                     // τ must be > 0
        CHECK(pruning_over_seeds(0, 2, {{2.0}}, tau, v) != "");
    }
}
