#include "kv_cache.hpp"

#include "error.hpp"

namespace mha {

namespace {
// each input below its own cap: the largest product, the cache bytes, stays under 2^53
constexpr std::int64_t kMaxLayers = 1000, kMaxWidth = 1 << 20, kMaxHeads = 4096, kMaxHeadDim = 4096,
                       kMaxContext = 1 << 21, kMaxBatch = 4096, kMaxBytes = 8;

std::string check(const char* name, std::int64_t v, std::int64_t max) {
    if (v < 1 || v > max) return std::string(name) + " must be a whole number from 1 to " + std::to_string(max) + ".";
    return "";
}
}  // namespace

std::string validate(const AttentionShape& s) {
    for (const std::string& e : {check("layers", s.layers, kMaxLayers), check("d_model", s.d_model, kMaxWidth),
                                 check("query heads", s.n_heads, kMaxHeads), check("KV heads", s.n_kv_heads, kMaxHeads),
                                 check("head size", s.head_dim, kMaxHeadDim), check("context", s.context, kMaxContext),
                                 check("batch", s.batch, kMaxBatch), check("bytes per value", s.bytes_per_value, kMaxBytes)})
        if (!e.empty()) return e;
    if (s.n_kv_heads > s.n_heads)
        return "KV heads (" + std::to_string(s.n_kv_heads) + ") cannot be more than query heads (" +
               std::to_string(s.n_heads) + ").";
    if (s.n_heads % s.n_kv_heads != 0)
        return "query heads (" + std::to_string(s.n_heads) + ") must be a multiple of KV heads (" +
               std::to_string(s.n_kv_heads) + "): each KV head serves the same number of query heads.";
    // 2·L·Hkv·hs·ctx·batch·bytes < 2^53, checked in long double to avoid overflow while checking
    const long double bytes = 2.0L * s.layers * s.n_heads * s.head_dim * s.context * s.batch * s.bytes_per_value;
    const long double params = 4.0L * s.layers * s.d_model * s.n_heads * s.head_dim;
    if (bytes > 9007199254740992.0L || params > 9007199254740992.0L)
        return "these sizes are too large to count exactly; use smaller ones.";
    return "";
}

AttentionCount count_attention(const AttentionShape& s) {
    throw_if_invalid(validate(s));
    AttentionCount c;
    const std::int64_t q_width = s.n_heads * s.head_dim, kv_width = s.n_kv_heads * s.head_dim;
    c.q = s.d_model * q_width;
    c.k = s.d_model * kv_width;
    c.v = s.d_model * kv_width;
    c.o = q_width * s.d_model;
    c.bias = s.bias ? q_width + 2 * kv_width + s.d_model : 0;
    c.per_layer = c.q + c.k + c.v + c.o + c.bias;
    c.all_layers = c.per_layer * s.layers;
    c.kv_cache_bytes = 2 * s.layers * kv_width * s.context * s.batch * s.bytes_per_value;
    return c;
}

KvComparison compare_kv(const AttentionShape& s) {
    throw_if_invalid(validate(s));
    KvComparison r;
    AttentionShape m = s;
    m.n_kv_heads = s.n_heads;
    r.mha = count_attention(m);
    r.gqa = count_attention(s);
    m.n_kv_heads = 1;
    r.mqa = count_attention(m);
    r.gqa_cache_fraction = double(r.gqa.kv_cache_bytes) / double(r.mha.kv_cache_bytes);
    r.mqa_cache_fraction = double(r.mqa.kv_cache_bytes) / double(r.mha.kv_cache_bytes);
    return r;
}

}  // namespace mha
