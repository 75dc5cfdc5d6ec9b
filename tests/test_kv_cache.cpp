// MHA / GQA / MQA arithmetic, checked on Llama-2-70B with every figure derived by hand:
//   L = 80, D = 8192, H = 64, H_kv = 8, hs = 128, context 4096, batch 8, fp16 (2 bytes), no biases.
//   H·hs = 8192, H_kv·hs = 1024.
//   q = o = 8192 · 8192 = 67,108,864;  k = v = 8192 · 1024 = 8,388,608 (GQA-8)
//   per layer GQA = 2·67,108,864 + 2·8,388,608 = 150,994,944;  · 80 = 12,079,595,520
//   per layer MHA = 4·67,108,864 = 268,435,456;  MQA = 2·67,108,864 + 2·8192·128 = 136,314,880
//   KV cache MHA = 2·80·64·128·4096·8·2 = 85,899,345,920 bytes = 80 GiB
//   GQA-8 = 1/8 of that = 10,737,418,240 bytes = 10 GiB;  MQA = 1/64 = 1,342,177,280 bytes = 1.25 GiB
#include <catch2/catch.hpp>

#include "error.hpp"
#include "kv_cache.hpp"

using namespace mha;

namespace {
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
}

TEST_CASE("Llama-2-70B attention parameters per layer, MHA vs GQA-8 vs MQA", "[kv]") {
    const AttentionShape s;  // the defaults are Llama-2-70B
    const KvComparison r = compare_kv(s);
    CHECK(r.gqa.q == 67108864);
    CHECK(r.gqa.k == 8388608);
    CHECK(r.gqa.v == 8388608);
    CHECK(r.gqa.o == 67108864);
    CHECK(r.gqa.bias == 0);
    CHECK(r.gqa.per_layer == 150994944);
    CHECK(r.gqa.all_layers == 12079595520LL);
    CHECK(r.mha.per_layer == 268435456);
    CHECK(r.mqa.per_layer == 136314880);
}

TEST_CASE("Llama-2-70B KV cache at 4096 tokens, batch 8, fp16: 80, 10 and 1.25 GiB", "[kv]") {
    const KvComparison r = compare_kv(AttentionShape{});
    CHECK(r.mha.kv_cache_bytes == 85899345920LL);
    CHECK(r.gqa.kv_cache_bytes == 10737418240LL);
    CHECK(r.mqa.kv_cache_bytes == 1342177280LL);
    CHECK(r.mha.kv_cache_bytes / GiB == Approx(80.0));
    CHECK(r.gqa.kv_cache_bytes / GiB == Approx(10.0));
    CHECK(r.mqa.kv_cache_bytes / GiB == Approx(1.25));
    CHECK(r.gqa_cache_fraction == Approx(1.0 / 8));
    CHECK(r.mqa_cache_fraction == Approx(1.0 / 64));
}

TEST_CASE("biases and a small model: the tiny-char attention layer is 4D squared plus 4D", "[kv]") {
    AttentionShape s;
    s.layers = 2, s.d_model = 64, s.n_heads = 4, s.n_kv_heads = 4, s.head_dim = 16, s.bias = true;
    s.context = 64, s.batch = 1, s.bytes_per_value = 4;
    const AttentionCount c = count_attention(s);
    CHECK(c.per_layer == 4 * 64 * 64 + 4 * 64);  // 16,640, the model's attention tensors
    CHECK(c.all_layers == 2 * 16640);
    CHECK(c.kv_cache_bytes == 2 * 2 * 64 * 64 * 1 * 4);  // 2·L·(H_kv·hs = 64)·64 tokens·4 bytes = 65,536
    // the same budget with 1 or 8 heads: H·hs = D stays 64, so nothing changes
    for (int H : {1, 8}) {
        s.n_heads = s.n_kv_heads = H, s.head_dim = 64 / H;
        CHECK(count_attention(s).per_layer == 16640);
    }
}

TEST_CASE("bad shapes are sentences, not crashes", "[kv]") {
    AttentionShape s;
    s.n_kv_heads = 7;
    CHECK(validate(s).find("multiple of KV heads") != std::string::npos);
    CHECK_THROWS_AS(compare_kv(s), Error);
    s.n_kv_heads = 128;
    CHECK(validate(s).find("cannot be more") != std::string::npos);
    s = AttentionShape{};
    s.context = 0;
    CHECK(validate(s).find("context") != std::string::npos);
    s = AttentionShape{};
    s.context = 1 << 21, s.batch = 4096, s.layers = 1000;
    CHECK(validate(s).find("too large") != std::string::npos);
    CHECK(validate(AttentionShape{}).empty());
}
