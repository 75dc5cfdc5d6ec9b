// The page's worked example (core/worked_example.hpp): every intermediate of the lesson's T=3, D=4, H=2 case.
// Expected values in closed form, e = exp(1/√2) (one unit dot product scaled by 1/√hs, hs = 2):
//   head 1 sees q = k = v = [[1,0],[0,1],[1,1]], head 2 sees [[1,0],[0,1],[0,0]]
//   A¹ row 1 = [1/(1+e), e/(1+e)] = [0.3302, 0.6698] (the lesson prints [0.414, 0.586]: wrong)
#include <catch2/catch.hpp>

#include <cmath>

#include "worked_example.hpp"

using namespace mha;

TEST_CASE("worked example: the lesson case step by step", "[worked-example]") {
    WorkedExample ex;
    REQUIRE(run_worked_example(lesson_worked_example(), ex).empty());
    REQUIRE(ex.T == 3);
    REQUIRE(ex.hs == 2);
    const double e = std::exp(1.0 / std::sqrt(2.0)), r2 = 1.0 / std::sqrt(2.0);
    auto at = [](const std::vector<double>& m, int h, int i, int j, int rows, int cols) {
        return m[(std::size_t(h) * rows + i) * cols + j];
    };
    // per-head slices of W_Q = I: head 0 gets rows e0,e1 of the identity's first two columns
    CHECK(at(ex.wq_h, 0, 0, 0, 4, 2) == 1.0);
    CHECK(at(ex.wq_h, 0, 2, 0, 4, 2) == 0.0);
    CHECK(at(ex.wq_h, 1, 2, 0, 4, 2) == 1.0);
    // Q¹ = [[1,0],[0,1],[1,1]], Q² = [[1,0],[0,1],[0,0]]
    const double q1[3][2] = {{1, 0}, {0, 1}, {1, 1}}, q2[3][2] = {{1, 0}, {0, 1}, {0, 0}};
    for (int t = 0; t < 3; ++t)
        for (int j = 0; j < 2; ++j) {
            CHECK(at(ex.q, 0, t, j, 3, 2) == q1[t][j]);
            CHECK(at(ex.q, 1, t, j, 3, 2) == q2[t][j]);
            CHECK(at(ex.v, 0, t, j, 3, 2) == q1[t][j]);
        }
    // raw scores Q¹K¹ᵀ = [[1,0,1],[0,1,1],[1,1,2]] and scaled by 1/√2
    const double s1[3][3] = {{1, 0, 1}, {0, 1, 1}, {1, 1, 2}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            CHECK(at(ex.scores, 0, i, j, 3, 3) == Approx(s1[i][j]));
            CHECK(at(ex.scaled, 0, i, j, 3, 3) == Approx(s1[i][j] * r2));
            if (j > i) CHECK(std::isinf(at(ex.masked, 0, i, j, 3, 3)));
            else CHECK(at(ex.masked, 0, i, j, 3, 3) == Approx(s1[i][j] * r2));
        }
    // softmax of the masked rows, from mha_forward
    CHECK(at(ex.att, 0, 1, 0, 3, 3) == Approx(1.0 / (1.0 + e)));
    CHECK(at(ex.att, 0, 1, 0, 3, 3) == Approx(0.3302).margin(1e-4));
    CHECK(at(ex.att, 0, 1, 1, 3, 3) == Approx(0.6698).margin(1e-4));
    CHECK(at(ex.att, 0, 0, 1, 3, 3) == 0.0);
    for (int s = 0; s < 3; ++s) CHECK(at(ex.att, 1, 2, s, 3, 3) == Approx(1.0 / 3.0));
    // heads, concat and (W_O = I) the output: head¹ row 2 = (e + e²)/(2e + e²) in both channels
    const double z2 = 2 * e + e * e;
    CHECK(at(ex.heads, 0, 2, 0, 3, 2) == Approx((e + e * e) / z2));
    CHECK(ex.concat[2 * 4 + 0] == Approx((e + e * e) / z2));
    CHECK(ex.concat[2 * 4 + 2] == Approx(1.0 / 3.0));
    // the output through the layer's own W_O = I: row 0 attends only to itself, so it is x row 0 = (1, 0, 1, 0);
    // row 2 carries head¹'s (e + e²)/z2 and, on channel 2, head²'s uniform mean of x's channel 2 (1, 0, 0) = 1/3
    const double row0[4] = {1, 0, 1, 0};
    for (int c = 0; c < 4; ++c) CHECK(ex.out[c] == Approx(row0[c]).margin(1e-12));
    CHECK(ex.out[2 * 4 + 0] == Approx((e + e * e) / z2));
    CHECK(ex.out[2 * 4 + 2] == Approx(1.0 / 3.0));
}

TEST_CASE("worked example: softmax of the shown masked scores is the layer's attention", "[worked-example]") {
    WorkedExampleInput in = lesson_worked_example();
    // edited inputs, as a user would: another X and a W_O that averages the four concat channels
    in.x = {0.5, -1, 2, 0, 1, 1, -0.5, 0.25, -2, 0, 1, 3};
    for (double& w : in.wo) w = 0.25;
    in.wk[1] = 2.0;  // W_K (in=0, out=1)
    WorkedExample ex;
    REQUIRE(run_worked_example(in, ex).empty());
    for (int h = 0; h < 2; ++h)
        for (int t = 0; t < 3; ++t) {
            double mx = -INFINITY, sum = 0;
            for (int s = 0; s <= t; ++s) mx = std::max(mx, ex.masked[(h * 3 + t) * 3 + s]);
            for (int s = 0; s <= t; ++s) sum += std::exp(ex.masked[(h * 3 + t) * 3 + s] - mx);
            for (int s = 0; s <= t; ++s)
                CHECK(ex.att[(h * 3 + t) * 3 + s] == Approx(std::exp(ex.masked[(h * 3 + t) * 3 + s] - mx) / sum));
        }
    // output = concat · W_O: every channel the mean of the row
    for (int t = 0; t < 3; ++t) {
        double mean = 0;
        for (int c = 0; c < 4; ++c) mean += ex.concat[t * 4 + c] / 4;
        for (int c = 0; c < 4; ++c) CHECK(ex.out[t * 4 + c] == Approx(mean));
    }
}

TEST_CASE("worked example: bad inputs are sentences", "[worked-example]") {
    WorkedExampleInput in = lesson_worked_example();
    WorkedExample ex;
    in.H = 3;
    CHECK(run_worked_example(in, ex).find("divisible") != std::string::npos);
    in = lesson_worked_example();
    in.x[4] = NAN;
    CHECK(run_worked_example(in, ex).find("X") != std::string::npos);
    in = lesson_worked_example();
    in.wo.pop_back();
    CHECK(run_worked_example(in, ex).find("W_O") != std::string::npos);
    in = lesson_worked_example();
    in.T = 9;
    CHECK(!run_worked_example(in, ex).empty());
}
