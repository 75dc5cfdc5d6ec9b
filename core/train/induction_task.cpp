#include "induction_task.hpp"

#include "config.hpp"
#include "error.hpp"

namespace mha {

namespace {
// uniform in 1..V-1: any token but BOS
int random_token(Rng& rng, int V) { return 1 + static_cast<int>(rng.below(static_cast<std::uint32_t>(V - 1))); }
}  // namespace

std::string validate_induction_task(int T, int V, int min_len, int max_len) {
    if (T < 3 || T > Limits::max_seq_len)
        return "For the induction task the context length T must be a whole number from 3 to " +
               std::to_string(Limits::max_seq_len) + ", not " + std::to_string(T) + ".";
    if (V < 2 || V > Limits::max_vocab)
        return "For the induction task the vocabulary size must be a whole number from 2 to " +
               std::to_string(Limits::max_vocab) + ", not " + std::to_string(V) + " (token 0 is BOS, the segment uses 1..V-1).";
    const int longest = (T - 1) / 2;
    if (min_len < 1 || max_len < min_len)
        return "The segment lengths must satisfy 1 <= min_len <= max_len (got " + std::to_string(min_len) + " and " +
               std::to_string(max_len) + ").";
    if (max_len > longest)
        return "A segment of length " + std::to_string(max_len) + " does not fit twice in T = " + std::to_string(T) +
               " after BOS: the longest is (T-1)/2 = " + std::to_string(longest) + ".";
    return "";
}

void fill_shifted_batch(Rng& rng, int B, int T, int V, int min_len, int max_len, int* x, int* y, int* seg_len,
                        int* seg_start) {
    const std::string err = validate_induction_task(T, V, min_len, max_len);
    MHA_CHECK(err.empty(), "induction fill_shifted_batch: " + err);
    MHA_CHECK(B >= 1, "induction fill_shifted_batch: B must be positive");
    const auto n_lengths = static_cast<std::uint32_t>(max_len - min_len + 1);
    for (int b = 0; b < B; ++b) {
        int* x_b = x + static_cast<std::size_t>(b) * T;
        int* y_b = y + static_cast<std::size_t>(b) * T;
        const int L = min_len + static_cast<int>(rng.below(n_lengths));
        const int start = 1 + static_cast<int>(rng.below(static_cast<std::uint32_t>(T - 2 * L)));  // 1 .. T-2L
        seg_len[b] = L;
        seg_start[b] = start;
        x_b[0] = INDUCTION_BOS;
        for (int t = 1; t < T; ++t) x_b[t] = random_token(rng, V);
        for (int i = 0; i < L; ++i) x_b[start + L + i] = x_b[start + i];  // the repeat
        for (int t = 0; t + 1 < T; ++t) y_b[t] = x_b[t + 1];
        y_b[T - 1] = random_token(rng, V);
    }
}

void induction_probe(Rng& rng, int L, int V, int* x) {
    MHA_CHECK(L >= 1 && V >= 2, "induction_probe: needs L >= 1 and V >= 2");
    x[0] = INDUCTION_BOS;
    for (int i = 1; i <= L; ++i) {
        x[i] = random_token(rng, V);
        x[L + i] = x[i];
    }
}

std::vector<int> induction_probe(int L, int V, std::uint64_t seed) {
    MHA_CHECK(L >= 1 && V >= 2, "induction_probe: needs L >= 1 and V >= 2");
    std::vector<int> x(static_cast<std::size_t>(2 * L + 1));
    Rng rng(seed);
    induction_probe(rng, L, V, x.data());
    return x;
}

}  // namespace mha
