// Student's t distribution against values worked by hand: closed forms for 1 and 2 degrees of freedom and the
// incomplete beta function at b = 1 or a = 1, and the two-sided 95% critical values of the printed tables.
#include <catch2/catch.hpp>

#include <cmath>

#include "error.hpp"
#include "student_t.hpp"

using namespace mha;

TEST_CASE("incomplete beta: closed forms at a = 1 or b = 1", "[stats]") {
    for (double x : {0.0, 0.1, 0.37, 0.5, 0.93, 1.0}) {
        CHECK(regularized_incomplete_beta(x, 1, 1) == Approx(x).margin(1e-12));                        // I_x(1,1) = x
        CHECK(regularized_incomplete_beta(x, 3, 1) == Approx(x * x * x).margin(1e-12));                // x^a
        CHECK(regularized_incomplete_beta(x, 1, 2.5) == Approx(1 - std::pow(1 - x, 2.5)).margin(1e-12));  // 1-(1-x)^b
    }
    // symmetry: I_x(a, b) = 1 - I_{1-x}(b, a)
    CHECK(regularized_incomplete_beta(0.3, 2.5, 0.5) == Approx(1 - regularized_incomplete_beta(0.7, 0.5, 2.5)));
    CHECK_THROWS_AS(regularized_incomplete_beta(1.5, 1, 1), Error);
}

TEST_CASE("Student's t: the CDF in closed form for 1 and 2 degrees of freedom", "[stats]") {
    const double pi = std::acos(-1.0);
    for (double t : {-7.0, -1.0, 0.0, 0.3, 1.0, 2.5, 40.0}) {
        CHECK(student_t_cdf(t, 1) == Approx(0.5 + std::atan(t) / pi).margin(1e-10));               // Cauchy
        CHECK(student_t_cdf(t, 2) == Approx(0.5 + t / (2 * std::sqrt(2 + t * t))).margin(1e-10));  // df = 2
    }
    CHECK(student_t_cdf(1, 1) == Approx(0.75).margin(1e-12));
    CHECK(student_t_cdf(INFINITY, 3) == 1);
    CHECK(student_t_cdf(-INFINITY, 3) == 0);
}

TEST_CASE("Student's t: 95% two-sided critical values as printed in the tables", "[stats]") {
    // df = 2 by hand: p = 1/2 + t / (2 sqrt(2 + t^2)), a = 2p - 1 = 0.95, t = sqrt(2 a^2 / (1 - a^2)) = 4.302653
    CHECK(student_t_quantile(0.975, 2) == Approx(std::sqrt(2 * 0.9025 / 0.0975)).epsilon(1e-9));
    // df = 1: tan(pi (p - 1/2)) = tan(0.475 pi) = 12.706205
    CHECK(student_t_quantile(0.975, 1) == Approx(std::tan(0.475 * std::acos(-1.0))).epsilon(1e-9));
    const struct { int df; double t; } table[] = {{3, 3.182}, {4, 2.776}, {5, 2.571}, {6, 2.447}, {7, 2.365},
                                                 {9, 2.262}, {10, 2.228}, {15, 2.131}, {30, 2.042}, {120, 1.980}};
    for (const auto& row : table) CHECK(student_t_quantile(0.975, row.df) == Approx(row.t).margin(5e-4));
    CHECK(student_t_quantile(0.025, 7) == Approx(-student_t_quantile(0.975, 7)));
    CHECK(student_t_quantile(0.5, 4) == 0);
    // a far tail needs the bracket widened: df = 1 at p = 0.9999 is tan(0.4999 pi) = 3183.1
    CHECK(student_t_quantile(0.9999, 1) == Approx(std::tan(0.4999 * std::acos(-1.0))).epsilon(1e-8));
    CHECK_THROWS_AS(student_t_quantile(1.0, 3), Error);
}
