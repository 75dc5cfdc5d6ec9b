// The model reuses its activation-gradient buffers from step to step, and most of them are written, not zeroed
// and added into (Dinp::write; the residual stream's gradient is one aliased buffer): a step's gradients must not
// depend on what the previous backward left in them. Every variant, with and without the MLP, and GQA.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "model.hpp"
#include "prng.hpp"

using namespace mha;

namespace {

// the parameter gradients of one forward + backward on (idx, targets), (B,T) each
std::vector<float> gradients(Gpt<float>& m, const std::vector<int>& idx, const std::vector<int>& targets, int B, int T) {
    m.forward(idx.data(), targets.data(), B, T);
    m.zero_grad();
    m.backward();
    return std::vector<float>(m.grads(), m.grads() + m.num_params());
}

}  // namespace

TEST_CASE("backward's gradients do not depend on what the previous backward left in its buffers", "[model]") {
    const int B = 2, T = 6, V = 11;
    const std::vector<int> idx = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1}, targets = {2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1, 2};
    // another batch first, with an ignored position (-1), so every buffer holds something else
    const std::vector<int> idx2 = {5, 5, 0, 9, 3, 1, 2, 2, 7, 4, 6, 8}, targets2 = {9, -1, 3, 3, 0, 10, 1, 6, 6, 2, 5, 4};
    struct Case { int variant, kv_heads; bool mlp; };
    std::vector<Case> cases;
    for (int v = 0; v < kNumVariants; ++v)
        for (bool mlp : {true, false}) cases.push_back({v, 0, mlp});
    cases.push_back({int(AttentionVariant::canonical), 2, true});
    for (const Case& k : cases) {
        ModelConfig c;
        c.vocab_size = V, c.d_model = 8, c.n_heads = 4, c.n_kv_heads = k.kv_heads, c.n_layers = 2, c.max_seq_len = T;
        c.mlp = k.mlp, c.variant = static_cast<AttentionVariant>(k.variant);
        INFO(variant_name(c.variant) << " mlp=" << k.mlp << " kv heads=" << k.kv_heads);
        Gpt<float> fresh(c), reused(c);
        fresh.init_weights(7);
        Rng rng(8);
        for (std::size_t i = 0; i < fresh.num_params(); ++i) fresh.params()[i] += float(rng.normal() * 0.4);
        std::copy(fresh.params(), fresh.params() + fresh.num_params(), reused.params());
        const std::vector<float> want = gradients(fresh, idx, targets, B, T);
        gradients(reused, idx2, targets2, B, T);  // leaves its own values in every buffer
        const std::vector<float> got = gradients(reused, idx, targets, B, T);
        REQUIRE(got.size() == want.size());
        int differing = 0;
        for (std::size_t i = 0; i < got.size(); ++i) differing += got[i] != want[i];
        CHECK(differing == 0);  // bitwise: the same operations on the same numbers
        REQUIRE(want.size() > 0);
    }
}

TEST_CASE("reserve allocates a forward's activations up front, and a larger reserve leaves later steps right",
          "[model]") {
    ModelConfig c;
    c.vocab_size = 11, c.d_model = 8, c.n_heads = 2, c.n_layers = 2, c.max_seq_len = 6;
    const int B = 2, T = 6;
    const std::vector<int> idx = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1}, targets = {2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1, 2};
    Gpt<float> fresh(c), reserved(c);
    fresh.init_weights(3);
    std::copy(fresh.params(), fresh.params() + fresh.num_params(), reserved.params());
    CHECK(reserved.activation_capacity() == 0);
    reserved.reserve(B, T);
    CHECK(reserved.activation_capacity() == activation_elements(c, B, T));
    const std::vector<float> want = gradients(fresh, idx, targets, B, T);
    CHECK(gradients(reserved, idx, targets, B, T) == want);
    CHECK(reserved.activation_capacity() == activation_elements(c, B, T));  // the step allocated nothing more
    // a larger reserve after a step moves the buffers: the next step at the old (B,T) lays them out again
    reserved.reserve(4, T);
    CHECK(reserved.activation_capacity() == activation_elements(c, 4, T));
    CHECK(gradients(reserved, idx, targets, B, T) == want);
    // a smaller one keeps what there is
    reserved.reserve(1, 3);
    CHECK(reserved.activation_capacity() == activation_elements(c, 4, T));
    CHECK_THROWS_WITH(reserved.reserve(B, T + 1), Catch::Contains("sequence length 7 is outside 1..6"));
}
