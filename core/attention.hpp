// Multi-head causal self-attention, exactly as the lesson states it:
//   q = x W_Qᵀ + b_Q                      (B,T,D)     one (D,D) projection per role, not H small ones
//   q.view(B,T,H,hs).transpose(1,2)       (B,H,T,hs)  head h owns channels h*hs .. h*hs+hs-1
//   att = softmax(mask(q kᵀ / √hs))       (B,H,T,T)   √hs, not √D; future positions are exactly 0
//   y = att v                             (B,H,T,hs)
//   y.transpose(1,2).view(B,T,D)          (B,T,D)     heads side by side again (the concat)
//   out = y W_Oᵀ + b_O                    (B,T,D)     W_O mixes the heads: load-bearing
// Weights use PyTorch's Linear layout (out, in). The pieces are separate functions so the model, the page's
// demos and the tests share them; mha_forward strings them together for one layer.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "config.hpp"
#include "error.hpp"
#include "kernels.hpp"
#include "prng.hpp"

namespace mha {

// ---------------------------------------------------------------- the head split
// Which channel of the D-wide projection holds element i of head h.
//   canonical view(B,T,H,hs): c = h*hs + i      (head h sees a contiguous slice)
//   swapped   view(B,T,hs,H): c = i*H + h       (head h sees every H-th channel: interleaved)
inline int head_channel(int h, int i, int n_heads, int head_size, HeadOrder order) {
    return order == HeadOrder::canonical ? h * head_size + i : i * n_heads + h;
}

// inp (B,T,D) -> out (B,H,T,hs): the view + transpose(1,2), written as the index map it is
template <class S>
void split_heads(S* out, const S* inp, int B, int T, int H, int hs, HeadOrder order) {
    const int D = H * hs;
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t) {
                const S* inp_bt = inp + (b * T + t) * D;
                S* out_bht = out + ((b * H + h) * T + t) * hs;
                for (int i = 0; i < hs; ++i) out_bht[i] = inp_bt[head_channel(h, i, H, hs, order)];
            }
}

// inp (B,H,T,hs) -> out (B,T,D): transpose(1,2) back, then view(B,T,D); the exact inverse of split_heads
template <class S>
void merge_heads(S* out, const S* inp, int B, int T, int H, int hs, HeadOrder order) {
    const int D = H * hs;
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t) {
                const S* inp_bht = inp + ((b * H + h) * T + t) * hs;
                S* out_bt = out + (b * T + t) * D;
                for (int i = 0; i < hs; ++i) out_bt[head_channel(h, i, H, hs, order)] = inp_bht[i];
            }
}

// ---------------------------------------------------------------- scores, mask, softmax, mix
// q, k (B,H,T,hs) -> att (B,H,T,T): att[t,s] = softmax_s(q_t · k_s * scale) over s <= t; s > t is exactly 0.
template <class S>
void attention_softmax_forward(S* att, const S* q, const S* k, int B, int H, int T, int hs, S scale) {
    for (int bh = 0; bh < B * H; ++bh) {
        const S* q_bh = q + bh * T * hs;
        const S* k_bh = k + bh * T * hs;
        for (int t = 0; t < T; ++t) {
            S* att_bht = att + (bh * T + t) * T;
            const S* q_t = q_bh + t * hs;
            S maxval = -INFINITY;
            for (int s = 0; s <= t; ++s) {
                S dot = 0;
                for (int i = 0; i < hs; ++i) dot += q_t[i] * k_bh[s * hs + i];
                att_bht[s] = dot * scale;
                if (att_bht[s] > maxval) maxval = att_bht[s];
            }
            S sum = 0;
            for (int s = 0; s <= t; ++s) {
                att_bht[s] = std::exp(att_bht[s] - maxval);  // subtract the max: no overflow
                sum += att_bht[s];
            }
            const S inv = S(1) / sum;
            for (int s = 0; s <= t; ++s) att_bht[s] *= inv;
            for (int s = t + 1; s < T; ++s) att_bht[s] = 0;  // the causal mask
        }
    }
}

// att (B,H,T,T), v (B,H,T,hs) -> y (B,H,T,hs) = att · v, skipping the masked zeros
template <class S>
void attention_mix_forward(S* y, const S* att, const S* v, int B, int H, int T, int hs) {
    for (int bh = 0; bh < B * H; ++bh)
        for (int t = 0; t < T; ++t) {
            S* y_t = y + (bh * T + t) * hs;
            const S* att_t = att + (bh * T + t) * T;
            for (int i = 0; i < hs; ++i) y_t[i] = 0;
            for (int s = 0; s <= t; ++s) {
                const S* v_s = v + (bh * T + s) * hs;
                for (int i = 0; i < hs; ++i) y_t[i] += att_t[s] * v_s[i];
            }
        }
}

// ---------------------------------------------------------------- one layer, for the demos and tests
// Weights of one attention layer. w_* (D,D) in (out,in) layout, b_* (D).
template <class S>
struct MhaWeights {
    xt::xtensor<S, 2> wq, wk, wv, wo;
    xt::xtensor<S, 1> bq, bk, bv, bo;
};

template <class S>
MhaWeights<S> mha_zero_weights(int D) {
    MhaWeights<S> w;
    for (auto* m : {&w.wq, &w.wk, &w.wv, &w.wo}) *m = xt::zeros<S>({D, D});
    for (auto* v : {&w.bq, &w.bk, &w.bv, &w.bo}) *v = xt::zeros<S>({D});
    return w;
}

// weights ~ N(0, std²) drawn in the order wq, wk, wv, wo (row-major), biases zero
template <class S>
MhaWeights<S> mha_random_weights(int D, Rng& rng, double std) {
    MhaWeights<S> w = mha_zero_weights<S>(D);
    for (auto* m : {&w.wq, &w.wk, &w.wv, &w.wo})
        for (auto& x : *m) x = static_cast<S>(rng.normal() * std);
    return w;
}

template <class S>
struct MhaResult {
    xt::xtensor<S, 3> out;  // (B,T,D)
    xt::xtensor<S, 4> att;  // (B,H,T,T)
};

// x (B,T,D) -> out (B,T,D) and the attention weights (B,H,T,T). Allocates its outputs and scratch: this is
// the demo/test entry point, not the training step (that one runs on preallocated buffers).
template <class S>
MhaResult<S> mha_forward(const xt::xtensor<S, 3>& x, const MhaWeights<S>& w, int H,
                         HeadOrder order = HeadOrder::canonical) {
    const int B = static_cast<int>(x.shape(0)), T = static_cast<int>(x.shape(1)), D = static_cast<int>(x.shape(2));
    MHA_CHECK(validate_heads(D, H).empty(), validate_heads(D, H));
    MHA_CHECK(w.wq.shape(0) == static_cast<std::size_t>(D) && w.wq.shape(1) == static_cast<std::size_t>(D),
              "attention weights must be (D,D)");
    const int hs = D / H, BT = B * T;
    xt::xtensor<S, 3> q({std::size_t(B), std::size_t(T), std::size_t(D)}), k(q.shape()), v(q.shape()), y(q.shape());
    const std::array<std::size_t, 4> heads_shape{std::size_t(B), std::size_t(H), std::size_t(T), std::size_t(hs)};
    xt::xtensor<S, 4> qh(heads_shape), kh(heads_shape), vh(heads_shape), yh(heads_shape);
    MhaResult<S> r{xt::xtensor<S, 3>(q.shape()),
                   xt::xtensor<S, 4>({std::size_t(B), std::size_t(H), std::size_t(T), std::size_t(T)})};

    matmul_nt(q.data(), x.data(), w.wq.data(), w.bq.data(), BT, D, D, false);
    matmul_nt(k.data(), x.data(), w.wk.data(), w.bk.data(), BT, D, D, false);
    matmul_nt(v.data(), x.data(), w.wv.data(), w.bv.data(), BT, D, D, false);
    split_heads(qh.data(), q.data(), B, T, H, hs, order);
    split_heads(kh.data(), k.data(), B, T, H, hs, order);
    split_heads(vh.data(), v.data(), B, T, H, hs, order);
    attention_softmax_forward(r.att.data(), qh.data(), kh.data(), B, H, T, hs, S(1) / std::sqrt(S(hs)));
    attention_mix_forward(yh.data(), r.att.data(), vh.data(), B, H, T, hs);
    merge_heads(y.data(), yh.data(), B, T, H, hs, order);
    matmul_nt(r.out.data(), y.data(), w.wo.data(), w.bo.data(), BT, D, D, false);
    return r;
}

}  // namespace mha
