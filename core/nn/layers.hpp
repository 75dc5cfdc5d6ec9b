// The GPT's layers as forward/backward pairs, templated on the scalar (float to train, double for the
// finite-difference checks). llm.c's conventions: every function starts with its shapes; backward functions
// ACCUMULATE (+=) into their gradients, and the model zeroes them once per step; nothing allocates. The one
// exception is named: a backward that takes a Dinp mode (kernels_ref.hpp) WRITES its input gradient when called
// with Dinp::write, which the model does where it is that buffer's first writer, and does not zero that buffer.
// Glossary: B batch, T time, C channels (= D), OC output channels, V vocabulary, BT = B*T rows.
#pragma once
#include <algorithm>
#include <cmath>

#include "profile.hpp"
#include "kernels.hpp"

namespace mha {

// ---------------------------------------------------------------- token + position embedding
// out (B,T,C) = wte[idx[b,t]] + wpe[t];  idx (B,T), wte (V,C), wpe (maxT,C)
template <class S>
void encoder_forward(S* out, const int* idx, const S* wte, const S* wpe, int B, int T, int C) {
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t) {
            S* out_bt = out + (b * T + t) * C;
            const S* wte_ix = wte + idx[b * T + t] * C;
            const S* wpe_t = wpe + t * C;
            for (int i = 0; i < C; ++i) out_bt[i] = wte_ix[i] + wpe_t[i];
        }
}

// forward was: out[b,t] = wte[idx[b,t]] + wpe[t]; so both rows receive dout[b,t]
template <class S>
void encoder_backward(S* dwte, S* dwpe, const S* dout, const int* idx, int B, int T, int C) {
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t) {
            const S* dout_bt = dout + (b * T + t) * C;
            S* dwte_ix = dwte + idx[b * T + t] * C;
            S* dwpe_t = dwpe + t * C;
            for (int i = 0; i < C; ++i) {
                dwte_ix[i] += dout_bt[i];
                dwpe_t[i] += dout_bt[i];
            }
        }
}

// ---------------------------------------------------------------- LayerNorm over the last dim
// https://pytorch.org/docs/stable/generated/torch.nn.LayerNorm.html (biased variance, eps 1e-5)
// forward: out (N,C), mean (N), rstd (N) from inp (N,C), weight (C), bias (C)
// backward (forward was: norm = (x - mean) * rstd; out = norm * weight + bias):
//   dbias += dout, dweight += norm * dout, dx += rstd * (dnorm - mean(dnorm) - norm * mean(dnorm * norm))
// Both are kernels (layernorm_forward, layernorm_backward in kernels.hpp): scalar twin and xsimd version.

// ---------------------------------------------------------------- Linear: y = x Wᵀ + b
// out (N,OC), inp (N,C), weight (OC,C), bias (OC) or null
template <class S>
void linear_forward(S* out, const S* inp, const S* weight, const S* bias, int N, int C, int OC) {
    ProfileLap lap("matmul");
    matmul_nt(out, inp, weight, bias, N, OC, C, false);
}

// forward was: out = inp · weightᵀ + bias; so:
//   dinp += dout · weight        (N,OC)·(OC,C)   (or dinp = ..., with mode Dinp::write)
//   dweight += doutᵀ · inp       (OC,N)·(N,C)
//   dbias += Σ_n dout
template <class S>
void linear_backward(S* dinp, S* dweight, S* dbias, const S* dout, const S* inp, const S* weight, int N, int C,
                     int OC, Dinp mode = Dinp::add) {
    ProfileLap lap;
    if (dinp) {
        lap("dinp");
        matmul_nn(dinp, dout, weight, N, C, OC, mode == Dinp::add);
    }
    if (dbias && tn_colsum_one_pass<S>()) {  // both in one pass over dout (wasm: kernels_simd.hpp matmul_tn_colsum)
        lap("dweight+dbias");
        matmul_tn_colsum(dweight, dbias, dout, inp, OC, C, N, true);
        return;
    }
    lap("dweight");
    matmul_tn(dweight, dout, inp, OC, C, N, true);
    lap("dbias");
    if (dbias) column_sum_add(dbias, dout, N, OC);
}

// linear_backward of a Linear whose input was gelu(pre), with GELU's backward in its dinp pass:
//   dpre = (dout · weight) ⊙ gelu'(pre)    (N,C), written; gelu_grad is gelu'(pre), kept by the forward
// and dweight, dbias as linear_backward. The same bits as linear_backward into d(gelu(pre)) and then
// gelu_backward_saved (matmul_nn_times), without d(gelu(pre)) written and read back. The GELU backward pass it
// removes was measured in the Chromium worker's H = 4 step (docs/experiments.md, "Speed of the kernels").
template <class S>
void linear_backward_into_gelu(S* dpre, const S* gelu_grad, S* dweight, S* dbias, const S* dout, const S* inp,
                               const S* weight, int N, int C, int OC) {
    {
        ProfileLap lap("dinp*gelu'");
        matmul_nn_times(dpre, gelu_grad, dout, weight, N, C, OC);
    }
    linear_backward(static_cast<S*>(nullptr), dweight, dbias, dout, inp, weight, N, C, OC);
}

// ---------------------------------------------------------------- GELU, tanh form
// out (N) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); the kernels are in kernels_ref.hpp / kernels_simd.hpp
// backward: dinp (N) [+]= gelu'(inp) * dout (a Dinp mode). The kernels (kernels.hpp): gelu_forward, and the
// training step's pair gelu_forward_keep_grad / gelu_backward_saved, where the forward keeps gelu'(inp) and the
// backward multiplies by it; the xsimd twins compute the same function as x·σ(2u), with one exp.

// ---------------------------------------------------------------- residual
// out (N) = a + b
template <class S>
void residual_forward(S* out, const S* a, const S* b, int N) {
    for (int i = 0; i < N; ++i) out[i] = a[i] + b[i];
}

// backward: forward was out = a + b, so da += dout and db += dout. The model runs no pass for it: the residual
// stream's gradient is one buffer that both branches read as their dout and add into (Gpt::backward).

// ---------------------------------------------------------------- softmax + cross-entropy
// probs (N,V) = softmax(logits), losses (N) = -log probs[target]; returns the mean loss.
// A target of -1 means "no loss at this position" (it is skipped and not counted in the mean).
// norm > 0: the sum is divided by norm instead of by this batch's count of targets: half a batch's share of the
// whole batch's mean (Trainer::step), norm being the whole batch's count.
template <class S>
S crossentropy_forward(S* probs, S* losses, const S* logits, const int* targets, int N, int V, int norm = 0) {
    S total = 0;
    int counted = 0;
    for (int n = 0; n < N; ++n) {
        const S* z = logits + n * V;
        S* p = probs + n * V;
        S mx = z[0];
        for (int i = 1; i < V; ++i) mx = z[i] > mx ? z[i] : mx;
        std::copy(z, z + V, p);
        const S sum = exp_shift_sum(p, V, mx);
        const S inv = S(1) / sum;
        for (int i = 0; i < V; ++i) p[i] *= inv;
        const int y = targets[n];
        if (y < 0) {
            losses[n] = 0;
            continue;
        }
        // -log p[y] computed from the logits (log-sum-exp), exact even when p[y] underflows to 0
        losses[n] = std::log(sum) - (z[y] - mx);
        total += losses[n];
        ++counted;
    }
    const int by = norm > 0 ? norm : counted;
    return by ? total / by : S(0);
}

// forward was: loss = mean_n (-log softmax(logits_n)[y_n]); so dlogits_n [+]= (probs_n - onehot(y_n)) / count,
// and 0 for a position without a target. mode: add into dlogits (N,V) or write it (see Dinp). norm > 0 divides
// by norm instead of the count, as forward.
template <class S>
void crossentropy_backward(S* dlogits, const S* probs, const int* targets, int N, int V, Dinp mode, int norm = 0) {
    int counted = 0;
    for (int n = 0; n < N; ++n) counted += targets[n] >= 0;
    const int by = norm > 0 ? norm : counted;
    const S scale = by ? S(1) / by : S(0);
    for (int n = 0; n < N; ++n) {
        const int y = targets[n];
        S* d = dlogits + n * V;
        if (y < 0) {
            if (mode == Dinp::write) std::fill(d, d + V, S(0));
            continue;
        }
        const S* p = probs + n * V;
        for (int i = 0; i < V; ++i) {
            const S g = (p[i] - (i == y ? S(1) : S(0))) * scale;
            d[i] = mode == Dinp::add ? d[i] + g : g;
        }
    }
}

}  // namespace mha
