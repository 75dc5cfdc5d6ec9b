// Scores of one attention head, read off its weights A (T,T) (row i = query, column j = key, causal: A[i,j] = 0
// for j > i, every row sums to 1), and a short automatic label. These are the measurements of Olsson et al.
// (2022, "In-context learning and induction heads") in their simplest form:
//   previous-token score   mean_{i>=1} A[i, i-1]            how much a position looks one step back
//   first-token score      mean_{i>=1} A[i, 0]              how much it parks its attention on position 0
//   mean row entropy       mean_{i>=0} -Σ_j A[i,j] ln A[i,j] in nats; a uniform causal row i has ln(i+1)
//   induction score        on a sequence holding r_1..r_L twice in a row, the first copy from position s
//                          (s = 1 in the probe [BOS, r, r]): mean over the second copy i = s+L .. s+2L-1
//                          of A[i, i-L+1], the position just after the earlier occurrence
//   mean attention distance mean_{i>=1} Σ_j A[i,j]·(i−j)    how far back a position looks, in positions
//   attention by offset    profile[k] = mean_{i>=k} A[i, i−k] for k = 0..K−1: the weight on the key k steps back
// Row 0 is left out of the first two scores and of the distance: its only key is itself, so it says nothing about
// the head (and would pull every distance towards 0).
#pragma once
#include <string>

namespace mha {

// The label thresholds, stated on the page next to the labels.
struct LabelThresholds {
    static constexpr double induction = 0.4;      // induction score at least this: "induction head"
    static constexpr double previous = 0.5;       // previous-token score at least this: "previous-token head"
    static constexpr double first = 0.5;          // first-token score at least this: "first-token head"
    static constexpr double broad = 0.9;          // entropy at least this fraction of the uniform maximum: "broad"
};

// previous-token score of A (T,T); 0 when T < 2
double previous_token_score(const float* att, int T);
// first-token score of A (T,T); 0 when T < 2
double first_token_score(const float* att, int T);
// mean row entropy of A (T,T) in nats (terms with A = 0 count 0)
double mean_row_entropy(const float* att, int T);
// the largest possible mean row entropy under the causal mask: mean_{i=0}^{T-1} ln(i+1) (every row uniform)
double uniform_row_entropy(int T);
// induction score of A (T,T) on a sequence whose segment of length L starts at `start` (1 in the probe
// [BOS, r, r]); needs L >= 2, start >= 1 and start + 2L <= T (throws mha::Error otherwise)
double induction_score(const float* att, int T, int L, int start = 1);

// mean attention distance of A (T,T) in positions, over rows i >= 1; 0 when T < 2
double mean_attention_distance(const float* att, int T);
// Offsets in an attention-by-offset profile: K = min(T, kMaxProfileOffsets). 16 covers the previous token (1), the
// offsets of the synthetic offsets task (up to 7) with room, and local patterns of text, while every bar still
// averages many rows (at T = 64, offset 15 has 49); how far beyond that a head looks shows in its mean distance.
constexpr int kMaxProfileOffsets = 16;
inline int profile_offsets(int T) { return T < kMaxProfileOffsets ? (T > 0 ? T : 0) : kMaxProfileOffsets; }
// attention-by-offset profile of A (T,T): out (K) with out[k] = mean over rows i >= k of A[i, i−k], K <= T
// (throws mha::Error otherwise). out[0] counts row 0, which always puts 1 on itself; out[1] is the previous-token
// score.
void offset_profile(const float* att, int T, int K, double* out);

struct HeadScores {
    double previous = 0;      // on the user's text
    double first = 0;         // on the user's text
    double entropy = 0;       // on the user's text, nats
    double max_entropy = 0;   // uniform_row_entropy(T) of the user's text
    double induction = 0;     // on the probe
};

// The label, first match wins: "induction head", "previous-token head", "first-token head", "broad", "mixed".
std::string head_label(const HeadScores& s);

}  // namespace mha
