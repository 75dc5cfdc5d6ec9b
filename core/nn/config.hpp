// Model configuration, its validation, and parameter arithmetic.
// Glossary (PyTorch order everywhere): B batch, T time (sequence), D = C channels (d_model),
// H = NH heads, hs = d_h = D/H head size, V vocabulary, L layers.
#pragma once
#include <cstdint>
#include <string>

namespace mha {

// How the (B,T,D) projections are cut into heads: the lesson's canonical view(B,T,H,hs) gives head h
// the channels h*hs .. h*hs+hs-1; the swapped view(B,T,hs,H) gives head h the channels h, h+H, h+2H, ...
enum class HeadOrder { canonical, swapped };

// The attention variants of DESIGN.md §4: the canonical layer and the lesson's pitfalls, each a real computation
// with forward and backward. What each does (and what the tests prove about it):
//   canonical           view(B,T,H,hs).transpose(1,2), scores / √hs, causal softmax, mix, transpose back, W_O
//   swapped_order       view(B,T,hs,H) to split and to merge: the canonical model with permuted weights
//   no_transpose_split  the (B,T,D) projections read as (B,H,T,hs) without the transpose: leaks the future
//   no_transpose_merge  the (B,H,T,hs) head outputs read as (B,T,D) without transposing back: leaks the future
//   no_transpose_both   both: no leak, but attention only within blocks of T/H positions
//   scale_sqrt_d        scores / √D instead of / √hs: logits √H too small, flatter attention
//   no_wo               no output projection: head h writes channels h*hs.. of the residual stream; D² + D fewer
//   per_head_proj       H separate (hs,D) projections per role: the same function and count, H small matmuls
//   split_input         the input cut into H slices first, then (hs,hs) projections: 3D²/H + D² weights
//   tied_heads          one (hs,D) Q/K/V projection shared by all heads: one head of size hs, repeated
enum class AttentionVariant {
    canonical,
    swapped_order,
    no_transpose_split,
    no_transpose_merge,
    no_transpose_both,
    scale_sqrt_d,
    no_wo,
    per_head_proj,
    split_input,
    tied_heads,
};
constexpr int kNumVariants = 10;

// "canonical", "swapped_order", ... (the names used in config JSON, checkpoints, the page and the CLI)
const char* variant_name(AttentionVariant v);
// false if name is not one of them
bool parse_variant(const std::string& name, AttentionVariant& out);

// Sizes the page and the trainer accept; beyond them memory or time gets out of hand in a browser tab.
struct Limits {
    static constexpr int max_d_model = 1024;
    static constexpr int max_heads = 64;
    static constexpr int max_layers = 16;
    static constexpr int max_seq_len = 1024;
    static constexpr int max_vocab = 4096;
};

struct ModelConfig {
    int vocab_size = 65;   // V
    int d_model = 64;      // D
    int n_heads = 4;       // H
    int n_kv_heads = 0;    // H_kv; 0 means H (plain multi-head), 1 is MQA, anything between is GQA
    int n_layers = 2;      // L
    int max_seq_len = 64;  // T at most
    bool mlp = true;       // false: attention-only blocks (induction experiments)
    AttentionVariant variant = AttentionVariant::canonical;

    int kv_heads() const { return n_kv_heads == 0 ? n_heads : n_kv_heads; }
    int head_dim() const { return d_model / n_heads; }
};

// the same model: every size equal (H_kv compared as kv_heads(), so 0 and H are the same), the same variant
bool same_model(const ModelConfig& a, const ModelConfig& b);

// "" when the config is usable, otherwise a sentence for the user ("D = 10 is not divisible by H = 4 ...").
std::string validate(const ModelConfig& c);

// Only the attention sizes, for the reshape and attention demos: D and H.
std::string validate_heads(int d_model, int n_heads);

// Q, K, V, O each (D,D) weight + (D) bias: 4D² + 4D, whatever H is.
std::int64_t attention_param_count(int d_model);

}  // namespace mha
