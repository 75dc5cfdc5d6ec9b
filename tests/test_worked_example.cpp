// The worked example of the lesson (seed 003, "8.3 The Matrix"): T=3, D=4, H=2, d_h=2,
//   X = [[1,0,1,0],[0,1,0,1],[1,1,0,0]],
//   head 1: Wq¹ = Wk¹ = Wv¹ = [[1,0],[0,1],[0,0],[0,0]] (it reads the first two channels),
//   head 2: the same on the last two channels ("focuses on the last 2 dimensions").
// As one (D,D) projection per role that is the identity, in (out,in) layout too; W_O is not given in the text,
// we take the identity so the output is the concat. Expected values are derived below in closed form from the
// formula softmax(q kᵀ/√2 + M) v — not copied from the text, whose printed numbers are wrong (checked below).
#include <catch2/catch.hpp>

#include <cmath>

#include "attention.hpp"

using namespace mha;

namespace {
struct Example {
    xt::xtensor<double, 3> x{{{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 1, 0, 0}}};
    MhaWeights<double> w = identity_weights();

    static MhaWeights<double> identity_weights() {
        MhaWeights<double> w = mha_zero_weights<double>(4);
        for (auto* m : {&w.wq, &w.wk, &w.wv, &w.wo})
            for (int i = 0; i < 4; ++i) (*m)(i, i) = 1.0;
        return w;
    }
};
}  // namespace

TEST_CASE("seed 003 worked example: attention weights of head 1 and head 2", "[worked-example]") {
    Example ex;
    const auto r = mha_forward(ex.x, ex.w, 2);
    const double e = std::exp(1.0 / std::sqrt(2.0));  // exp of one unit dot product scaled by 1/√2

    // head 1 sees q = k = v = [[1,0],[0,1],[1,1]]
    // row 0: only itself.  row 1: scores [0, 1]/√2.  row 2: scores [1, 1, 2]/√2.
    CHECK(r.att(0, 0, 0, 0) == Approx(1.0));
    CHECK(r.att(0, 0, 1, 0) == Approx(1.0 / (1.0 + e)));
    CHECK(r.att(0, 0, 1, 1) == Approx(e / (1.0 + e)));
    const double z2 = e + e + e * e;
    CHECK(r.att(0, 0, 2, 0) == Approx(e / z2));
    CHECK(r.att(0, 0, 2, 1) == Approx(e / z2));
    CHECK(r.att(0, 0, 2, 2) == Approx(e * e / z2));

    // head 2 sees q = k = v = [[1,0],[0,1],[0,0]]: row 1 as head 1; row 2 has q = 0, so uniform 1/3
    CHECK(r.att(0, 1, 1, 0) == Approx(1.0 / (1.0 + e)));
    CHECK(r.att(0, 1, 1, 1) == Approx(e / (1.0 + e)));
    for (int s = 0; s < 3; ++s) CHECK(r.att(0, 1, 2, s) == Approx(1.0 / 3.0));

    // numerically: 1/(1+e^{0.7071}) = 0.3302, not the 0.414 the text prints for A¹[1,0]
    CHECK(r.att(0, 0, 1, 0) == Approx(0.3302).margin(1e-4));
    CHECK(std::abs(r.att(0, 0, 1, 0) - 0.414) > 0.05);
}

TEST_CASE("seed 003 worked example: head outputs, concat and W_O", "[worked-example]") {
    Example ex;
    const auto r = mha_forward(ex.x, ex.w, 2);
    const double e = std::exp(1.0 / std::sqrt(2.0)), a1 = 1.0 / (1.0 + e), z2 = e + e + e * e;
    // head 1 = A¹ v¹ with v¹ = [[1,0],[0,1],[1,1]];  head 2 = A² v² with v² = [[1,0],[0,1],[0,0]]
    const double want[3][4] = {
        {1.0, 0.0, 1.0, 0.0},
        {a1, 1.0 - a1, a1, 1.0 - a1},
        {(e + e * e) / z2, (e + e * e) / z2, 1.0 / 3.0, 1.0 / 3.0},
    };
    for (int t = 0; t < 3; ++t)
        for (int c = 0; c < 4; ++c) {
            INFO("t=" << t << " c=" << c);
            CHECK(r.out(0, t, c) == Approx(want[t][c]).epsilon(1e-12));
        }
    // the text prints head 2's rows 1 and 2 as [0.5, 0.5] and [0.421, 0.211]; its own formula gives these
    CHECK(r.out(0, 2, 2) == Approx(1.0 / 3.0));
    CHECK(std::abs(r.out(0, 1, 2) - 0.5) > 0.1);

    SECTION("a non-identity W_O mixes the heads: every output channel reads both heads") {
        MhaWeights<double> w = ex.w;
        for (int o = 0; o < 4; ++o)
            for (int c = 0; c < 4; ++c) w.wo(o, c) = 0.25;  // average all four concat channels
        const auto mixed = mha_forward(ex.x, w, 2);
        for (int t = 0; t < 3; ++t) {
            const double avg = (want[t][0] + want[t][1] + want[t][2] + want[t][3]) / 4.0;
            for (int o = 0; o < 4; ++o) CHECK(mixed.out(0, t, o) == Approx(avg));
        }
    }
}
