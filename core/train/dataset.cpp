#include "dataset.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "config.hpp"
#include "error.hpp"

namespace mha {

// ------------------------------------------------------------------------------------------ the split

namespace {
constexpr double MIN_VAL_FRACTION = 0.01, MAX_VAL_FRACTION = 0.5;

// validation tokens out of n: floor(n * f), exact in doubles for every n we accept (n < 2^53)
std::size_t val_count(std::size_t n, double val_fraction) {
    return static_cast<std::size_t>(std::floor(static_cast<double>(n) * val_fraction));
}
bool split_fits(std::size_t n, int T, double val_fraction) {
    const std::size_t n_val = val_count(n, val_fraction), need = static_cast<std::size_t>(T) + 1;
    return n_val >= need && n - n_val >= need;
}
// the smallest n whose split fits: near (T+1)/f, found by stepping so rounding cannot fool us
std::size_t min_tokens(int T, double val_fraction) {
    const double guess = std::ceil((T + 1) / val_fraction) - 2;
    std::size_t n = std::max<std::size_t>(2 * (static_cast<std::size_t>(T) + 1),
                                          guess > 0 ? static_cast<std::size_t>(guess) : 0);
    while (!split_fits(n, T, val_fraction)) ++n;
    return n;
}
std::string with_commas(std::size_t n) {
    std::string s = std::to_string(n);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
    return s;
}
std::string percent(double f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g%%", f * 100.0);
    return buf;
}
}  // namespace

std::string check_dataset_size(std::size_t n_tokens, int T, double val_fraction) {
    if (!(val_fraction >= MIN_VAL_FRACTION && val_fraction <= MAX_VAL_FRACTION))
        return "The validation fraction must be between " + percent(MIN_VAL_FRACTION) + " and " +
               percent(MAX_VAL_FRACTION) + " of the text.";
    if (T < 1 || T > Limits::max_seq_len)
        return "The context length T must be a whole number from 1 to " + std::to_string(Limits::max_seq_len) +
               ", not " + std::to_string(T) + ".";
    if (n_tokens == 0) return "The text is empty: paste or load some text to train on.";
    if (n_tokens > DataLimits::max_tokens)
        return "The text has " + with_commas(n_tokens) + " characters; at most " +
               with_commas(DataLimits::max_tokens) + " (8 MiB) are supported. Use a shorter text.";
    if (!split_fits(n_tokens, T, val_fraction))
        return "The text has " + with_commas(n_tokens) + " characters, but a context of T = " + std::to_string(T) +
               " needs at least " + with_commas(min_tokens(T, val_fraction)) +
               ": the training part and the validation part (the last " + percent(val_fraction) +
               ") each need T+1 = " + std::to_string(T + 1) + " characters. Use a longer text or a shorter context.";
    return "";
}

std::string make_dataset(const std::vector<int>& ids, int vocab_size, int T, Dataset& out, double val_fraction) {
    if (vocab_size < 1 || vocab_size > Limits::max_vocab)
        return "The vocabulary size must be a whole number from 1 to " + std::to_string(Limits::max_vocab) + ", not " +
               std::to_string(vocab_size) + ".";
    std::string err = check_dataset_size(ids.size(), T, val_fraction);
    if (!err.empty()) return err;
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= vocab_size)
            return "Token " + std::to_string(i) + " has id " + std::to_string(ids[i]) +
                   ", outside the vocabulary 0 to " + std::to_string(vocab_size - 1) + ".";
    const std::size_t n_val = val_count(ids.size(), val_fraction);
    const auto cut = ids.begin() + static_cast<std::ptrdiff_t>(ids.size() - n_val);
    out.train.assign(ids.begin(), cut);
    out.val.assign(cut, ids.end());
    out.vocab_size = vocab_size;
    out.context = T;
    return "";
}

std::string make_text_dataset(const std::string& utf8, const CharTokenizer& tok, int T, Dataset& out,
                              double val_fraction, int* unknown_count) {
    // check the bytes first: a huge paste is refused before we spend time and memory tokenizing it
    if (utf8.size() > DataLimits::max_text_bytes) {
        char mib[32];
        std::snprintf(mib, sizeof mib, "%.1f", static_cast<double>(utf8.size()) / (1 << 20));
        return "The text is " + std::string(mib) + " MiB; at most 8 MiB is supported. Use a shorter text.";
    }
    if (utf8.empty()) return "The text is empty: paste or load some text to train on.";
    const std::vector<int> ids = tok.encode(utf8, unknown_count);
    return make_dataset(ids, tok.vocab_size(), T, out, val_fraction);
}

// ------------------------------------------------------------------------------------------ batches

namespace {
// x (B,T), y (B,T): B windows of part starting at uniformly random positions s in [0, N - T)
void fill_windows(const std::vector<int>& part, Rng& rng, int B, int T, int* x, int* y) {
    const std::uint32_t n_starts = static_cast<std::uint32_t>(part.size() - static_cast<std::size_t>(T));
    for (int b = 0; b < B; ++b) {
        const int* src = part.data() + rng.below(n_starts);
        int* x_b = x + static_cast<std::size_t>(b) * T;
        int* y_b = y + static_cast<std::size_t>(b) * T;
        for (int t = 0; t < T; ++t) {
            x_b[t] = src[t];
            y_b[t] = src[t + 1];  // the next token: the last window ends at most at part[N-1]
        }
    }
}
}  // namespace

void Dataset::sample_batch(Rng& rng, int B, int T, int* x, int* y) const {
    MHA_CHECK(B >= 1 && T >= 1, "sample_batch: B and T must be positive");
    MHA_CHECK(train.size() >= static_cast<std::size_t>(T) + 1, "sample_batch: T is longer than the training text");
    fill_windows(train, rng, B, T, x, y);
}

EvalBatches Dataset::eval_batches(int n_batches, int B, int T, std::uint64_t seed) const {
    MHA_CHECK(n_batches >= 1 && B >= 1 && T >= 1, "eval_batches: sizes must be positive");
    MHA_CHECK(val.size() >= static_cast<std::size_t>(T) + 1, "eval_batches: T is longer than the validation text");
    EvalBatches e;
    e.n_batches = n_batches;
    e.B = B;
    e.T = T;
    const std::size_t per_batch = static_cast<std::size_t>(B) * T;
    e.x.resize(per_batch * n_batches);
    e.y.resize(per_batch * n_batches);
    Rng rng(seed);  // its own generator: evaluation never disturbs the training stream
    for (int i = 0; i < n_batches; ++i)
        fill_windows(val, rng, B, T, e.x.data() + i * per_batch, e.y.data() + i * per_batch);
    return e;
}

// ------------------------------------------------------------------------------------------ baseline

double unigram_baseline_loss(const std::vector<int>& train_ids, const std::vector<int>& val_ids, int vocab_size) {
    MHA_CHECK(vocab_size >= 1, "unigram_baseline_loss: vocab_size must be positive");
    if (val_ids.empty()) return 0.0;
    std::vector<std::int64_t> train_count(vocab_size, 0), val_count_v(vocab_size, 0);
    for (int id : train_ids) {
        MHA_CHECK(id >= 0 && id < vocab_size, "unigram_baseline_loss: train id outside the vocabulary");
        ++train_count[id];
    }
    for (int id : val_ids) {
        MHA_CHECK(id >= 0 && id < vocab_size, "unigram_baseline_loss: validation id outside the vocabulary");
        ++val_count_v[id];
    }
    // -mean log p(val) = -sum_v count_val(v) * log p(v) / N_val; det_log so native and wasm print the same
    const double denom = static_cast<double>(train_ids.size()) + vocab_size;
    double nll = 0.0;
    for (int v = 0; v < vocab_size; ++v)
        if (val_count_v[v] > 0) nll -= static_cast<double>(val_count_v[v]) * det_log((train_count[v] + 1) / denom);
    return nll / static_cast<double>(val_ids.size());
}

}  // namespace mha
