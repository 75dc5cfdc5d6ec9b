// training_step_flops (core/app/benchmark.hpp) against an independent count: every matmul the model calls in one
// step, listed shape by shape as model.cpp and attention.hpp call them (2·M·N·K flops each), and the issue's
// hand-computed figure for tiny-char.
#include <catch2/catch.hpp>

#include "benchmark.hpp"
#include "run_util.hpp"

using namespace mha;

namespace {

// one step's matmul flops, call by call: a Linear (N rows, C in, OC out) is 2·N·C·OC forward, and as much again
// for dinp and for dweight; per (b,h) the attention core is q kᵀ (T,T,hs) and att·v (T,hs,T) forward, and four
// such matmuls backward (datt, dv, dq, dk)
double count_matmul_calls(const ModelConfig& c, int B, int T) {
    const double N = double(B) * T, D = c.d_model, hs = c.head_dim(), Dkv = double(c.kv_heads()) * hs;
    const double F = 4 * D, V = c.vocab_size;
    auto linear = [&](double C, double OC) { return 3 * (2 * N * C * OC); };  // forward, dinp, dweight
    double total = 0;
    for (int l = 0; l < c.n_layers; ++l) {
        total += linear(D, D) + linear(D, Dkv) + linear(D, Dkv);  // q, k, v
        total += linear(D, D);                                    // out-proj
        if (c.mlp) total += linear(D, F) + linear(F, D);          // mlp.fc, mlp.proj
        for (int b = 0; b < B; ++b)
            for (int h = 0; h < c.n_heads; ++h) total += (2 + 4) * (2 * double(T) * T * hs);
    }
    total += linear(D, V);  // lm_head
    return total;
}

ModelConfig tiny_char(int heads) {
    ModelConfig c;
    c.vocab_size = 65, c.d_model = 64, c.n_heads = heads, c.n_layers = 2, c.max_seq_len = 64;
    return c;
}

}  // namespace

TEST_CASE("training_step_flops: tiny-char is the issue's 0.730 GFLOP", "[bench]") {
    // per token: 2·(L·12·D² + V·D) = 2·(2·12·4096 + 65·64) = 204,928 for the weights, plus
    // L·2·2·T·D = 2·4·64·64 = 32,768 for q kᵀ and att·v: 237,696; × 1024 tokens × 3 = 730,202,112
    for (int h : {1, 4, 8}) CHECK(training_step_flops(tiny_char(h), 16, 64) == 730202112.0);
}

TEST_CASE("training_step_flops agrees with a call-by-call count of the step's matmuls", "[bench]") {
    ModelConfig gqa = tiny_char(8);
    gqa.n_kv_heads = 2;
    ModelConfig no_mlp = tiny_char(4);
    no_mlp.mlp = false, no_mlp.n_layers = 3, no_mlp.vocab_size = 64, no_mlp.d_model = 32;
    for (const ModelConfig& c : {tiny_char(1), tiny_char(4), gqa, no_mlp})
        for (int T : {8, 64}) {
            INFO("H=" << c.n_heads << " Hkv=" << c.kv_heads() << " mlp=" << c.mlp << " T=" << T);
            CHECK(training_step_flops(c, 16, T) == Approx(count_matmul_calls(c, 16, T)).epsilon(1e-12));
        }
}

TEST_CASE("a run's facts state its training step's flops: the call-by-call count at its own B and T", "[bench][run]") {
    // the page's efficiency figures (scripts/bench_page.mjs) multiply these by the steps each run trained
    RunSpec offsets;
    offsets.task = Task::offsets;
    offsets.model.d_model = 16, offsets.model.n_heads = 4, offsets.model.n_layers = 1, offsets.model.max_seq_len = 16;
    offsets.model.mlp = false;
    offsets.train.batch = 4, offsets.train.steps = 10, offsets.train.warmup = 0;
    offsets.offsets.symbols = 2, offsets.offsets.offsets = {1, 4};
    ModelConfig wide = mha::test::small_model(2);
    wide.max_seq_len = 12;
    for (const RunSpec& spec : {offsets, mha::test::text_spec(), mha::test::text_spec(wide)}) {
        const RunFacts f = mha::test::built(spec)->facts();
        INFO("task " << int(spec.task) << " T=" << f.model.max_seq_len << " B=" << f.train.batch);
        CHECK(f.step_flops == Approx(count_matmul_calls(f.model, spec.train.batch, spec.model.max_seq_len)).epsilon(1e-12));
    }
}
