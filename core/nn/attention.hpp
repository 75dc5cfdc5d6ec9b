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
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "config.hpp"
#include "error.hpp"
#include "kernels.hpp"
#include "profile.hpp"
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
                if (order == HeadOrder::canonical)  // head h's channels are one contiguous run: a row copy
                    std::copy(inp_bt + h * hs, inp_bt + (h + 1) * hs, out_bht);
                else
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
                if (order == HeadOrder::canonical)
                    std::copy(inp_bht, inp_bht + hs, out_bt + h * hs);
                else
                    for (int i = 0; i < hs; ++i) out_bt[head_channel(h, i, H, hs, order)] = inp_bht[i];
            }
}

// backward of split_heads: a permutation, so the gradient goes back through the same index map
// dout (B,H,T,hs) -> dinp (B,T,D) +=
template <class S>
void split_heads_backward(S* dinp, const S* dout, int B, int T, int H, int hs, HeadOrder order) {
    const int D = H * hs;
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t) {
                S* dinp_bt = dinp + (b * T + t) * D;
                const S* dout_bht = dout + ((b * H + h) * T + t) * hs;
                if (order == HeadOrder::canonical)
                    for (int i = 0; i < hs; ++i) dinp_bt[h * hs + i] += dout_bht[i];
                else
                    for (int i = 0; i < hs; ++i) dinp_bt[head_channel(h, i, H, hs, order)] += dout_bht[i];
            }
}

// backward of merge_heads: dout (B,T,D) -> dinp (B,H,T,hs) +=
template <class S>
void merge_heads_backward(S* dinp, const S* dout, int B, int T, int H, int hs, HeadOrder order) {
    const int D = H * hs;
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t) {
                const S* dout_bt = dout + (b * T + t) * D;
                S* dinp_bht = dinp + ((b * H + h) * T + t) * hs;
                if (order == HeadOrder::canonical)
                    for (int i = 0; i < hs; ++i) dinp_bht[i] += dout_bt[h * hs + i];
                else
                    for (int i = 0; i < hs; ++i) dinp_bht[i] += dout_bt[head_channel(h, i, H, hs, order)];
            }
}

// ---------------------------------------------------------------- layouts used by the variants
// The missing-transpose bug: a (B,T,D) buffer read as (B,H,T,hs), or back, without moving anything. n = B*T*D.
template <class S>
void reinterpret_forward(S* out, const S* inp, std::size_t n) {
    std::copy(inp, inp + n, out);
}
template <class S>
void reinterpret_backward(S* dinp, const S* dout, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) dinp[i] += dout[i];
}

// Head-major results of per-head projections to the usual layout: in (H,B,T,hs) -> out (B,H,T,hs)
template <class S>
void head_major_to_heads(S* out, const S* in, int B, int H, int T, int hs) {
    const std::size_t per = std::size_t(T) * hs;
    for (int h = 0; h < H; ++h)
        for (int b = 0; b < B; ++b) std::copy(in + (h * B + b) * per, in + (h * B + b + 1) * per, out + (b * H + h) * per);
}
// backward: dout (B,H,T,hs) -> din (H,B,T,hs) +=
template <class S>
void head_major_to_heads_backward(S* din, const S* dout, int B, int H, int T, int hs) {
    const std::size_t per = std::size_t(T) * hs;
    for (int h = 0; h < H; ++h)
        for (int b = 0; b < B; ++b)
            for (std::size_t i = 0; i < per; ++i) din[(h * B + b) * per + i] += dout[(b * H + h) * per + i];
}

// The input cut into head slices, head-major: inp (B*T,D) -> out (H,B*T,hs), out[h][n] = inp[n][h*hs .. h*hs+hs-1]
template <class S>
void split_input_heads(S* out, const S* inp, int BT, int H, int hs) {
    for (int h = 0; h < H; ++h)
        for (int n = 0; n < BT; ++n) std::copy(inp + n * H * hs + h * hs, inp + n * H * hs + (h + 1) * hs, out + (h * BT + n) * hs);
}
template <class S>
void split_input_heads_backward(S* dinp, const S* dout, int BT, int H, int hs) {
    for (int h = 0; h < H; ++h)
        for (int n = 0; n < BT; ++n)
            for (int i = 0; i < hs; ++i) dinp[n * H * hs + h * hs + i] += dout[(h * BT + n) * hs + i];
}

// Tied heads: one (B,T,hs) projection copied to every head: in (B,T,hs) -> out (B,H,T,hs)
template <class S>
void broadcast_heads(S* out, const S* in, int B, int H, int T, int hs) {
    const std::size_t per = std::size_t(T) * hs;
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) std::copy(in + b * per, in + (b + 1) * per, out + (b * H + h) * per);
}
// backward: the gradients of all heads add up, dout (B,H,T,hs) -> din (B,T,hs) +=
template <class S>
void broadcast_heads_backward(S* din, const S* dout, int B, int H, int T, int hs) {
    const std::size_t per = std::size_t(T) * hs;
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (std::size_t i = 0; i < per; ++i) din[b * per + i] += dout[(b * H + h) * per + i];
}

// ---------------------------------------------------------------- scores, mask, softmax, mix
// Asks the cache for n bytes from p ahead of their use: the next head's (T,T) attention weights, which at H = 8
// (2 MiB a layer for tiny-char) come from beyond the core's caches. for_write: they are about to be overwritten.
// Natively a prefetch per 64-byte line: at H = 8 it took the products that touch those weights from 0.26–0.41 to
// 0.22–0.32 ms (q kᵀ) and 0.30–0.59 to 0.21–0.26 (dv); the step's gain is within this VM's noise (6 of 8
// interleaved pairs faster, medians 7.41 and 7.06 ms). Wasm has no prefetch instruction, so there a load of one
// byte every 128 (volatile, so that it is kept; its value is dropped) brings the lines in: in the Chromium worker
// q kᵀ and dv got faster in all 10 interleaved pairs (profiled at H = 4), the step at H = 1, 4 and 8 in 8 of the 10;
// a load every 64 bytes did no better (measured: docs/experiments.md, "Speed of the kernels").
template <class S>
inline void prefetch_bytes(const S* p, std::size_t n, bool for_write) {
#if !defined(__EMSCRIPTEN__) && defined(__GNUC__)
    const char* c = reinterpret_cast<const char*>(p);
    for (std::size_t i = 0; i < n; i += 64) {
        if (for_write)
            __builtin_prefetch(c + i, 1, 3);
        else
            __builtin_prefetch(c + i, 0, 3);
    }
#elif defined(__EMSCRIPTEN__)
    (void)for_write;
    const volatile char* c = reinterpret_cast<const volatile char*>(p);
    for (std::size_t i = 0; i < n; i += 128) (void)c[i];
#else
    (void)p, (void)n, (void)for_write;
#endif
}

// Where the heads' (T,hs) rows are in q, k, v, y and their gradients:
//   HeadsAt::heads   (B,H,T,hs), as split_heads writes them: head (b,h) from ((b*H + h)*T)*hs, rows hs apart
//   HeadsAt::tokens  (B,T,D), the projections themselves in the canonical view(B,T,H,hs): head (b,h) from
//                    (b*T*H)*hs + h*hs, rows D = H*hs apart; no split or merge copy. Needs Hkv = H (one row
//                    stride for q, k, v and y).
enum class HeadsAt { heads, tokens };

inline std::size_t head_offset(HeadsAt at, int b, int h, int n_heads, int T, int hs) {
    return at == HeadsAt::tokens ? std::size_t(b) * T * n_heads * hs + std::size_t(h) * hs
                                 : (std::size_t(b) * n_heads + h) * T * hs;
}

// q (B,H,T,hs), k and v (B,Hkv,T,hs) -> att (B,H,T,T), y (B,H,T,hs); or all four (B,T,·) with HeadsAt::tokens.
//   att[t,s] = softmax_s(q_t · k_s * scale) over s <= t, and exactly 0 for s > t (the causal mask)
//   y_t = Σ_s att[t,s] v_s
// Query head h reads key/value head h / (H/Hkv): Hkv = H is multi-head, 1 < Hkv < H grouped-query (GQA),
// Hkv = 1 multi-query (MQA). Per (b,h) the work is two small matmuls on the SIMD kernels, each done only on its
// causal part (kernels.hpp matmul_*_causal): q kᵀ below the diagonal (the softmax rows write the masked zeros),
// att v over s <= t. What they skip are exact zeros: the results are bitwise those of the full products.
template <class S>
void attention_forward(S* y, S* att, const S* q, const S* k, const S* v, int B, int H, int Hkv, int T, int hs,
                       S scale, HeadsAt at = HeadsAt::heads) {
    MHA_CHECK(at == HeadsAt::heads || Hkv == H, "attention on (B,T,D) rows needs as many key/value heads as heads");
    const int group = H / Hkv, ld = at == HeadsAt::tokens ? H * hs : hs;  // ld: row stride of q, k, v, y
    ProfileLap lap;  // per head: q kT, softmax + mask, att v (profile.hpp)
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            const S* q_bh = q + head_offset(at, b, h, H, T, hs);
            const S* k_bh = k + head_offset(at, b, h / group, Hkv, T, hs);
            const S* v_bh = v + head_offset(at, b, h / group, Hkv, T, hs);
            S* att_bh = att + (b * H + h) * T * T;
            if (b * H + h + 1 < B * H) prefetch_bytes(att_bh + T * T, sizeof(S) * T * T, true);
            lap("q kT");
            matmul_nt_causal(att_bh, q_bh, ld, k_bh, ld, T, hs);  // (T,T) = q kᵀ on s <= t
            lap("softmax+mask");
            softmax_causal(att_bh, T, scale);  // row t over s <= t, and the causal mask
            lap("att v");
            matmul_nn_causal(y + head_offset(at, b, h, H, T, hs), att_bh, v_bh, T, hs, ld, false);  // (T,hs) = att v
        }
}

// gradients of attention_forward, written into dq (B,H,T,hs), dk and dv (B,Hkv,T,hs) (or (B,T,·) with
// HeadsAt::tokens, as forward): this is their only writer, so it writes them first instead of adding onto zeros
// (with GQA/MQA the first query head of a group writes its key/value head's slices, the others of the group add),
// and they need no zeroing.
// scratch (T,T) holds one head's d(att) at a time. As forward, each product does only its causal part: datt on
// s <= t (the softmax backward reads no more, and zeroes the rest), the others with att and dpre zero above the
// diagonal.
template <class S>
void attention_backward(S* dq, S* dk, S* dv, S* scratch, const S* dy, const S* att, const S* q, const S* k,
                        const S* v, int B, int H, int Hkv, int T, int hs, S scale, HeadsAt at = HeadsAt::heads) {
    MHA_CHECK(at == HeadsAt::heads || Hkv == H, "attention on (B,T,D) rows needs as many key/value heads as heads");
    const int group = H / Hkv, ld = at == HeadsAt::tokens ? H * hs : hs;
    S* datt = scratch;
    ProfileLap lap;  // per head: each matmul of the backward and the softmax backward (profile.hpp)
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            const std::size_t qh = head_offset(at, b, h, H, T, hs), kv = head_offset(at, b, h / group, Hkv, T, hs);
            const S* att_bh = att + (b * H + h) * T * T;
            if (b * H + h + 1 < B * H) prefetch_bytes(att_bh + T * T, sizeof(S) * T * T, false);
            const S* dy_bh = dy + qh;
            const S* q_bh = q + qh;
            // forward was: y = att v; so datt = dy vᵀ and dv += attᵀ dy (the group's first head: dv = attᵀ dy)
            lap("datt = dy vT");
            matmul_nt_causal(datt, dy_bh, ld, v + kv, ld, T, hs);
            lap("dv += attT dy");
            matmul_tn_causal(dv + kv, att_bh, dy_bh, T, hs, ld, h % group != 0);
            // forward was: att[t,:] = softmax(pre[t,:]) over s <= t; so
            //   dpre[t,s] = att[t,s] (datt[t,s] - Σ_s' att[t,s'] datt[t,s']), with the scale of pre folded in
            lap("softmax+mask backward");
            softmax_causal_backward(datt, att_bh, T, scale);
            // forward was: pre = scale q kᵀ; so dq = dpre k and dk += dpreᵀ q
            lap("dq += dpre k");
            matmul_nn_causal(dq + qh, datt, k + kv, T, hs, ld, false);
            lap("dk += dpreT q");
            matmul_tn_causal(dk + kv, datt, q_bh, T, hs, ld, h % group != 0);
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
    throw_if_invalid(validate_heads(D, H));
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
    attention_forward(yh.data(), r.att.data(), qh.data(), kh.data(), vh.data(), B, H, H, T, hs,
                      S(1) / std::sqrt(S(hs)));
    merge_heads(y.data(), yh.data(), B, T, H, hs, order);
    matmul_nt(r.out.data(), y.data(), w.wo.data(), w.bo.data(), BT, D, D, false);
    return r;
}

}  // namespace mha
