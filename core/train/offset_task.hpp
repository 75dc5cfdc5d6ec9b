// The multi-offset task: a target that needs the tokens at several fixed earlier offsets at once (the "Heads,
// compared" panel's second task). One attention head (one softmax per position) can learn it only by weighing the
// offsets unequally, so that the weighted mix of their tokens stays distinct for every tuple, and it learns that
// slowly; several heads split the offsets between them and learn it about ten times sooner (docs/experiments.md,
// "The offsets task"). Each sequence of length T over S symbols is
//
//   x[t]  uniform in 0..S-1, independent                                     t = 0 .. T-1
//   y[t]  = sum_k x[t - o_k] · S^(k-1)   (k = 1..K, in the order the offsets are given)    t >= max_k o_k
//   y[t]  = -1 ("no loss": the loss skips it, layers.hpp) for t < max_k o_k, where some x[t - o_k] does not exist
//
// "Offset o" means the token o positions back: offset 1 is the previous token x[t-1], offset 5 is x[t-5]. The
// target is the tuple (x[t-o_1], .., x[t-o_K]) written as one class in base S (the first offset is the lowest
// digit), so the model's vocabulary is S^K: the inputs use ids 0..S-1 only, the outputs all S^K classes. Nothing
// of the target is random given the inputs, so a model that reads every offset reaches zero loss; one that guesses
// stays at ln S^K (the targets are uniform over the classes).
#pragma once
#include <string>
#include <vector>

#include "prng.hpp"

namespace mha {

struct OffsetTaskConfig {
    int symbols = 3;                       // S
    std::vector<int> offsets = {1, 3, 5, 7};  // o_1..o_K, distinct, each >= 1
};

struct OffsetTaskLimits {
    static constexpr int max_offsets = 8;  // K
};

// S^K, the number of classes (the model's vocabulary); 0 when it exceeds limit (so no overflow for any K, S)
long long offset_task_classes(const OffsetTaskConfig& k, long long limit);

// the largest offset (the first position with a target), 0 for no offsets
int max_offset(const OffsetTaskConfig& k);

// "" when the task is well posed for context T, else the sentence: S >= 2, 1 <= K <= max_offsets, each offset a
// distinct whole number from 1 to T-1, S^K <= Limits::max_vocab.
std::string validate_offset_task(const OffsetTaskConfig& k, int T);

// x (B,T), y (B,T) as above. Throws mha::Error on a task validate_offset_task rejects. Deterministic given rng.
void fill_offset_batch(Rng& rng, const OffsetTaskConfig& k, int B, int T, int* x, int* y);

}  // namespace mha
