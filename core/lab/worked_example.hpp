// The page's worked example (the worked panel): one multi-head attention layer on a tiny input, every intermediate kept
// so the page can draw each matrix with its numbers. The lesson's case is T=3, D=4, H=2 (hs=2):
//   X = [[1,0,1,0],[0,1,0,1],[1,1,0,0]],  W_Q = W_K = W_V = W_O = I (head 1 reads channels 0-1, head 2 channels 2-3)
// Weights here are in the lesson's "x W" layout, (in, out) = (D, D): Q = X W_Q, and head h's slice W_Q^h is
// columns h·hs .. h·hs+hs-1. The attention itself is mha_forward / split_heads from attention.hpp, not a copy:
//   A and the output come from mha_forward; the concat is mha_forward with W_O = I; Q, K, V per head are
//   split_heads of X W; the raw scores are the kernels' Q^h K^hᵀ, shown before the scaling and the mask.
#pragma once
#include <string>
#include <vector>

namespace mha {

constexpr int kWorkedMaxT = 8, kWorkedMaxD = 8;

struct WorkedExampleInput {
    int T = 3, D = 4, H = 2;
    std::vector<double> x;                 // (T,D)
    std::vector<double> wq, wk, wv, wo;    // (D,D) each, (in,out): Q = X W_Q
};

// the lesson's numbers (see above)
WorkedExampleInput lesson_worked_example();

struct WorkedExample {
    int T = 0, D = 0, H = 0, hs = 0;
    std::vector<double> x;                       // (T,D)
    std::vector<double> wq_h, wk_h, wv_h;        // (H,D,hs) each: the per-head slices of W_Q, W_K, W_V
    std::vector<double> q, k, v;                 // (H,T,hs) each
    std::vector<double> scores;                  // (H,T,T) Q^h K^hᵀ
    std::vector<double> scaled;                  // (H,T,T) / √hs
    std::vector<double> masked;                  // (H,T,T) scaled with -inf above the diagonal
    std::vector<double> att;                     // (H,T,T) softmax of each masked row
    std::vector<double> heads;                   // (H,T,hs) A^h V^h
    std::vector<double> concat;                  // (T,D) the heads side by side
    std::vector<double> wo;                      // (D,D) (in,out)
    std::vector<double> out;                     // (T,D) concat W_O
};

// "" and fills out, or a sentence (sizes 1..8, H divides D, arrays of the right length, finite values)
std::string run_worked_example(const WorkedExampleInput& in, WorkedExample& out);

}  // namespace mha
