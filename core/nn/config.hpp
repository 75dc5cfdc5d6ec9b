// Model configuration, its validation, and parameter arithmetic.
// Glossary (PyTorch order everywhere): B batch, T time (sequence), D = C channels (d_model),
// H = NH heads, hs = d_h = D/H head size, V vocabulary, L layers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

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

// What a variant changes, trait by trait: the model, the parameter table and tie_heads read these and never
// compare variants. The canonical layer is the default of every field.
struct VariantTraits {
    // H separate projections per role, tensors attn.q.h.weight (hs,K): stacked they are the fused (D,K) weight
    bool per_head_proj = false;
    // the input (B,T,D) is cut into H slices (H,B*T,hs) before the per-head projections, so K = hs, not D:
    // head h never sees the other channels of x (implies per_head_proj)
    bool split_input = false;
    // one (hs,D) projection per role, its (B,T,hs) output copied to every head: H identical heads
    bool shared_qkv = false;
    // split without transpose(1,2): the (B,T,D) projection read as (B,H,T,hs); positions mix across heads
    bool flat_split = false;
    // merge without transpose(1,2): the (B,H,T,hs) head outputs read as (B,T,D)
    bool flat_merge = false;
    // an output projection W_O (D,D) + b_O (D); without it the merged heads go straight to the residual stream
    bool has_wo = true;
    // how split and merge cut D into heads: view(B,T,H,hs) or the swapped view(B,T,hs,H)
    HeadOrder order = HeadOrder::canonical;
    // scores / sqrt(D) instead of / sqrt(hs): logits sqrt(H) times too small
    bool scale_by_d_model = false;
    // H_kv < H (GQA, MQA) allowed: the variants are lessons about plain multi-head attention, so only canonical
    bool kv_groups = true;
};

// the one place that says what each variant is (the list above, as traits)
constexpr VariantTraits variant_traits(AttentionVariant v) {
    VariantTraits t;
    t.kv_groups = v == AttentionVariant::canonical;
    switch (v) {
        case AttentionVariant::canonical: break;
        case AttentionVariant::swapped_order: t.order = HeadOrder::swapped; break;
        case AttentionVariant::no_transpose_split: t.flat_split = true; break;
        case AttentionVariant::no_transpose_merge: t.flat_merge = true; break;
        case AttentionVariant::no_transpose_both: t.flat_split = t.flat_merge = true; break;
        case AttentionVariant::scale_sqrt_d: t.scale_by_d_model = true; break;
        case AttentionVariant::no_wo: t.has_wo = false; break;
        case AttentionVariant::per_head_proj: t.per_head_proj = true; break;
        case AttentionVariant::split_input: t.per_head_proj = t.split_input = true; break;
        case AttentionVariant::tied_heads: t.shared_qkv = true; break;
    }
    return t;
}

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
    VariantTraits traits() const { return variant_traits(variant); }
};

// the same model: every size equal (H_kv compared as kv_heads(), so 0 and H are the same), the same variant
bool same_model(const ModelConfig& a, const ModelConfig& b);

// "" when the config is usable, otherwise a sentence for the user ("D = 10 is not divisible by H = 4 ...").
std::string validate(const ModelConfig& c);

// Only the attention sizes, for the reshape and attention demos: D and H. When H does not divide D, the sentence
// names the nearest H that do (both, when two are equally near) and every H up to Limits::max_heads that does.
std::string validate_heads(int d_model, int n_heads);

// the H from 1 to Limits::max_heads that divide D, ascending (D >= 1)
std::vector<int> head_counts_dividing(int d_model);

// Q, K, V, O each (D,D) weight + (D) bias: 4D² + 4D, whatever H is.
std::int64_t attention_param_count(int d_model);

}  // namespace mha
