// Central finite differences in float64, the way ggml's test-backend-ops does it: perturb each input element
// by ±eps, compare (f+ - f-)/2eps with the analytic gradient. Tolerances are the issue's: eps 1e-6,
// atol 1e-5, rtol 1e-3, and zero failures allowed.
#pragma once
#include <cmath>
#include <cstddef>
#include <functional>
#include <sstream>
#include <string>

namespace mha::test {

constexpr double kGradEps = 1e-6;
constexpr double kGradAtol = 1e-5;
constexpr double kGradRtol = 1e-3;

struct GradReport {
    std::size_t checked = 0, failed = 0;
    double max_abs_err = 0;
    std::string first_failure;
};

// loss() evaluates the scalar loss at the current x; analytic (n) is d loss / d x computed beforehand
inline GradReport check_gradient(const std::function<double()>& loss, double* x, const double* analytic,
                                 std::size_t n, const std::string& what) {
    GradReport r;
    for (std::size_t i = 0; i < n; ++i) {
        const double saved = x[i];
        x[i] = saved + kGradEps;
        const double up = loss();
        x[i] = saved - kGradEps;
        const double down = loss();
        x[i] = saved;
        const double fd = (up - down) / (2 * kGradEps);
        const double err = std::abs(fd - analytic[i]);
        r.max_abs_err = std::max(r.max_abs_err, err);
        ++r.checked;
        if (err > kGradAtol + kGradRtol * std::abs(fd)) {
            if (!r.failed) {
                std::ostringstream os;
                os << what << "[" << i << "]: finite difference " << fd << ", analytic " << analytic[i];
                r.first_failure = os.str();
            }
            ++r.failed;
        }
    }
    return r;
}

}  // namespace mha::test
