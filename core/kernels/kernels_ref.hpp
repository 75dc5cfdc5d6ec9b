// Scalar reference kernels: the plain loops every fast kernel in kernels_simd.hpp is tested against.
// Row-major everywhere. Kept even where nothing calls them at run time (house style rule 4).
#pragma once
#include <cmath>
#include <cstddef>

namespace mha {

// What a backward kernel does with the gradient it computes for its input, dinp. llm.c's convention, and the
// default: ADD it (dinp += ...), so that a tensor read by two layers receives both contributions, and the model
// zeroes the buffer once per step. The first writer of a buffer may WRITE it instead (dinp = ...): that spares the
// zeroing pass and the read of the old value. Weight and bias gradients always accumulate.
enum class Dinp { add, write };

}  // namespace mha

namespace mha::ref {

// out (M,N) [+]= a (M,K) · b (N,K)ᵀ + bias (N)   (a Linear layer: b is the weight in (out,in) layout)
// bias may be null; accumulate adds onto out instead of overwriting it.
template <class T>
void matmul_nt(T* out, const T* a, const T* b, const T* bias, int M, int N, int K, bool accumulate) {
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            T s = bias ? bias[n] : T(0);
            for (int k = 0; k < K; ++k) s += a[m * K + k] * b[n * K + k];
            out[m * N + n] = accumulate ? out[m * N + n] + s : s;
        }
}

// out (M,N) [+]= a (M,K) · b (K,N)      (backward of a Linear w.r.t. its input: dout · W)
template <class T>
void matmul_nn(T* out, const T* a, const T* b, int M, int N, int K, bool accumulate) {
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            T s = T(0);
            for (int k = 0; k < K; ++k) s += a[m * K + k] * b[k * N + n];
            out[m * N + n] = accumulate ? out[m * N + n] + s : s;
        }
}

// out (M,N) = (a (M,K) · b (K,N)) ⊙ factor (M,N)   (a Linear's dinp times the saved gelu' of its input)
template <class T>
void matmul_nn_times(T* out, const T* factor, const T* a, const T* b, int M, int N, int K) {
    matmul_nn(out, a, b, M, N, K, false);
    for (std::size_t i = 0; i < std::size_t(M) * N; ++i) out[i] = factor[i] * out[i];
}

// out (M,N) [+]= a (K,M)ᵀ · b (K,N)     (backward of a Linear w.r.t. its weight: doutᵀ · inp)
template <class T>
void matmul_tn(T* out, const T* a, const T* b, int M, int N, int K, bool accumulate) {
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            T s = T(0);
            for (int k = 0; k < K; ++k) s += a[k * M + m] * b[k * N + n];
            out[m * N + n] = accumulate ? out[m * N + n] + s : s;
        }
}

// colsum (M) += Σ_k a[k,:] for a (K,M), k in order (a Linear's dbias from dout)
template <class T>
void column_sum_add(T* colsum, const T* a, int K, int M) {
    for (int k = 0; k < K; ++k)
        for (int m = 0; m < M; ++m) colsum[m] += a[std::size_t(k) * M + m];
}

// matmul_tn, and colsum (M) += Σ_k a[k,:] when colsum is not null (dweight and dbias of a Linear in one call)
template <class T>
constexpr bool tn_colsum_one_pass() {
    return false;  // two passes over a
}
template <class T>
void matmul_tn_colsum(T* out, T* colsum, const T* a, const T* b, int M, int N, int K, bool accumulate) {
    matmul_tn(out, a, b, M, N, K, accumulate);
    if (colsum) column_sum_add(colsum, a, K, M);
}

// The products of causal attention, on their lower triangles only (rows t, columns s <= t).
// The (T,K) and (T,N) operands may be rows of a wider buffer: lda, ldb, ld are their row strides.
// out (T,T): out[t,s] = Σ_k a[t,k] b[s,k] for s <= t (q kᵀ, dy vᵀ); entries above the diagonal are not written
template <class S>
void matmul_nt_causal(S* out, const S* a, int lda, const S* b, int ldb, int T, int K) {
    for (int t = 0; t < T; ++t)
        for (int s = 0; s <= t; ++s) {
            S sum = S(0);
            for (int k = 0; k < K; ++k) sum += a[t * lda + k] * b[s * ldb + k];
            out[t * T + s] = sum;
        }
}

// out (T,N) [+]= a (T,T) · b (T,N) with a taken as zero above the diagonal: out[t] = Σ_{s<=t} a[t,s] b[s] (att v)
template <class S>
void matmul_nn_causal(S* out, const S* a, const S* b, int T, int N, int ld, bool accumulate) {
    for (int t = 0; t < T; ++t)
        for (int n = 0; n < N; ++n) {
            S sum = S(0);
            for (int s = 0; s <= t; ++s) sum += a[t * T + s] * b[s * ld + n];
            out[t * ld + n] = accumulate ? out[t * ld + n] + sum : sum;
        }
}

// out (T,N) [+]= a (T,T)ᵀ · b (T,N) with a taken as zero above the diagonal: out[s] = Σ_{t>=s} a[t,s] b[t]
// (dv += attᵀ dy)
template <class S>
void matmul_tn_causal(S* out, const S* a, const S* b, int T, int N, int ld, bool accumulate) {
    for (int s = 0; s < T; ++s)
        for (int n = 0; n < N; ++n) {
            S sum = S(0);
            for (int t = s; t < T; ++t) sum += a[t * T + s] * b[t * ld + n];
            out[s * ld + n] = accumulate ? out[s * ld + n] + sum : sum;
        }
}

// GELU, tanh form (https://pytorch.org/docs/stable/generated/torch.nn.GELU.html, approximate='tanh'):
// out (N) = 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3)
template <class T>
void gelu_forward(T* out, const T* inp, int N) {
    const T k = T(0.7978845608028654);  // sqrt(2/pi)
    for (int i = 0; i < N; ++i) {
        const T x = inp[i];
        out[i] = T(0.5) * x * (T(1) + std::tanh(k * (x + T(0.044715) * x * x * x)));
    }
}

// gelu'(x) of the tanh form: 0.5 (1 + tanh u) + 0.5 x (1 - tanh² u) k (1 + 3·0.044715 x²)
template <class T>
T gelu_grad(T x) {
    const T k = T(0.7978845608028654);
    const T th = std::tanh(k * (x + T(0.044715) * x * x * x));
    return T(0.5) * (T(1) + th) + T(0.5) * x * (T(1) - th * th) * k * (T(1) + T(3 * 0.044715) * x * x);
}

// forward was: out = 0.5 x (1 + tanh u); so dinp [+]= dout gelu'(inp) (mode: add or write dinp, see Dinp).
// The textbook backward, from inp: the tests hold the training step's pair (below) to it.
template <class T>
void gelu_backward(T* dinp, const T* inp, const T* dout, int N, Dinp mode) {
    for (int i = 0; i < N; ++i) {
        const T g = gelu_grad(inp[i]) * dout[i];
        dinp[i] = mode == Dinp::add ? dinp[i] + g : g;
    }
}

// The training step's pair: out (N) = gelu(inp) and grad (N) = gelu'(inp), kept for the backward, which is then one
// multiply: dinp [+]= grad * dout (gelu_backward_saved). The derivative shares the forward's exp or tanh, where
// gelu_backward computes it again from inp.
template <class T>
void gelu_forward_keep_grad(T* out, T* grad, const T* inp, int N) {
    gelu_forward(out, inp, N);
    for (int i = 0; i < N; ++i) grad[i] = gelu_grad(inp[i]);
}
template <class T>
void gelu_backward_saved(T* dinp, const T* grad, const T* dout, int N, Dinp mode) {
    for (int i = 0; i < N; ++i) dinp[i] = mode == Dinp::add ? dinp[i] + grad[i] * dout[i] : grad[i] * dout[i];
}

// LayerNorm over the last dim (biased variance, eps 1e-5)
// out (N,C), mean (N), rstd (N), inp (N,C), weight (C), bias (C)
template <class S>
void layernorm_forward(S* out, S* mean, S* rstd, const S* inp, const S* weight, const S* bias, int N, int C) {
    const S eps = S(1e-5);
    for (int n = 0; n < N; ++n) {
        const S* x = inp + n * C;
        S m = 0;
        for (int i = 0; i < C; ++i) m += x[i];
        m /= C;
        S var = 0;
        for (int i = 0; i < C; ++i) var += (x[i] - m) * (x[i] - m);
        var /= C;
        const S s = S(1) / std::sqrt(var + eps);
        S* o = out + n * C;
        for (int i = 0; i < C; ++i) o[i] = (x[i] - m) * s * weight[i] + bias[i];
        mean[n] = m;
        rstd[n] = s;
    }
}

// forward was: norm = (x - mean) * rstd; out = norm * weight + bias; so:
//   dbias += dout, dweight += norm * dout, and with dnorm = dout * weight,
//   dx [+]= rstd * (dnorm - mean(dnorm) - norm * mean(dnorm * norm))   (mode: add or write dx, see Dinp)
template <class S>
void layernorm_backward(S* dinp, S* dweight, S* dbias, const S* dout, const S* inp, const S* weight,
                        const S* mean, const S* rstd, int N, int C, Dinp mode) {
    for (int n = 0; n < N; ++n) {
        const S* x = inp + n * C;
        const S* dy = dout + n * C;
        S* dx = dinp + n * C;
        const S m = mean[n], s = rstd[n];
        S dnorm_mean = 0, dnorm_norm_mean = 0;
        for (int i = 0; i < C; ++i) {
            const S norm = (x[i] - m) * s;
            const S dnorm = weight[i] * dy[i];
            dnorm_mean += dnorm;
            dnorm_norm_mean += dnorm * norm;
        }
        dnorm_mean /= C;
        dnorm_norm_mean /= C;
        for (int i = 0; i < C; ++i) {
            const S norm = (x[i] - m) * s;
            const S dnorm = weight[i] * dy[i];
            dbias[i] += dy[i];
            dweight[i] += norm * dy[i];
            const S g = (dnorm - dnorm_mean - norm * dnorm_norm_mean) * s;
            dx[i] = mode == Dinp::add ? dx[i] + g : g;
        }
    }
}

// x (n) ← exp(x − shift); returns Σ x. The heart of every softmax (shift = the row's max: no overflow).
template <class S>
S exp_shift_sum(S* x, int n, S shift) {
    S sum = 0;
    for (int i = 0; i < n; ++i) sum += (x[i] = std::exp(x[i] - shift));
    return sum;
}

// One causal softmax row of length T: x[s] ← softmax_s(scale·x[s]) over s < n, and exactly 0 for n <= s < T
// (the masked future). The max is subtracted before exp: no overflow.
template <class S>
void softmax_causal_row(S* x, int n, int T, S scale) {
    S maxval = -INFINITY;
    for (int s = 0; s < n; ++s) {
        x[s] *= scale;
        if (x[s] > maxval) maxval = x[s];
    }
    const S inv = S(1) / exp_shift_sum(x, n, maxval);
    for (int s = 0; s < n; ++s) x[s] *= inv;
    for (int s = n; s < T; ++s) x[s] = 0;
}

// a head's (T,T) scores, row t with its t + 1 live entries (the causal mask): x[t,:] ← softmax_causal_row
template <class S>
void softmax_causal(S* x, int T, S scale) {
    for (int t = 0; t < T; ++t) softmax_causal_row(x + std::size_t(t) * T, t + 1, T, scale);
}

// its backward for one row: forward was att = softmax(scale·pre) over s < n; so, with d = d(att) coming in,
//   d[s] ← scale · att[s] (d[s] − Σ_s' att[s'] d[s'])  for s < n,  and 0 for n <= s < T
template <class S>
void softmax_causal_row_backward(S* d, const S* att, int n, int T, S scale) {
    S dot = 0;
    for (int s = 0; s < n; ++s) dot += att[s] * d[s];
    for (int s = 0; s < n; ++s) d[s] = scale * att[s] * (d[s] - dot);
    for (int s = n; s < T; ++s) d[s] = 0;
}

// a head's (T,T): row t ← softmax_causal_row_backward(d + t*T, att + t*T, t + 1, T, scale). Above the diagonal d
// is not read (the causal score products leave it unwritten) and ends 0.
template <class S>
void softmax_causal_backward(S* d, const S* att, int T, S scale) {
    for (int t = 0; t < T; ++t) softmax_causal_row_backward(d + std::size_t(t) * T, att + std::size_t(t) * T, t + 1, T, scale);
}

// AdamW on n elements (t counts from 1), PyTorch's update in this order:
//   p ← p·decay;  m ← β1 m + (1−β1) g;  v ← β2 v + (1−β2) g²;  p ← p − step · m / (sqrt(v)·inv_sqrt_bc2 + eps)
// decay = 1 − lr·wd, step = lr / (1 − β1^t), inv_sqrt_bc2 = 1 / sqrt(1 − β2^t) (computed by the caller in double)
template <class S>
void adamw(S* p, const S* g, S* m, S* v, std::size_t n, S b1, S b2, S eps, S decay, S step, S inv_sqrt_bc2) {
    for (std::size_t i = 0; i < n; ++i) {
        m[i] = b1 * m[i] + (S(1) - b1) * g[i];
        v[i] = b2 * v[i] + (S(1) - b2) * g[i] * g[i];
        p[i] = p[i] * decay - step * m[i] / (std::sqrt(v[i]) * inv_sqrt_bc2 + eps);
    }
}

}  // namespace mha::ref
