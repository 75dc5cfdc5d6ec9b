#include "config.hpp"

#include <algorithm>
#include <cstdlib>

namespace mha {

namespace {
// in the user's terms: "H (number of heads) must be a whole number from 1 to 64, not -3."
std::string range_error(const char* what, int value, int lo, int hi) {
    return std::string(what) + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
           ", not " + std::to_string(value) + ".";
}
// "1, 2, 4"
std::string join(const std::vector<int>& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
    return out;
}
// the H that divide D closest to want: one, or the two on either side when they are equally near
std::vector<int> nearest_head_counts(const std::vector<int>& counts, int want) {
    int best = std::abs(counts.front() - want);
    for (int h : counts) best = std::min(best, std::abs(h - want));
    std::vector<int> out;
    for (int h : counts)
        if (std::abs(h - want) == best) out.push_back(h);
    return out;
}
}  // namespace

std::string validate_heads(int d_model, int n_heads) {
    if (d_model < 1 || d_model > Limits::max_d_model)
        return range_error("D (embedding size)", d_model, 1, Limits::max_d_model);
    if (n_heads < 1 || n_heads > Limits::max_heads)
        return range_error("H (number of heads)", n_heads, 1, Limits::max_heads);
    if (d_model % n_heads != 0) {
        const std::vector<int> counts = head_counts_dividing(d_model), near = nearest_head_counts(counts, n_heads);
        const std::string nearest = near.size() == 1
            ? "The nearest H that divides D is " + std::to_string(near[0])
            : "The nearest H that divide D are " + std::to_string(near[0]) + " and " + std::to_string(near[1]);
        return "D = " + std::to_string(d_model) + " is not divisible by H = " + std::to_string(n_heads) +
               ": each head needs d_h = D / H whole channels. " + nearest + " (every H that does, up to " +
               std::to_string(Limits::max_heads) + ": " + join(counts) + ").";
    }
    return "";
}

std::vector<int> head_counts_dividing(int d_model) {
    std::vector<int> out;
    for (int h = 1; h <= Limits::max_heads && h <= d_model; ++h)
        if (d_model % h == 0) out.push_back(h);
    return out;
}

std::string validate(const ModelConfig& c) {
    if (c.vocab_size < 2 || c.vocab_size > Limits::max_vocab)
        return range_error("The vocabulary size", c.vocab_size, 2, Limits::max_vocab);
    if (c.n_layers < 1 || c.n_layers > Limits::max_layers)
        return range_error("The number of layers", c.n_layers, 1, Limits::max_layers);
    if (c.max_seq_len < 1 || c.max_seq_len > Limits::max_seq_len)
        return range_error("The context length T", c.max_seq_len, 1, Limits::max_seq_len);
    std::string heads = validate_heads(c.d_model, c.n_heads);
    if (!heads.empty()) return heads;
    int kv = c.kv_heads();
    if (kv < 1 || kv > c.n_heads || c.n_heads % kv != 0)
        return "H = " + std::to_string(c.n_heads) + " is not divisible by the number of key/value heads H_kv = " +
               std::to_string(kv) + ": every group of query heads must share one key/value head.";
    if (!c.traits().kv_groups && kv != c.n_heads)
        return std::string("the attention variant '") + variant_name(c.variant) +
               "' is defined for plain multi-head attention: set H_kv = H.";
    return "";
}

namespace {
const char* const kVariantNames[kNumVariants] = {
    "canonical",         "swapped_order", "no_transpose_split", "no_transpose_merge", "no_transpose_both",
    "scale_sqrt_d",      "no_wo",         "per_head_proj",      "split_input",        "tied_heads",
};
}  // namespace

const char* variant_name(AttentionVariant v) { return kVariantNames[static_cast<int>(v)]; }

bool parse_variant(const std::string& name, AttentionVariant& out) {
    for (int i = 0; i < kNumVariants; ++i)
        if (name == kVariantNames[i]) {
            out = static_cast<AttentionVariant>(i);
            return true;
        }
    return false;
}

std::int64_t attention_param_count(int d_model) {
    std::int64_t d = d_model;
    return 4 * d * d + 4 * d;
}

bool same_model(const ModelConfig& a, const ModelConfig& b) {
    return a.vocab_size == b.vocab_size && a.d_model == b.d_model && a.n_heads == b.n_heads &&
           a.kv_heads() == b.kv_heads() && a.n_layers == b.n_layers && a.max_seq_len == b.max_seq_len &&
           a.mlp == b.mlp && a.variant == b.variant;
}

}  // namespace mha
