#include "demo.hpp"

#include <cmath>

#include "attention.hpp"
#include "error.hpp"
#include "prng.hpp"

#include <xtensor/xview.hpp>

namespace mha {

HeadLayout head_layout(int d_model, int n_heads, HeadOrder order) {
    const std::string err = validate_heads(d_model, n_heads);
    throw_if_invalid(err);
    HeadLayout l;
    l.d_model = d_model;
    l.n_heads = n_heads;
    l.head_size = d_model / n_heads;
    l.head.assign(d_model, -1);
    l.lane.assign(d_model, -1);
    for (int h = 0; h < n_heads; ++h)
        for (int i = 0; i < l.head_size; ++i) {
            const int c = head_channel(h, i, n_heads, l.head_size, order);
            l.head[c] = h;
            l.lane[c] = i;
        }
    return l;
}

namespace {
bool is_word_byte(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '\'' || c >= 0x80;
}
bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// FNV-1a: a word's embedding seed, the same on every target
std::uint64_t fnv1a(const std::string& s) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
    return h;
}
}  // namespace

std::vector<std::string> split_words(const std::string& text, int max_tokens) {
    std::vector<std::string> tokens;
    std::size_t i = 0;
    while (i < text.size() && static_cast<int>(tokens.size()) < max_tokens) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (is_space(c)) {
            ++i;
        } else if (is_word_byte(c)) {
            std::size_t j = i;
            while (j < text.size() && is_word_byte(static_cast<unsigned char>(text[j]))) ++j;
            tokens.push_back(text.substr(i, j - i));
            i = j;
        } else {
            tokens.push_back(text.substr(i, 1));
            ++i;
        }
    }
    return tokens;
}

AttentionDemo attention_demo(const std::string& text, int d_model, int n_heads, std::uint64_t seed,
                             HeadOrder order) {
    const std::string err = validate_heads(d_model, n_heads);
    throw_if_invalid(err);
    AttentionDemo demo;
    demo.tokens = split_words(text, kDemoMaxTokens);
    if (demo.tokens.empty()) throw Error("Type at least one word.");
    const int T = static_cast<int>(demo.tokens.size()), D = d_model;

    // x (1,T,D) = word vector + position vector, each N(0, 1/2) per channel so x has unit variance
    xt::xtensor<float, 3> x = xt::zeros<float>({1, T, D});
    const double half = std::sqrt(0.5);
    for (int t = 0; t < T; ++t) {
        Rng word_rng(seed ^ fnv1a(demo.tokens[t]));
        Rng pos_rng(seed * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(t) + 1);
        for (int c = 0; c < D; ++c) x(0, t, c) = static_cast<float>((word_rng.normal() + pos_rng.normal()) * half);
    }
    // weights N(0, 1/D): projections keep unit variance, so scores/√hs are O(1) and the patterns are visible
    Rng weight_rng(seed);
    MhaWeights<float> w = mha_random_weights<float>(D, weight_rng, 1.0 / std::sqrt(double(D)));
    MhaResult<float> r = mha_forward(x, w, n_heads, order);
    demo.att = xt::view(r.att, 0, xt::all(), xt::all(), xt::all());
    return demo;
}

std::string parse_head_order(const std::string& name, HeadOrder& out) {
    if (name == "canonical") out = HeadOrder::canonical;
    else if (name == "swapped") out = HeadOrder::swapped;
    else return "The head order must be canonical or swapped, not '" + name + "'.";
    return "";
}

}  // namespace mha
