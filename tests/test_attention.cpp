// Multi-head attention: shapes, softmax rows, the causal mask, the head split of the lesson, and agreement
// with an independent per-head implementation written the way the lesson's formulas read.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "attention.hpp"
#include "demo.hpp"
#include "model.hpp"
#include "test_util.hpp"

using namespace mha;

namespace {

// the lesson's formula, one head at a time, in float64, with no split/merge and no kernels:
//   head_h = softmax(X W_q^h (X W_k^h)ᵀ / sqrt(hs) + M) X W_v^h,  W_*^h = the rows of W_* that head h owns
//   out = [head_1 | ... | head_H] W_Oᵀ + b_O
xt::xtensor<double, 3> naive_mha(const xt::xtensor<double, 3>& x, const MhaWeights<double>& w, int H,
                                 std::vector<double>* att_out = nullptr) {
    const int B = int(x.shape(0)), T = int(x.shape(1)), D = int(x.shape(2)), hs = D / H;
    auto project = [&](const xt::xtensor<double, 2>& W, const xt::xtensor<double, 1>& bias, int b, int t, int row) {
        double s = bias(row);
        for (int c = 0; c < D; ++c) s += x(b, t, c) * W(row, c);
        return s;
    };
    xt::xtensor<double, 3> concat = xt::zeros<double>({B, T, D}), out = xt::zeros<double>({B, T, D});
    if (att_out) att_out->assign(std::size_t(B) * H * T * T, 0.0);
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t) {
                std::vector<double> score(t + 1);
                double mx = -1e300;
                for (int s = 0; s <= t; ++s) {
                    double dot = 0;
                    for (int i = 0; i < hs; ++i)
                        dot += project(w.wq, w.bq, b, t, h * hs + i) * project(w.wk, w.bk, b, s, h * hs + i);
                    score[s] = dot / std::sqrt(double(hs));
                    mx = std::max(mx, score[s]);
                }
                double z = 0;
                for (auto& e : score) z += (e = std::exp(e - mx));
                for (int s = 0; s <= t; ++s) {
                    const double a = score[s] / z;
                    if (att_out) (*att_out)[((std::size_t(b) * H + h) * T + t) * T + s] = a;
                    for (int i = 0; i < hs; ++i) concat(b, t, h * hs + i) += a * project(w.wv, w.bv, b, s, h * hs + i);
                }
            }
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int o = 0; o < D; ++o) {
                double s = w.bo(o);
                for (int c = 0; c < D; ++c) s += concat(b, t, c) * w.wo(o, c);
                out(b, t, o) = s;
            }
    return out;
}

template <class S>
MhaWeights<S> random_weights_with_bias(int D, std::uint64_t seed) {
    Rng rng(seed);
    MhaWeights<S> w = mha_random_weights<S>(D, rng, 0.5);
    for (auto* v : {&w.bq, &w.bk, &w.bv, &w.bo})
        for (auto& e : *v) e = static_cast<S>(rng.normal() * 0.1);
    return w;
}

template <class S>
xt::xtensor<S, 3> random_input(int B, int T, int D, std::uint64_t seed) {
    xt::xtensor<S, 3> x = xt::zeros<S>({B, T, D});
    Rng rng(seed);
    for (auto& e : x) e = static_cast<S>(rng.normal());
    return x;
}

}  // namespace

TEST_CASE("mha_forward returns out (B,T,D) and attention (B,H,T,T)", "[attention]") {
    const int B = 2, T = 5, D = 12, H = 3;
    const auto x = random_input<float>(B, T, D, 1);
    const auto r = mha_forward(x, random_weights_with_bias<float>(D, 2), H);
    CHECK(r.out.shape() == std::array<std::size_t, 3>{2, 5, 12});
    CHECK(r.att.shape() == std::array<std::size_t, 4>{2, 3, 5, 5});
}

TEST_CASE("mha_forward rejects D not divisible by H with the config message", "[attention]") {
    const auto x = random_input<float>(1, 3, 10, 1);
    REQUIRE_THROWS_AS(mha_forward(x, mha_zero_weights<float>(10), 4), Error);
    try {
        mha_forward(x, mha_zero_weights<float>(10), 4);
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("not divisible") != std::string::npos);
    }
}

TEST_CASE("attention rows sum to 1 and masked (future) entries are exactly 0", "[attention]") {
    const int B = 2, T = 9, D = 16, H = 4;
    const auto r = mha_forward(random_input<float>(B, T, D, 3), random_weights_with_bias<float>(D, 4), H);
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t) {
                double row = 0;
                for (int s = 0; s < T; ++s) {
                    const float a = r.att(b, h, t, s);
                    if (s > t) REQUIRE(a == 0.0f);
                    else REQUIRE(a > 0.0f);
                    row += a;
                }
                REQUIRE(row == Approx(1.0).margin(1e-6));
            }
}

TEST_CASE("attention_backward writes dq, dk and dv: what they held before does not matter", "[attention]") {
    // the model no longer zeroes qh, kh, vh's gradients: attention_backward must write every element of them,
    // with grouped (GQA) and single (MQA) key/value heads too, where several query heads reach one slice
    const int B = 2, H = 4, T = 11, hs = 8;
    for (int Hkv : {4, 2, 1}) {
        INFO("Hkv = " << Hkv);
        const auto q = test::random_vector<float>(B * H * T * hs, 41), k = test::random_vector<float>(B * Hkv * T * hs, 42);
        const auto v = test::random_vector<float>(B * Hkv * T * hs, 43), dy = test::random_vector<float>(B * H * T * hs, 44);
        const float scale = 1.0f / std::sqrt(float(hs));
        std::vector<float> y(q.size()), att(std::size_t(B) * H * T * T), scratch(std::size_t(T) * T);
        attention_forward(y.data(), att.data(), q.data(), k.data(), v.data(), B, H, Hkv, T, hs, scale);
        std::vector<float> dq0(q.size(), 0.0f), dk0(k.size(), 0.0f), dv0(v.size(), 0.0f);
        std::vector<float> dq1(q.size(), 1e30f), dk1(k.size(), -7.0f), dv1(v.size(), NAN);
        attention_backward(dq0.data(), dk0.data(), dv0.data(), scratch.data(), dy.data(), att.data(), q.data(), k.data(),
                           v.data(), B, H, Hkv, T, hs, scale);
        attention_backward(dq1.data(), dk1.data(), dv1.data(), scratch.data(), dy.data(), att.data(), q.data(), k.data(),
                           v.data(), B, H, Hkv, T, hs, scale);
        CHECK(dq1 == dq0);
        CHECK(dk1 == dk0);
        CHECK(dv1 == dv0);  // NaN != NaN: one element left unwritten fails
        double dk_sum = 0;
        for (float x : dk0) dk_sum += std::abs(x);
        CHECK(dk_sum > 0);  // and the gradients are not all zero
    }
}

TEST_CASE("attention on the (B,T,D) rows in place equals attention on split heads, to the bit", "[attention]") {
    // HeadsAt::tokens reads q, k, v where the projections wrote them (rows D apart) and writes y into (B,T,D):
    // the same products on the same values as split_heads, attention, merge_heads, so the same bits
    const int B = 2, H = 4, T = 13, hs = 8, D = H * hs;
    const auto q = test::random_vector<float>(B * T * D, 51), k = test::random_vector<float>(B * T * D, 52);
    const auto v = test::random_vector<float>(B * T * D, 53), dy = test::random_vector<float>(B * T * D, 54);
    const float scale = 1.0f / std::sqrt(float(hs));
    const std::size_t n = q.size();
    std::vector<float> att(std::size_t(B) * H * T * T), scratch(std::size_t(T) * T);
    // split heads
    std::vector<float> qh(n), kh(n), vh(n), dyh(n), yh(n), y_split(n), dq(n), dk(n), dv(n);
    split_heads(qh.data(), q.data(), B, T, H, hs, HeadOrder::canonical);
    split_heads(kh.data(), k.data(), B, T, H, hs, HeadOrder::canonical);
    split_heads(vh.data(), v.data(), B, T, H, hs, HeadOrder::canonical);
    split_heads(dyh.data(), dy.data(), B, T, H, hs, HeadOrder::canonical);
    attention_forward(yh.data(), att.data(), qh.data(), kh.data(), vh.data(), B, H, H, T, hs, scale);
    merge_heads(y_split.data(), yh.data(), B, T, H, hs, HeadOrder::canonical);
    attention_backward(dq.data(), dk.data(), dv.data(), scratch.data(), dyh.data(), att.data(), qh.data(), kh.data(),
                       vh.data(), B, H, H, T, hs, scale);
    std::vector<float> dq_split(n), dk_split(n), dv_split(n);
    merge_heads(dq_split.data(), dq.data(), B, T, H, hs, HeadOrder::canonical);  // the (B,T,D) layout again
    merge_heads(dk_split.data(), dk.data(), B, T, H, hs, HeadOrder::canonical);
    merge_heads(dv_split.data(), dv.data(), B, T, H, hs, HeadOrder::canonical);
    // in place
    std::vector<float> att2(att.size()), y(n), dq2(n, 3.0f), dk2(n, 3.0f), dv2(n, 3.0f);
    attention_forward(y.data(), att2.data(), q.data(), k.data(), v.data(), B, H, H, T, hs, scale, HeadsAt::tokens);
    attention_backward(dq2.data(), dk2.data(), dv2.data(), scratch.data(), dy.data(), att2.data(), q.data(), k.data(),
                       v.data(), B, H, H, T, hs, scale, HeadsAt::tokens);
    auto same_bits = [](const std::vector<float>& a, const std::vector<float>& b) {
        return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
    };
    CHECK(same_bits(att2, att));
    CHECK(same_bits(y, y_split));
    CHECK(same_bits(dq2, dq_split));
    CHECK(same_bits(dk2, dk_split));
    CHECK(same_bits(dv2, dv_split));
    // grouped key/value heads have narrower k, v rows than q: that layout keeps the copies
    CHECK_THROWS_WITH(attention_forward(y.data(), att2.data(), q.data(), k.data(), v.data(), B, H, 2, T, hs, scale,
                                        HeadsAt::tokens),
                      Catch::Contains("as many key/value heads as heads"));
}

TEST_CASE("an output never depends on a later input position", "[attention]") {
    const int T = 7, D = 8, H = 2;
    const auto w = random_weights_with_bias<double>(D, 5);
    auto x = random_input<double>(1, T, D, 6);
    const auto before = mha_forward(x, w, H);
    for (int s = 1; s < T; ++s) {
        auto xp = x;
        for (int c = 0; c < D; ++c) xp(0, s, c) += 1.0;
        const auto after = mha_forward(xp, w, H);
        for (int t = 0; t < s; ++t)
            for (int c = 0; c < D; ++c) REQUIRE(after.out(0, t, c) == before.out(0, t, c));
    }
}

TEST_CASE("mha_forward agrees with the lesson's per-head formula in float64", "[attention]") {
    for (int H : {1, 2, 3, 6}) {
        const int B = 2, T = 6, D = 12;
        const auto x = random_input<double>(B, T, D, 10 + H);
        const auto w = random_weights_with_bias<double>(D, 20 + H);
        std::vector<double> att_naive;
        const auto want = naive_mha(x, w, H, &att_naive);
        const auto got = mha_forward(x, w, H);
        INFO("H = " << H);
        CHECK(test::max_abs_diff(got.out, want) < 1e-12);
        CHECK(test::max_abs_diff(got.att, att_naive) < 1e-13);
    }
}

TEST_CASE("float32 mha_forward stays within 1e-5 (relative) of float64", "[attention]") {
    const int B = 2, T = 16, D = 32, H = 4;
    const auto x64 = random_input<double>(B, T, D, 7);
    const auto w64 = random_weights_with_bias<double>(D, 8);
    const auto w32 = random_weights_with_bias<float>(D, 8);
    const xt::xtensor<float, 3> x32 = xt::cast<float>(x64);
    const auto out64 = mha_forward(x64, w64, H).out;
    double scale = 0;  // relative to the largest output: float32 keeps ~7 digits of it
    for (double v : out64) scale = std::max(scale, std::abs(v));
    INFO("largest |out| = " << scale);
    CHECK(test::max_abs_diff(mha_forward(x32, w32, H).out, out64) < 1e-5 * scale);
}

TEST_CASE("the lesson's head split: D=8, H=4, head h sees channels 2h and 2h+1", "[attention][reshape]") {
    const HeadLayout l = head_layout(8, 4, HeadOrder::canonical);
    CHECK(l.head_size == 2);
    // [a0 a1 | a2 a3 | a4 a5 | a6 a7]
    CHECK(l.head == std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3});
    CHECK(l.lane == std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1});

    SECTION("split_heads moves a0..a7 of each position into head-major order") {
        const int B = 1, T = 2, H = 4, hs = 2;
        std::vector<float> inp(16), out(16);
        for (int i = 0; i < 16; ++i) inp[i] = float(i);  // position t, channel c holds 8t + c
        split_heads(out.data(), inp.data(), B, T, H, hs, HeadOrder::canonical);
        // out (B,H,T,hs): head 1 at t=1 holds channels 2, 3 of position 1 = 10, 11
        CHECK(out[(1 * T + 1) * hs + 0] == 10.0f);
        CHECK(out[(1 * T + 1) * hs + 1] == 11.0f);
        CHECK(out[(3 * T + 0) * hs + 1] == 7.0f);
    }
}

TEST_CASE("the swapped view(B,T,hs,H) gives each head interleaved channels", "[attention][reshape]") {
    const HeadLayout l = head_layout(8, 4, HeadOrder::swapped);
    // c = i*H + h: head 0 gets a0 and a4, head 1 gets a1 and a5, ...
    CHECK(l.head == std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3});
    CHECK(l.lane == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
}

TEST_CASE("merge_heads inverts split_heads for both orders", "[attention][reshape]") {
    const int B = 2, T = 3, H = 4, hs = 3, D = H * hs;
    const auto inp = test::random_vector<float>(std::size_t(B) * T * D, 9);
    for (HeadOrder order : {HeadOrder::canonical, HeadOrder::swapped}) {
        std::vector<float> heads(inp.size()), back(inp.size());
        split_heads(heads.data(), inp.data(), B, T, H, hs, order);
        merge_heads(back.data(), heads.data(), B, T, H, hs, order);
        CHECK(back == inp);
    }
}

TEST_CASE("split_words keeps words whole and punctuation apart", "[demo]") {
    CHECK(split_words("The cat sat.", 10) == std::vector<std::string>{"The", "cat", "sat", "."});
    CHECK(split_words("  café, don't  ", 10) == std::vector<std::string>{"café", ",", "don't"});
    CHECK(split_words("a b c d", 2).size() == 2);
    CHECK(split_words("   ", 10).empty());
}

TEST_CASE("attention_demo: one (T,T) map per head, reproducible from the seed", "[demo]") {
    const auto a = attention_demo("the cat sat on the mat", 16, 4, 7);
    REQUIRE(a.tokens.size() == 6);
    CHECK(a.att.shape() == std::array<std::size_t, 3>{4, 6, 6});
    const auto b = attention_demo("the cat sat on the mat", 16, 4, 7);
    CHECK(a.att == b.att);
    const auto c = attention_demo("the cat sat on the mat", 16, 4, 8);
    CHECK(test::max_abs_diff(a.att, c.att) > 1e-3);
    REQUIRE_THROWS_AS(attention_demo("   ", 16, 4, 7), Error);
    REQUIRE_THROWS_AS(attention_demo("x", 16, 5, 7), Error);
}

TEST_CASE("ablating a head zeroes its contribution; tying heads makes every attention map identical", "[attention][model]") {
    ModelConfig cfg;
    cfg.vocab_size = 9, cfg.d_model = 16, cfg.n_heads = 4, cfg.n_kv_heads = 2, cfg.n_layers = 1, cfg.max_seq_len = 6;
    Gpt<float> m(cfg);
    m.init_weights(5);
    Rng rng(6);
    for (std::size_t i = 0; i < m.num_params(); ++i) m.params()[i] += static_cast<float>(rng.normal() * 0.3);
    const int idx[6] = {1, 5, 2, 8, 3, 3};
    const float base = m.forward(idx, idx, 1, 6);
    m.set_head_enabled(0, 1, false);
    const float ablated = m.forward(idx, idx, 1, 6);
    CHECK(ablated != base);
    m.set_head_enabled(0, 1, true);
    CHECK(m.forward(idx, idx, 1, 6) == base);

    tie_heads(m, 0, 3);
    m.forward(idx, nullptr, 1, 6);
    const float* att = m.attention(0);  // (1,H,T,T)
    for (int h = 0; h < 4; ++h)
        for (int i = 0; i < 36; ++i) REQUIRE(att[h * 36 + i] == att[3 * 36 + i]);
}
