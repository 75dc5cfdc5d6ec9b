// The kernels the layers call: the xsimd version where the target has SIMD, else the scalar reference.
// Templated on the scalar so that the float64 gradient checks run the very same code paths.
#pragma once
#include "kernels_ref.hpp"
#include "kernels_simd.hpp"

namespace mha {

#if defined(MHA_HAVE_SIMD)
namespace kern = simd;
#else
namespace kern = ref;
#endif

// out (M,N) [+]= a (M,K) · b (N,K)ᵀ + bias (N)
template <class T>
inline void matmul_nt(T* out, const T* a, const T* b, const T* bias, int M, int N, int K, bool accumulate) {
    kern::matmul_nt(out, a, b, bias, M, N, K, accumulate);
}
// out (M,N) [+]= a (M,K) · b (K,N)
template <class T>
inline void matmul_nn(T* out, const T* a, const T* b, int M, int N, int K, bool accumulate) {
    kern::matmul_nn(out, a, b, M, N, K, accumulate);
}
// out (M,N) = (a (M,K) · b (K,N)) ⊙ factor (M,N), element by element (see simd::matmul_nn_times)
template <class T>
inline void matmul_nn_times(T* out, const T* factor, const T* a, const T* b, int M, int N, int K) {
    kern::matmul_nn_times(out, factor, a, b, M, N, K);
}
// out (M,N) [+]= a (K,M)ᵀ · b (K,N)
template <class T>
inline void matmul_tn(T* out, const T* a, const T* b, int M, int N, int K, bool accumulate) {
    kern::matmul_tn(out, a, b, M, N, K, accumulate);
}
// the same, and colsum (M) += Σ_k a[k,:] when colsum is not null: a Linear's dweight and dbias from its dout;
// tn_colsum_one_pass says whether this build does both in one pass over a (else the product, then the sum)
template <class T>
constexpr bool tn_colsum_one_pass() {
    return kern::tn_colsum_one_pass<T>();
}
template <class T>
inline void matmul_tn_colsum(T* out, T* colsum, const T* a, const T* b, int M, int N, int K, bool accumulate) {
    kern::matmul_tn_colsum(out, colsum, a, b, M, N, K, accumulate);
}
template <class T>
inline void column_sum_add(T* colsum, const T* a, int K, int M) {
    ref::column_sum_add(colsum, a, K, M);
}

// causal attention's products on their lower triangles (see ref::matmul_*_causal): out (T,T) = a (T,K) · b (T,K)ᵀ
// for s <= t; out (T,N) [+]= a (T,T) · b (T,N) and a (T,T)ᵀ · b (T,N) with a zero above the diagonal. The (T,K)
// and (T,N) operands' rows are lda, ldb, ld apart (K or N for a packed head, D for a head inside (B,T,D)).
template <class S>
inline void matmul_nt_causal(S* out, const S* a, int lda, const S* b, int ldb, int T, int K) {
    kern::matmul_nt_causal(out, a, lda, b, ldb, T, K);
}
template <class S>
inline void matmul_nn_causal(S* out, const S* a, const S* b, int T, int N, int ld, bool accumulate) {
    kern::matmul_nn_causal(out, a, b, T, N, ld, accumulate);
}
template <class S>
inline void matmul_tn_causal(S* out, const S* a, const S* b, int T, int N, int ld, bool accumulate) {
    kern::matmul_tn_causal(out, a, b, T, N, ld, accumulate);
}

// out (N) = gelu(inp), tanh form
template <class T>
inline void gelu_forward(T* out, const T* inp, int N) {
    kern::gelu_forward(out, inp, N);
}
// out (N) = gelu(inp) and grad (N) = gelu'(inp), kept for gelu_backward_saved: dinp (N) [+]= grad * dout
template <class T>
inline void gelu_forward_keep_grad(T* out, T* grad, const T* inp, int N) {
    kern::gelu_forward_keep_grad(out, grad, inp, N);
}
template <class T>
inline void gelu_backward_saved(T* dinp, const T* grad, const T* dout, int N, Dinp mode) {
    kern::gelu_backward_saved(dinp, grad, dout, N, mode);
}

// LayerNorm over the last dim: out (N,C), mean (N), rstd (N) from inp (N,C), weight (C), bias (C)
template <class S>
inline void layernorm_forward(S* out, S* mean, S* rstd, const S* inp, const S* weight, const S* bias, int N, int C) {
    kern::layernorm_forward(out, mean, rstd, inp, weight, bias, N, C);
}
// its backward: adds into dweight (C), dbias (C), and adds into or writes dinp (N,C) as mode says (see Dinp)
template <class S>
inline void layernorm_backward(S* dinp, S* dweight, S* dbias, const S* dout, const S* inp, const S* weight,
                               const S* mean, const S* rstd, int N, int C, Dinp mode) {
    kern::layernorm_backward(dinp, dweight, dbias, dout, inp, weight, mean, rstd, N, C, mode);
}
// x (n) ← exp(x − shift), returns the sum (softmax rows)
template <class S>
inline S exp_shift_sum(S* x, int n, S shift) {
    return kern::exp_shift_sum(x, n, shift);
}
// one causal softmax row (T): x[s] ← softmax(scale·x) over s < n, 0 for s >= n; and its backward (see ref::)
template <class S>
inline void softmax_causal_row(S* x, int n, int T, S scale) {
    kern::softmax_causal_row(x, n, T, scale);
}
// a head's (T,T) scores: row t ← softmax_causal_row(x + t*T, t + 1, T, scale), for scale > 0
template <class S>
inline void softmax_causal(S* x, int T, S scale) {
    kern::softmax_causal(x, T, scale);
}
template <class S>
inline void softmax_causal_row_backward(S* d, const S* att, int n, int T, S scale) {
    kern::softmax_causal_row_backward(d, att, n, T, scale);
}
// a head's (T,T): row t ← softmax_causal_row_backward(d + t*T, att + t*T, t + 1, T, scale); d above the diagonal
// is not read
template <class S>
inline void softmax_causal_backward(S* d, const S* att, int T, S scale) {
    kern::softmax_causal_backward(d, att, T, scale);
}
// one AdamW update of n elements (see ref::adamw for the formula and the precomputed factors)
template <class S>
inline void adamw(S* p, const S* g, S* m, S* v, std::size_t n, S b1, S b2, S eps, S decay, S step, S inv_sqrt_bc2) {
    kern::adamw(p, g, m, v, n, b1, b2, eps, decay, step, inv_sqrt_bc2);
}

// name of the instruction set the kernels were built for ("avx2", "sse2" = wasm SIMD128 under em++)
const char* simd_arch_name();

}  // namespace mha
