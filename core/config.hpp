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

    int kv_heads() const { return n_kv_heads == 0 ? n_heads : n_kv_heads; }
    int head_dim() const { return d_model / n_heads; }
};

// "" when the config is usable, otherwise a sentence for the user ("D = 10 is not divisible by H = 4 ...").
std::string validate(const ModelConfig& c);

// Only the attention sizes, for the reshape and attention demos: D and H.
std::string validate_heads(int d_model, int n_heads);

// Q, K, V, O each (D,D) weight + (D) bias: 4D² + 4D, whatever H is.
std::int64_t attention_param_count(int d_model);

}  // namespace mha
