#include "offset_task.hpp"

#include <algorithm>

#include "config.hpp"
#include "error.hpp"

namespace mha {

long long offset_task_classes(const OffsetTaskConfig& k, long long limit) {
    long long n = 1;
    for (std::size_t i = 0; i < k.offsets.size(); ++i) {
        n *= std::max(k.symbols, 1);
        if (n > limit) return 0;
    }
    return n;
}

int max_offset(const OffsetTaskConfig& k) {
    return k.offsets.empty() ? 0 : *std::max_element(k.offsets.begin(), k.offsets.end());
}

std::string validate_offset_task(const OffsetTaskConfig& k, int T) {
    if (T < 2 || T > Limits::max_seq_len)
        return "For the offsets task the context length T must be a whole number from 2 to " +
               std::to_string(Limits::max_seq_len) + ", not " + std::to_string(T) + ".";
    if (k.symbols < 2) return "the offsets task needs at least 2 symbols (got " + std::to_string(k.symbols) + ").";
    const int K = static_cast<int>(k.offsets.size());
    if (K < 1 || K > OffsetTaskLimits::max_offsets)
        return "the offsets task needs 1 to " + std::to_string(OffsetTaskLimits::max_offsets) + " offsets (got " +
               std::to_string(K) + ").";
    for (int i = 0; i < K; ++i) {
        const int o = k.offsets[i];
        if (o < 1 || o > T - 1)
            return "offset " + std::to_string(o) + " is outside 1 to T-1 = " + std::to_string(T - 1) +
                   " (offset 1 is the previous token).";
        for (int j = 0; j < i; ++j)
            if (k.offsets[j] == o) return "offset " + std::to_string(o) + " is listed twice.";
    }
    if (offset_task_classes(k, Limits::max_vocab) == 0)
        return std::to_string(k.symbols) + " symbols at " + std::to_string(K) + " offsets make " +
               std::to_string(k.symbols) + "^" + std::to_string(K) + " classes, more than the largest vocabulary, " +
               std::to_string(Limits::max_vocab) + ": use fewer symbols or offsets.";
    return "";
}

void fill_offset_batch(Rng& rng, const OffsetTaskConfig& k, int B, int T, int* x, int* y) {
    const std::string err = validate_offset_task(k, T);
    MHA_CHECK(err.empty(), "fill_offset_batch: " + err);
    MHA_CHECK(B >= 1, "fill_offset_batch: B must be positive");
    const int first = max_offset(k);
    const auto S = static_cast<std::uint32_t>(k.symbols);
    for (int b = 0; b < B; ++b) {
        int* x_b = x + static_cast<std::size_t>(b) * T;
        int* y_b = y + static_cast<std::size_t>(b) * T;
        for (int t = 0; t < T; ++t) x_b[t] = static_cast<int>(rng.below(S));
        for (int t = 0; t < T; ++t) {
            if (t < first) {
                y_b[t] = -1;  // some offset reaches before the sequence: no target
                continue;
            }
            int cls = 0, digit = 1;
            for (int o : k.offsets) cls += x_b[t - o] * digit, digit *= k.symbols;
            y_b[t] = cls;
        }
    }
}

}  // namespace mha
