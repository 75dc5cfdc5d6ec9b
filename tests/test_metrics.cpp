// Head scores on hand-built attention matrices whose values we can work out on paper.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "error.hpp"
#include "metrics.hpp"

using namespace mha;

namespace {
// A (3,3):  row 0 [1, 0, 0]   row 1 [0.25, 0.75, 0]   row 2 [0.2, 0.5, 0.3]
const std::vector<float> kSmall = {1, 0, 0, 0.25f, 0.75f, 0, 0.2f, 0.5f, 0.3f};

// (T,T) with every row i >= 1 putting all its weight on key col(i); row 0 on itself
template <class F>
std::vector<float> one_hot_rows(int T, F col) {
    std::vector<float> a(std::size_t(T) * T, 0.0f);
    a[0] = 1;
    for (int i = 1; i < T; ++i) a[i * T + col(i)] = 1;
    return a;
}
// uniform over the causal keys: row i is 1/(i+1) on keys 0..i
std::vector<float> uniform_causal(int T) {
    std::vector<float> a(std::size_t(T) * T, 0.0f);
    for (int i = 0; i < T; ++i)
        for (int j = 0; j <= i; ++j) a[i * T + j] = 1.0f / float(i + 1);
    return a;
}
}  // namespace

TEST_CASE("previous-token and first-token scores of a 3x3 matrix worked by hand", "[metrics]") {
    // previous: mean(A[1,0], A[2,1]) = (0.25 + 0.5) / 2 = 0.375;  first: mean(A[1,0], A[2,0]) = (0.25 + 0.2) / 2
    CHECK(previous_token_score(kSmall.data(), 3) == Approx(0.375));
    CHECK(first_token_score(kSmall.data(), 3) == Approx(0.225));
    // a single position has no earlier key: both scores are 0 by definition
    CHECK(previous_token_score(kSmall.data(), 1) == 0.0);
    CHECK(first_token_score(kSmall.data(), 1) == 0.0);
}

TEST_CASE("mean row entropy in nats and its uniform maximum", "[metrics]") {
    // row 0: 0;  row 1: -(.25 ln .25 + .75 ln .75) = 0.346574 + 0.215762 = 0.562335;
    // row 2: -(.2 ln .2 + .5 ln .5 + .3 ln .3) = 0.321888 + 0.346574 + 0.361192 = 1.029653;  mean 0.530663
    CHECK(mean_row_entropy(kSmall.data(), 3) == Approx(0.530663).margin(1e-6));
    // uniform causal rows: (ln 1 + ln 2 + ln 3) / 3 = (0 + 0.693147 + 1.098612) / 3 = 0.597253
    CHECK(uniform_row_entropy(3) == Approx(0.597253).margin(1e-6));
    const auto u = uniform_causal(3);
    CHECK(mean_row_entropy(u.data(), 3) == Approx(uniform_row_entropy(3)).margin(1e-6));
    // one-hot rows carry no uncertainty
    const auto prev = one_hot_rows(5, [](int i) { return i - 1; });
    CHECK(mean_row_entropy(prev.data(), 5) == Approx(0.0).margin(1e-9));
}

TEST_CASE("induction score on the probe BOS r r with L = 3", "[metrics]") {
    // T = 7: BOS at 0, first copy 1..3, second copy 4..6; an induction head at i looks at i - L + 1 = i - 2
    const int L = 3, T = 2 * L + 1;
    const auto ind = one_hot_rows(T, [](int i) { return i >= L + 1 ? i - L + 1 : i - 1; });
    CHECK(induction_score(ind.data(), T, L) == Approx(1.0));
    // a previous-token head scores 0 there (i - 1 != i - 2) and 1 on the previous-token score
    const auto prev = one_hot_rows(T, [](int i) { return i - 1; });
    CHECK(induction_score(prev.data(), T, L) == Approx(0.0));
    CHECK(previous_token_score(prev.data(), T) == Approx(1.0));
    // uniform rows: (1/5 + 1/6 + 1/7) / 3 for rows 4, 5, 6
    const auto u = uniform_causal(T);
    CHECK(induction_score(u.data(), T, L) == Approx((1.0 / 5 + 1.0 / 6 + 1.0 / 7) / 3).margin(1e-6));
    // a probe that does not fit is an error, not a read past the end
    CHECK_THROWS_AS(induction_score(u.data(), T, 4), Error);
}

TEST_CASE("induction score of a segment at an offset, as in the task's sequences", "[metrics]") {
    // T = 12, L = 3, the first copy at 4..6, the repeat at 7..9, filler around: the induction head at i = 7..9
    // looks at i - 2 = 5..7; rows outside the repeat look anywhere (here at 0)
    const int T = 12, L = 3, start = 4;
    const auto ind = one_hot_rows(T, [](int i) { return i >= 7 && i <= 9 ? i - L + 1 : 0; });
    CHECK(induction_score(ind.data(), T, L, start) == Approx(1.0));
    // scored as if the segment sat right after BOS (rows 4..6, targets 2..4), the same head scores 0
    CHECK(induction_score(ind.data(), T, L) == Approx(0.0));
    // two of the three repeat rows on their target
    const auto two = one_hot_rows(T, [](int i) { return i == 7 ? 5 : i == 8 ? 6 : 0; });
    CHECK(induction_score(two.data(), T, L, start) == Approx(2.0 / 3));
    // both copies must end inside T: start + 2L <= T
    CHECK_NOTHROW(induction_score(ind.data(), T, L, 6));
    CHECK_THROWS_AS(induction_score(ind.data(), T, L, 7), Error);
    CHECK_THROWS_AS(induction_score(ind.data(), T, L, 0), Error);
}

TEST_CASE("automatic labels follow the stated thresholds in order", "[metrics]") {
    HeadScores s;
    s.max_entropy = 2.0;
    s.entropy = 1.0;
    CHECK(head_label(s) == "mixed");
    s.entropy = LabelThresholds::broad * 2.0;
    CHECK(head_label(s) == "broad");
    s.first = LabelThresholds::first;
    CHECK(head_label(s) == "first-token head");
    s.previous = LabelThresholds::previous;
    CHECK(head_label(s) == "previous-token head");
    s.induction = LabelThresholds::induction;
    CHECK(head_label(s) == "induction head");
    // labels of the hand-built matrices
    const int T = 7;
    const auto prev = one_hot_rows(T, [](int i) { return i - 1; });
    HeadScores p{previous_token_score(prev.data(), T), first_token_score(prev.data(), T), mean_row_entropy(prev.data(), T),
                 uniform_row_entropy(T), 0.0};
    CHECK(head_label(p) == "previous-token head");
    const auto first = one_hot_rows(T, [](int) { return 0; });
    HeadScores f{previous_token_score(first.data(), T), first_token_score(first.data(), T), mean_row_entropy(first.data(), T),
                 uniform_row_entropy(T), 0.0};
    CHECK(f.first == Approx(1.0));
    CHECK(head_label(f) == "first-token head");
    const auto u = uniform_causal(T);
    HeadScores b{previous_token_score(u.data(), T), first_token_score(u.data(), T), mean_row_entropy(u.data(), T),
                 uniform_row_entropy(T), 0.0};
    CHECK(head_label(b) == "broad");
}

TEST_CASE("mean attention distance over the rows i >= 1, worked by hand", "[metrics]") {
    // kSmall: row 1 looks 1 back with 0.25: 0.25;  row 2: 0.2 · 2 + 0.5 · 1 = 0.9;  mean (0.25 + 0.9) / 2 = 0.575
    CHECK(mean_attention_distance(kSmall.data(), 3) == Approx(0.575));
    // a previous-token head is 1 back everywhere; a first-token head at row i is i back: mean of 1..4 = 2.5
    const auto prev = one_hot_rows(5, [](int i) { return i - 1; });
    CHECK(mean_attention_distance(prev.data(), 5) == Approx(1.0));
    const auto first = one_hot_rows(5, [](int) { return 0; });
    CHECK(mean_attention_distance(first.data(), 5) == Approx(2.5));
    // uniform rows: row i looks (0 + 1 + ... + i) / (i + 1) = i / 2 back; rows 1..3: (0.5 + 1 + 1.5) / 3 = 1
    const auto u = uniform_causal(4);
    CHECK(mean_attention_distance(u.data(), 4) == Approx(1.0).margin(1e-6));
    // a single position has no earlier key
    CHECK(mean_attention_distance(kSmall.data(), 1) == 0.0);
}

TEST_CASE("attention-by-offset profile, worked by hand", "[metrics]") {
    // kSmall: offset 0 (diagonal) over rows 0..2: (1 + 0.75 + 0.3) / 3; offset 1 over rows 1..2: (0.25 + 0.5) / 2;
    // offset 2 over row 2: 0.2
    double p[3] = {-1, -1, -1};
    offset_profile(kSmall.data(), 3, 3, p);
    CHECK(p[0] == Approx(2.05 / 3));
    CHECK(p[1] == Approx(0.375));
    CHECK(p[2] == Approx(0.2));
    CHECK(p[1] == Approx(previous_token_score(kSmall.data(), 3)));
    // a first-token head (T = 5): offset k holds weight only in row i = k, one row of the T - k counted
    const auto first = one_hot_rows(5, [](int) { return 0; });
    double f[5];
    offset_profile(first.data(), 5, 5, f);
    const double want_first[5] = {1.0 / 5, 1.0 / 4, 1.0 / 3, 1.0 / 2, 1.0};
    for (int k = 0; k < 5; ++k) CHECK(f[k] == Approx(want_first[k]));
    // an offset-3 head (rows i >= 3 on i - 3, earlier rows on 0): 1 at offset 3, and offset 0 only from row 0
    const auto three = one_hot_rows(8, [](int i) { return i >= 3 ? i - 3 : 0; });
    double t[4];
    offset_profile(three.data(), 8, 4, t);
    CHECK(t[0] == Approx(1.0 / 8));
    CHECK(t[1] == Approx(1.0 / 7));  // row 1 on key 0
    CHECK(t[2] == Approx(1.0 / 6));  // row 2 on key 0
    CHECK(t[3] == Approx(1.0));
    // uniform rows (T = 4): offset 0 is (1 + 1/2 + 1/3 + 1/4) / 4, offset 3 only row 3's 1/4
    const auto u = uniform_causal(4);
    double q[4];
    offset_profile(u.data(), 4, 4, q);
    CHECK(q[0] == Approx((1 + 0.5 + 1.0 / 3 + 0.25) / 4).margin(1e-6));
    CHECK(q[3] == Approx(0.25).margin(1e-6));
    // more offsets than positions would read outside A
    CHECK_THROWS_AS(offset_profile(u.data(), 4, 5, q), Error);
}

TEST_CASE("the profile has min(T, 16) offsets", "[metrics]") {
    CHECK(profile_offsets(64) == 16);
    CHECK(profile_offsets(16) == 16);
    CHECK(profile_offsets(10) == 10);
    CHECK(profile_offsets(1) == 1);
    CHECK(profile_offsets(0) == 0);
}
