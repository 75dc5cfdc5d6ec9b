#include "student_t.hpp"

#include <cmath>

#include "error.hpp"

namespace mha {

namespace {

// the continued fraction of I_x(a, b) (A&S 26.5.8), by the modified Lentz method: converges fast for
// x < (a + 1) / (a + b + 2)
double beta_fraction(double x, double a, double b) {
    constexpr double kTiny = 1e-300;
    constexpr double kEps = 1e-15;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (std::abs(d) < kTiny) d = kTiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 500; ++m) {
        // the even step: d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m))
        double num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        d = 1 + num * d;
        c = 1 + num / c;
        if (std::abs(d) < kTiny) d = kTiny;
        if (std::abs(c) < kTiny) c = kTiny;
        d = 1 / d;
        h *= d * c;
        // the odd step: d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
        num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        d = 1 + num * d;
        c = 1 + num / c;
        if (std::abs(d) < kTiny) d = kTiny;
        if (std::abs(c) < kTiny) c = kTiny;
        d = 1 / d;
        const double step = d * c;
        h *= step;
        if (std::abs(step - 1) < kEps) break;
    }
    return h;
}

}  // namespace

double regularized_incomplete_beta(double x, double a, double b) {
    MHA_CHECK(a > 0 && b > 0 && x >= 0 && x <= 1, "the incomplete beta function needs a, b > 0 and x in [0, 1]");
    if (x == 0 || x == 1) return x;
    // x^a (1-x)^b / (a B(a, b)), in logs
    const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                                  b * std::log1p(-x));
    if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(x, a, b) / a;
    return 1 - front * beta_fraction(1 - x, b, a) / b;
}

double student_t_cdf(double t, double df) {
    MHA_CHECK(df > 0 && !std::isnan(t), "Student's t needs a number and df > 0");
    if (std::isinf(t)) return t > 0 ? 1 : 0;
    const double tail = regularized_incomplete_beta(df / (df + t * t), df / 2, 0.5) / 2;  // P(T > |t|)
    return t >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
    MHA_CHECK(p > 0 && p < 1 && df > 0, "a t quantile needs p in (0, 1) and df > 0");
    if (p < 0.5) return -student_t_quantile(1 - p, df);
    if (p == 0.5) return 0;
    // F is increasing: widen the bracket until it holds p (df = 1 at p = 0.9999 needs t near 3183), then bisect
    double lo = 0, hi = 2;
    while (student_t_cdf(hi, df) < p) lo = hi, hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        (student_t_cdf(mid, df) < p ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

}  // namespace mha
