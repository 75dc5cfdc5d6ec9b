#include "prng.hpp"

#include <cmath>

namespace mha {

double det_log(double x) {
    // x = m * 2^e with m in [sqrt(1/2), sqrt(2)); ln x = e ln2 + ln m,
    // ln m = 2 atanh(z) = 2 (z + z^3/3 + z^5/5 + ...), z = (m-1)/(m+1), |z| <= 0.172, so 22 terms reach
    // far below double precision. scripts/gen_prng_reference.py repeats these operations in this order.
    int e = 0;
    double m = std::frexp(x, &e);  // m in [0.5, 1), exact
    if (m < 0.70710678118654752440) {
        m *= 2.0;
        e -= 1;
    }
    const double z = (m - 1.0) / (m + 1.0);
    const double z2 = z * z;
    double term = z, sum = 0.0;
    for (int k = 0; k < 22; ++k) {
        sum += term / static_cast<double>(2 * k + 1);
        term *= z2;
    }
    const double ln2 = 0.6931471805599453094;
    return 2.0 * sum + static_cast<double>(e) * ln2;
}

double Rng::normal() {
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    double u, v, s;
    do {
        u = 2.0 * uniform_double() - 1.0;
        v = 2.0 * uniform_double() - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double scale = std::sqrt(-2.0 * det_log(s) / s);  // sqrt is exactly rounded in IEEE 754
    spare_ = v * scale;
    has_spare_ = true;
    return u * scale;
}

}  // namespace mha
