// Multi-head, grouped-query and multi-query attention (MHA / GQA / MQA) by the numbers: the parameters of one
// attention layer and the bytes of the key/value cache a decoder keeps while generating.
//   H query heads of size hs; H_kv key/value heads (H_kv = H: MHA, 1 < H_kv < H: GQA, H_kv = 1: MQA)
//   q (D, H·hs)   k (D, H_kv·hs)   v (D, H_kv·hs)   o (H·hs, D)          weights of one layer
//   biases (if any): H·hs + 2·H_kv·hs + D
//   KV cache = 2 (K and V) · layers · H_kv · hs · context · batch · bytes per value
// Worked example (the page shows it): Llama-2-70B, 80 layers, 64 query heads, 8 KV heads, hs = 128,
// D = 8192, 4096 context, batch 8, fp16 — 80 GiB of cache as MHA, 10 GiB as GQA-8, 1.25 GiB as MQA.
#pragma once
#include <cstdint>
#include <string>

namespace mha {

struct AttentionShape {
    std::int64_t layers = 80;        // L
    std::int64_t d_model = 8192;     // D
    std::int64_t n_heads = 64;       // H, query heads
    std::int64_t n_kv_heads = 8;     // H_kv
    std::int64_t head_dim = 128;     // hs
    bool bias = false;               // projections with biases
    std::int64_t context = 4096;     // tokens kept in the cache per sequence
    std::int64_t batch = 8;          // sequences decoded together
    std::int64_t bytes_per_value = 2;  // fp16/bf16 2, fp32 4, int8 1
};

// "" or a sentence: every size >= 1, H divisible by H_kv, and below limits that keep the arithmetic exact
// (every result fits in 2^53, so JavaScript numbers hold it exactly)
std::string validate(const AttentionShape& s);

struct AttentionCount {
    std::int64_t q = 0, k = 0, v = 0, o = 0, bias = 0;  // parameters of one layer, by projection
    std::int64_t per_layer = 0;                          // their sum
    std::int64_t all_layers = 0;                         // per_layer · layers
    std::int64_t kv_cache_bytes = 0;                     // 2 · layers · H_kv · hs · context · batch · bytes
};

// the counts for s as given (its n_kv_heads); throws mha::Error if validate(s) is not ""
AttentionCount count_attention(const AttentionShape& s);

// the same shape as MHA (H_kv = H), as given (usually GQA), and as MQA (H_kv = 1)
struct KvComparison {
    AttentionCount mha, gqa, mqa;
    double gqa_cache_fraction = 0;   // gqa.kv_cache_bytes / mha.kv_cache_bytes = H_kv / H
    double mqa_cache_fraction = 0;   // 1 / H
};
KvComparison compare_kv(const AttentionShape& s);

}  // namespace mha
