#include "metrics.hpp"

#include <cmath>

#include "error.hpp"
#include "induction_task.hpp"

namespace mha {

double previous_token_score(const float* att, int T) {
    if (T < 2) return 0;
    double s = 0;
    for (int i = 1; i < T; ++i) s += att[i * T + (i - 1)];
    return s / (T - 1);
}

double first_token_score(const float* att, int T) {
    if (T < 2) return 0;
    double s = 0;
    for (int i = 1; i < T; ++i) s += att[i * T];
    return s / (T - 1);
}

double mean_row_entropy(const float* att, int T) {
    if (T < 1) return 0;
    double total = 0;
    for (int i = 0; i < T; ++i)
        for (int j = 0; j <= i; ++j) {
            const double a = att[i * T + j];
            if (a > 0) total -= a * std::log(a);
        }
    return total / T;
}

double uniform_row_entropy(int T) {
    if (T < 1) return 0;
    double total = 0;
    for (int i = 0; i < T; ++i) total += std::log(double(i + 1));
    return total / T;
}

double mean_attention_distance(const float* att, int T) {
    if (T < 2) return 0;
    double s = 0;
    for (int i = 1; i < T; ++i)
        for (int j = 0; j < i; ++j) s += att[i * T + j] * double(i - j);
    return s / (T - 1);
}

void offset_profile(const float* att, int T, int K, double* out) {
    MHA_CHECK(K >= 0 && K <= T, "the attention-by-offset profile has at most T offsets");
    for (int k = 0; k < K; ++k) {
        double s = 0;
        for (int i = k; i < T; ++i) s += att[i * T + (i - k)];
        out[k] = s / (T - k);
    }
}

double induction_score(const float* att, int T, int L, int start) {
    MHA_CHECK(L >= 2 && start >= 1 && start + 2 * L <= T, "the induction probe needs L >= 2 and both copies inside T");
    double s = 0;
    for (int i = start + L; i < start + 2 * L; ++i) s += att[i * T + induction_source(i, L)];
    return s / L;
}

std::string head_label(const HeadScores& s) {
    if (s.induction >= LabelThresholds::induction) return "induction head";
    if (s.previous >= LabelThresholds::previous) return "previous-token head";
    if (s.first >= LabelThresholds::first) return "first-token head";
    if (s.max_entropy > 0 && s.entropy >= LabelThresholds::broad * s.max_entropy) return "broad";
    return "mixed";
}

}  // namespace mha
