// The repeated-random-segment task that grows induction heads (Olsson et al. 2022, "In-context learning
// and induction heads", https://transformer-circuits.pub/2022/in-context-learning-and-induction-heads/).
// Each sequence of length T over V symbols (token 0 is BOS) is
//
//   position:  0     1 .. P       P+1 .. P+L     P+L+1 .. P+2L    P+2L+1 .. T-1
//   x:         BOS   filler       r_1 .. r_L     r_1 .. r_L       filler
//
// with L drawn per sequence from [min_len, max_len], the offset P from 0 .. T-1-2L, and every r_i and filler
// token uniform in 1..V-1.
// y is x shifted by one: y[t] = x[t+1], and the last target y[T-1] is a fresh random token. Nothing but
// the repeat is predictable, so the loss on the repeat's targets falls only once a model can look back to
// where the current token occurred before and copy what came next: a previous-token head in layer 0
// plus an induction head in layer 1.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "prng.hpp"

namespace mha {

constexpr int INDUCTION_BOS = 0;  // token 0 starts every sequence and never appears elsewhere

// the task's settings besides the context T: V symbols with token 0 as BOS, a segment of seg_min..seg_max tokens
// repeated once at a random offset, fresh tokens around it
struct InductionTaskConfig {
    int vocab = 64;    // V
    int seg_min = 8;   // shortest repeated segment
    int seg_max = 15;  // longest; 2·seg_max + 1 <= T
};

// "" when the task is well posed, else a message: 3 <= T <= max_seq_len, 2 <= V <= max_vocab,
// 1 <= min_len <= max_len <= (T-1)/2 (the two copies and BOS must fit in T).
std::string validate_induction_task(int T, int V, int min_len, int max_len);

// x (B,T), y (B,T), seg_len (B) the L of each sequence, seg_start (B) = 1 + P, the position of r_1. With the
// segment always right after BOS (P = 0) a model can locate the earlier copy by position alone (2-layer models
// trained that way did exactly that and never formed induction heads: docs/experiments.md); a random offset leaves
// only the content to match.
// Throws mha::Error on arguments that validate_induction_task rejects (check them there first for a message).
// Deterministic given rng.
void fill_shifted_batch(Rng& rng, int B, int T, int V, int min_len, int max_len, int* x, int* y, int* seg_len,
                        int* seg_start);

// ------------------------------------------------------------------------------------------ positions
// For a sequence with segment length L right after BOS, as in the probes below (in a training sequence, count t
// from seg_start - 1). "t" indexes x (and y: y[t] is the target predicted at t).

// x[t] is r_{t} of the first copy: 1 <= t <= L
inline bool in_first_copy(int t, int L) { return t >= 1 && t <= L; }

// x[t] is r_{t-L} of the repeated copy: L+1 <= t <= 2L
inline bool in_repeat(int t, int L) { return t > L && t <= 2 * L; }

// y[t] = x[t+1] is determined by the first copy (it is x[t-L+1]): L+1 <= t <= 2L-1. These L-1 targets
// are where the loss "on the repeated half" is measured; y[L] (the repeat's first token) and y[2L]
// (the first filler) cannot be predicted.
inline bool repeat_target(int t, int L) { return t > L && t < 2 * L; }

// where an induction head at query t in the repeat attends: the position just after the earlier
// occurrence of x[t], t - L + 1 (the induction score averages A[t, t-L+1] over the repeat)
inline int induction_source(int t, int L) { return t - L + 1; }

// ------------------------------------------------------------------------------------------ probes

// x (2L+1): [BOS, r_1..r_L, r_1..r_L] with r_i uniform in 1..V-1 drawn from rng; for measuring the
// previous-token and induction scores of a trained model. Requires 1 <= L and 2 <= V.
void induction_probe(Rng& rng, int L, int V, int* x);

// the same from Rng(seed): a fixed probe, identical in every run and on every target
std::vector<int> induction_probe(int L, int V, std::uint64_t seed);

}  // namespace mha
