// Every op's backward, and the whole model's, against float64 central finite differences.
// Each op is wrapped in a scalar loss = Σ out ⊙ r with a fixed random r, so dout = r.
#include <catch2/catch.hpp>

#include <numeric>
#include <vector>

#include "attention.hpp"
#include "gradcheck.hpp"
#include "layers.hpp"
#include "model.hpp"
#include "test_util.hpp"

using namespace mha;
using test::check_gradient;
using test::random_vector;

namespace {
using Vec = std::vector<double>;

double dot(const Vec& a, const Vec& b) { return std::inner_product(a.begin(), a.end(), b.begin(), 0.0); }

// what a gradient buffer holds before a Dinp::write backward: that backward must not read it
constexpr double kStale = 7.25;

void require_clean(const test::GradReport& r) {
    INFO(r.first_failure << " (checked " << r.checked << ", max abs error " << r.max_abs_err << ")");
    REQUIRE(r.checked > 0);
    REQUIRE(r.failed == 0);
}
}  // namespace

TEST_CASE("gradcheck: layernorm (input, weight, bias)", "[gradcheck]") {
    const int N = 5, C = 7;
    Vec x = random_vector<double>(N * C, 1), w = random_vector<double>(C, 2), b = random_vector<double>(C, 3);
    const Vec r = random_vector<double>(N * C, 4);
    Vec out(N * C), mean(N), rstd(N);
    auto loss = [&] {
        layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C);
        return dot(out, r);
    };
    loss();
    for (Dinp mode : {Dinp::add, Dinp::write}) {
        // adding onto zeros, or writing over a stale value: the same gradient
        Vec dx(N * C, mode == Dinp::add ? 0.0 : kStale), dw(C, 0), db(C, 0);
        layernorm_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), mean.data(), rstd.data(), N, C,
                           mode);
        require_clean(check_gradient(loss, x.data(), dx.data(), x.size(), "dx"));
        require_clean(check_gradient(loss, w.data(), dw.data(), w.size(), "dweight"));
        require_clean(check_gradient(loss, b.data(), db.data(), b.size(), "dbias"));
    }
}

TEST_CASE("gradcheck: linear (input, weight, bias) for odd shapes", "[gradcheck]") {
    for (const auto& shape : {std::array<int, 3>{3, 5, 7}, {9, 8, 4}, {1, 17, 3}}) {
        const int N = shape[0], C = shape[1], OC = shape[2];
        Vec x = random_vector<double>(N * C, 5), w = random_vector<double>(OC * C, 6), b = random_vector<double>(OC, 7);
        const Vec r = random_vector<double>(N * OC, 8);
        Vec out(N * OC);
        auto loss = [&] {
            linear_forward(out.data(), x.data(), w.data(), b.data(), N, C, OC);
            return dot(out, r);
        };
        for (Dinp mode : {Dinp::add, Dinp::write}) {
            Vec dx(N * C, mode == Dinp::add ? 0.0 : kStale), dw(OC * C, 0), db(OC, 0);
            linear_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), N, C, OC, mode);
            require_clean(check_gradient(loss, x.data(), dx.data(), x.size(), "dx"));
            require_clean(check_gradient(loss, w.data(), dw.data(), w.size(), "dweight"));
            require_clean(check_gradient(loss, b.data(), db.data(), b.size(), "dbias"));
        }
    }
}

TEST_CASE("gradcheck: gelu", "[gradcheck]") {
    Vec x = random_vector<double>(40, 9, 2.0);
    const Vec r = random_vector<double>(40, 10);
    Vec out(40);
    auto loss = [&] {
        gelu_forward(out.data(), x.data(), 40);
        return dot(out, r);
    };
    for (Dinp mode : {Dinp::add, Dinp::write}) {
        // the training step's pair: gelu' kept by the forward, multiplied in by the backward
        Vec kept(40), grad(40), dx(40, mode == Dinp::add ? 0.0 : kStale);
        gelu_forward_keep_grad(kept.data(), grad.data(), x.data(), 40);
        gelu_backward_saved(dx.data(), grad.data(), r.data(), 40, mode);
        require_clean(check_gradient(loss, x.data(), dx.data(), x.size(), "dx"));
    }
}

TEST_CASE("gradcheck: token and position embedding", "[gradcheck]") {
    const int B = 2, T = 4, C = 3, V = 5;
    const int idx[B * T] = {0, 3, 3, 1, 4, 4, 2, 0};  // repeated ids: their gradients must add up
    Vec wte = random_vector<double>(V * C, 11), wpe = random_vector<double>(T * C, 12);
    const Vec r = random_vector<double>(B * T * C, 13);
    Vec out(B * T * C);
    auto loss = [&] {
        encoder_forward(out.data(), idx, wte.data(), wpe.data(), B, T, C);
        return dot(out, r);
    };
    Vec dwte(V * C, 0), dwpe(T * C, 0);
    encoder_backward(dwte.data(), dwpe.data(), r.data(), idx, B, T, C);
    require_clean(check_gradient(loss, wte.data(), dwte.data(), wte.size(), "dwte"));
    require_clean(check_gradient(loss, wpe.data(), dwpe.data(), wpe.size(), "dwpe"));
}

TEST_CASE("gradcheck: softmax cross-entropy, including ignored positions", "[gradcheck]") {
    const int N = 6, V = 9;
    Vec logits = random_vector<double>(N * V, 14, 3.0);
    const int targets[N] = {0, 8, -1, 4, 4, 2};
    Vec probs(N * V), losses(N);
    auto loss = [&] { return crossentropy_forward(probs.data(), losses.data(), logits.data(), targets, N, V); };
    loss();
    for (Dinp mode : {Dinp::add, Dinp::write}) {
        Vec dlogits(N * V, mode == Dinp::add ? 0.0 : kStale);
        crossentropy_backward(dlogits.data(), probs.data(), targets, N, V, mode);
        require_clean(check_gradient(loss, logits.data(), dlogits.data(), logits.size(), "dlogits"));
    }
}

TEST_CASE("gradcheck: head split and merge, both orders", "[gradcheck]") {
    const int B = 2, T = 3, H = 4, hs = 2, D = H * hs;
    for (HeadOrder order : {HeadOrder::canonical, HeadOrder::swapped}) {
        Vec x = random_vector<double>(B * T * D, 15);
        const Vec r = random_vector<double>(B * T * D, 16);
        Vec heads(B * T * D), merged(B * T * D);
        auto split_loss = [&] {
            split_heads(heads.data(), x.data(), B, T, H, hs, order);
            return dot(heads, r);
        };
        auto merge_loss = [&] {
            merge_heads(merged.data(), x.data(), B, T, H, hs, order);
            return dot(merged, r);
        };
        Vec dsplit(B * T * D, 0), dmerge(B * T * D, 0);
        split_heads_backward(dsplit.data(), r.data(), B, T, H, hs, order);
        merge_heads_backward(dmerge.data(), r.data(), B, T, H, hs, order);
        require_clean(check_gradient(split_loss, x.data(), dsplit.data(), x.size(), "dsplit"));
        require_clean(check_gradient(merge_loss, x.data(), dmerge.data(), x.size(), "dmerge"));
    }
}

namespace {
// dq, dk, dv of attention_backward against finite differences of <attention_forward(q, k, v), r>
void check_attention_gradients(int B, int H, int Hkv, int T, int hs, std::uint64_t seed) {
    Vec q = random_vector<double>(B * H * T * hs, seed), k = random_vector<double>(B * Hkv * T * hs, seed + 1),
        v = random_vector<double>(B * Hkv * T * hs, seed + 2);
    const Vec r = random_vector<double>(B * H * T * hs, seed + 3);
    Vec y(B * H * T * hs), att(B * H * T * T);
    const double scale = 1.0 / std::sqrt(double(hs));
    auto loss = [&] {
        attention_forward(y.data(), att.data(), q.data(), k.data(), v.data(), B, H, Hkv, T, hs, scale);
        return dot(y, r);
    };
    loss();
    Vec dq(q.size(), 0), dk(k.size(), 0), dv(v.size(), 0), scratch(T * T);
    attention_backward(dq.data(), dk.data(), dv.data(), scratch.data(), r.data(), att.data(), q.data(), k.data(),
                       v.data(), B, H, Hkv, T, hs, scale);
    INFO("B = " << B << " H = " << H << " Hkv = " << Hkv << " T = " << T << " hs = " << hs);
    require_clean(check_gradient(loss, q.data(), dq.data(), q.size(), "dq"));
    require_clean(check_gradient(loss, k.data(), dk.data(), k.size(), "dk"));
    require_clean(check_gradient(loss, v.data(), dv.data(), v.size(), "dv"));
}
}  // namespace

TEST_CASE("gradcheck: causal attention with H, grouped (GQA) and single (MQA) key/value heads", "[gradcheck]") {
    for (int Hkv : {4, 2, 1}) check_attention_gradients(2, 4, Hkv, 5, 3, 17);
}

TEST_CASE("gradcheck: causal attention over several register row blocks (T = 13)", "[gradcheck]") {
    // the causal products work in row blocks of 4, 6 or 8 (wasm, AVX2, AVX-512): T = 13 has full blocks, a
    // leftover block, and rows whose live columns end inside a column batch
    for (int Hkv : {2, 1}) check_attention_gradients(1, 2, Hkv, 13, 5, 27);
}

TEST_CASE("gradcheck: the whole GPT, every parameter tensor by name", "[gradcheck][model]") {
    struct Case { int H, Hkv, L; bool mlp; };
    for (const Case& c : {Case{2, 2, 2, true}, Case{4, 2, 2, false}, Case{4, 1, 1, true}}) {
        ModelConfig cfg;
        cfg.vocab_size = 7, cfg.d_model = 8, cfg.n_heads = c.H, cfg.n_kv_heads = c.Hkv, cfg.n_layers = c.L;
        cfg.max_seq_len = 6, cfg.mlp = c.mlp;
        Gpt<double> m(cfg);
        m.init_weights(21);
        // larger weights than the 0.02 init, so every path carries a gradient well above eps
        Rng rng(22);
        for (std::size_t i = 0; i < m.num_params(); ++i) m.params()[i] += rng.normal() * 0.3;
        const int B = 2, T = 5;
        const int idx[B * T] = {1, 2, 3, 4, 5, 6, 0, 1, 1, 2};
        const int targets[B * T] = {2, 3, 4, 5, 6, 0, 1, 1, 2, 3};
        auto loss = [&] { return m.forward(idx, targets, B, T); };
        loss();
        m.zero_grad();
        m.backward();
        const std::vector<double> analytic(m.grads(), m.grads() + m.num_params());
        for (const auto& s : m.tensors()) {
            INFO("H=" << c.H << " Hkv=" << c.Hkv << " L=" << c.L << " mlp=" << c.mlp << " tensor " << s.name);
            require_clean(check_gradient(loss, m.params() + s.offset, analytic.data() + s.offset, s.size, s.name));
        }
    }
}

TEST_CASE("gradcheck: the GPT with an ablated head", "[gradcheck][model]") {
    ModelConfig cfg;
    cfg.vocab_size = 6, cfg.d_model = 8, cfg.n_heads = 4, cfg.n_layers = 2, cfg.max_seq_len = 5;
    Gpt<double> m(cfg);
    m.init_weights(31);
    Rng rng(32);
    for (std::size_t i = 0; i < m.num_params(); ++i) m.params()[i] += rng.normal() * 0.3;
    m.set_head_enabled(0, 2, false);
    const int idx[5] = {1, 2, 3, 4, 5}, targets[5] = {2, 3, 4, 5, 0};
    auto loss = [&] { return m.forward(idx, targets, 1, 5); };
    loss();
    m.zero_grad();
    m.backward();
    const std::vector<double> analytic(m.grads(), m.grads() + m.num_params());
    require_clean(check_gradient(loss, m.params(), analytic.data(), m.num_params(), "all parameters"));
    // the ablated head's query rows get no gradient at all
    const auto& q = m.spec("blocks.0.attn.q.weight");
    for (int i = 2 * 2 * 8; i < 3 * 2 * 8; ++i) CHECK(analytic[q.offset + i] == 0.0);
}
