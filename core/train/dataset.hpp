// Training data for the character models: token ids split into a train part (the first 90% by default)
// and a validation part (the rest), random training windows, and fixed evaluation batches.
//
//   Dataset data;
//   std::string err = make_text_dataset(text, tok, T, data);   // "" or a sentence for the user
//   data.sample_batch(rng, B, T, x, y);                         // x, y (B,T)
//   EvalBatches eval = data.eval_batches(8, B, T, seed);         // the same windows for every run
//
// The split is by position, not by random windows, so validation text is never seen in training.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "prng.hpp"
#include "tokenizer.hpp"

namespace mha {

// Sizes beyond which a browser tab gets slow or runs out of memory.
struct DataLimits {
    static constexpr std::size_t max_text_bytes = 8u << 20;   // 8 MiB of UTF-8
    static constexpr std::size_t max_tokens = 8u << 20;       // a character is at least one byte
    static constexpr double default_val_fraction = 0.1;
};

// n_batches fixed batches: x (n,B,T) and y (n,B,T), batch i at offset i*B*T
struct EvalBatches {
    int n_batches = 0, B = 0, T = 0;
    std::vector<int> x;  // (n,B,T) inputs
    std::vector<int> y;  // (n,B,T) next tokens
    const int* x_batch(int i) const { return x.data() + static_cast<std::size_t>(i) * B * T; }
    const int* y_batch(int i) const { return y.data() + static_cast<std::size_t>(i) * B * T; }
};

struct Dataset {
    std::vector<int> train;  // (N_train) token ids, the first part of the text
    std::vector<int> val;    // (N_val) token ids, the last part
    int vocab_size = 0;      // V: every id is in [0, V)
    int context = 0;         // T the dataset was checked for: both parts hold at least T+1 tokens

    // x (B,T) random windows of train, y (B,T) the token after each: y[b][t] = train[s_b + t + 1].
    // Uses B draws of rng. T may be anything in 1..context.
    void sample_batch(Rng& rng, int B, int T, int* x, int* y) const;

    // n_batches batches of random windows of val, drawn from Rng(seed) alone: the same seed gives the same
    // batches, so validation curves of different runs (and of native and wasm) compare point for point.
    EvalBatches eval_batches(int n_batches, int B, int T, std::uint64_t seed) const;
};

// "" when the split of n_tokens (last val_fraction held out) leaves at least T+1 tokens in each part;
// otherwise a message that says how much text is needed. Also checks T >= 1, the size limit and the fraction.
std::string check_dataset_size(std::size_t n_tokens, int T, double val_fraction = DataLimits::default_val_fraction);

// Splits ids (N) into out.train (the first N - floor(N*val_fraction)) and out.val (the rest).
// Returns "" or a message for: empty text, too short for context T, more than DataLimits::max_tokens,
// an id outside [0, vocab_size), val_fraction outside [0.01, 0.5]. out is untouched on error.
std::string make_dataset(const std::vector<int>& ids, int vocab_size, int T, Dataset& out,
                         double val_fraction = DataLimits::default_val_fraction);

// The same from UTF-8 text: checks the byte size (DataLimits::max_text_bytes) before tokenizing, then
// encodes with tok (unknown characters become the unknown token; *unknown_count says how many).
std::string make_text_dataset(const std::string& utf8, const CharTokenizer& tok, int T, Dataset& out,
                              double val_fraction = DataLimits::default_val_fraction, int* unknown_count = nullptr);

// The "unigram baseline": mean cross-entropy in nats of val_ids under the unigram frequencies of train_ids
// with add-one smoothing, p(v) = (count_train(v) + 1) / (N_train + V). A model that ignores context
// entirely can reach this loss; a trained model must beat it. Returns 0 for an empty val_ids.
double unigram_baseline_loss(const std::vector<int>& train_ids, const std::vector<int>& val_ids, int vocab_size);

}  // namespace mha
