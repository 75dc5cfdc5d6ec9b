// Computations behind the page's reshape and attention panels: which channels land in which head (reshape), and a
// randomly initialised attention layer run over a typed sentence (attention).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "config.hpp"

namespace mha {

// For each of the D channels of one position: the head that receives it and its lane inside that head,
// under view(B,T,H,hs) (canonical) or view(B,T,hs,H) (swapped). D must divide by H (validate_heads).
struct HeadLayout {
    int d_model = 0, n_heads = 0, head_size = 0;
    std::vector<int> head;  // (D) head of channel c
    std::vector<int> lane;  // (D) index of channel c inside its head, 0..hs-1
};
HeadLayout head_layout(int d_model, int n_heads, HeadOrder order);

// "canonical" or "swapped": "" and out set, or the sentence
std::string parse_head_order(const std::string& name, HeadOrder& out);

// Splits text into word tokens: runs of letters/digits (and any non-ASCII UTF-8 bytes, so accented words stay
// whole) and single punctuation marks. At most max_tokens tokens; the rest is dropped.
std::vector<std::string> split_words(const std::string& text, int max_tokens);

// One attention layer with random weights (seeded) over the words of a sentence. Each word's embedding is a
// seeded random vector (the same word gets the same vector) plus a random vector for its position.
struct AttentionDemo {
    std::vector<std::string> tokens;  // (T)
    xt::xtensor<float, 3> att;        // (H,T,T)
};
AttentionDemo attention_demo(const std::string& text, int d_model, int n_heads, std::uint64_t seed,
                             HeadOrder order = HeadOrder::canonical);

constexpr int kDemoMaxTokens = 48;

}  // namespace mha
