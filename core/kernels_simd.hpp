// xsimd kernels (xsimd 8.1 dialect: batch<T> of the default arch, load_unaligned, fma, hadd, scalar
// tails). Natively the arch is what the compiler flags allow (AVX2+FMA by default); in wasm it is SSE2,
// which emscripten lowers to SIMD128. Each kernel has a twin in kernels_ref.hpp and a test that they agree
// for every tail size.
#pragma once
#include <vector>

#include <xsimd/xsimd.hpp>

#include "kernels_ref.hpp"

#if !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
#define MHA_HAVE_SIMD 1

namespace mha::simd {

// ---------------------------------------------------------------- a · bᵀ (dot products along K)
// One MR×NR block of out: MR rows of a against NR rows of b, MR*NR accumulators, one hadd each at the end.
template <class T, int MR, int NR>
inline void nt_block(T* out, const T* a, const T* b, const T* bias, int m, int n, int N, int K,
                     bool accumulate) {
    using batch = xsimd::batch<T>;
    constexpr int W = static_cast<int>(batch::size);
    const int k_vec = K - K % W;
    batch acc[MR][NR];
    for (int r = 0; r < MR; ++r)
        for (int c = 0; c < NR; ++c) acc[r][c] = batch(T(0));
    for (int k = 0; k < k_vec; k += W) {
        batch av[MR];
        for (int r = 0; r < MR; ++r) av[r] = batch::load_unaligned(a + (m + r) * K + k);
        for (int c = 0; c < NR; ++c) {
            batch bv = batch::load_unaligned(b + (n + c) * K + k);
            for (int r = 0; r < MR; ++r) acc[r][c] = xsimd::fma(av[r], bv, acc[r][c]);
        }
    }
    for (int r = 0; r < MR; ++r)
        for (int c = 0; c < NR; ++c) {
            T s = xsimd::hadd(acc[r][c]);
            for (int k = k_vec; k < K; ++k) s += a[(m + r) * K + k] * b[(n + c) * K + k];
            if (bias) s += bias[n + c];
            T& o = out[(m + r) * N + n + c];
            o = accumulate ? o + s : s;
        }
}

template <class T, int MR>
inline void nt_rows(T* out, const T* a, const T* b, const T* bias, int m, int N, int K, bool accumulate) {
    int n = 0;
    for (; n + 4 <= N; n += 4) nt_block<T, MR, 4>(out, a, b, bias, m, n, N, K, accumulate);
    for (; n < N; ++n) nt_block<T, MR, 1>(out, a, b, bias, m, n, N, K, accumulate);
}

// ---------------------------------------------------------------- A · b (broadcast-multiply along N)
// A is read through strides so one kernel serves a·b (a is (M,K): sam=K, sak=1) and aᵀ·b (a is (K,M):
// sam=1, sak=M). MR rows of out, NB batches of columns, accumulators stay in registers over all of K.
template <class T, int MR, int NB>
inline void nn_block(T* out, const T* a, int sam, int sak, const T* b, int m, int n, int N, int K,
                     bool accumulate) {
    using batch = xsimd::batch<T>;
    constexpr int W = static_cast<int>(batch::size);
    batch acc[MR][NB];
    for (int r = 0; r < MR; ++r)
        for (int j = 0; j < NB; ++j) acc[r][j] = batch(T(0));
    for (int k = 0; k < K; ++k) {
        batch bv[NB];
        for (int j = 0; j < NB; ++j) bv[j] = batch::load_unaligned(b + k * N + n + j * W);
        for (int r = 0; r < MR; ++r) {
            batch ar(a[(m + r) * sam + k * sak]);
            for (int j = 0; j < NB; ++j) acc[r][j] = xsimd::fma(ar, bv[j], acc[r][j]);
        }
    }
    for (int r = 0; r < MR; ++r)
        for (int j = 0; j < NB; ++j) {
            T* o = out + (m + r) * N + n + j * W;
            if (accumulate) acc[r][j] += batch::load_unaligned(o);
            acc[r][j].store_unaligned(o);
        }
}

template <class T, int MR>
inline void nn_rows(T* out, const T* a, int sam, int sak, const T* b, int m, int N, int K, bool accumulate) {
    constexpr int W = static_cast<int>(xsimd::batch<T>::size);
    int n = 0;
    for (; n + 2 * W <= N; n += 2 * W) nn_block<T, MR, 2>(out, a, sam, sak, b, m, n, N, K, accumulate);
    for (; n + W <= N; n += W) nn_block<T, MR, 1>(out, a, sam, sak, b, m, n, N, K, accumulate);
    for (; n < N; ++n)  // scalar tail columns
        for (int r = 0; r < MR; ++r) {
            T s = T(0);
            for (int k = 0; k < K; ++k) s += a[(m + r) * sam + k * sak] * b[k * N + n];
            T& o = out[(m + r) * N + n];
            o = accumulate ? o + s : s;
        }
}

template <class T>
void matmul_strided_a(T* out, const T* a, int sam, int sak, const T* b, int M, int N, int K, bool accumulate) {
    int m = 0;
    for (; m + 4 <= M; m += 4) nn_rows<T, 4>(out, a, sam, sak, b, m, N, K, accumulate);
    for (; m < M; ++m) nn_rows<T, 1>(out, a, sam, sak, b, m, N, K, accumulate);
}

// out (M,N) [+]= a (M,K) · b (K,N)
template <class T>
void matmul_nn(T* out, const T* a, const T* b, int M, int N, int K, bool accumulate) {
    matmul_strided_a(out, a, K, 1, b, M, N, K, accumulate);
}

// out (M,N) [+]= a (K,M)ᵀ · b (K,N)
template <class T>
void matmul_tn(T* out, const T* a, const T* b, int M, int N, int K, bool accumulate) {
    matmul_strided_a(out, a, 1, M, b, M, N, K, accumulate);
}

// ---------------------------------------------------------------- GELU (tanh form), twins of ref::gelu_*
template <class T>
void gelu_forward(T* out, const T* inp, int N) {
    using batch = xsimd::batch<T>;
    constexpr int W = static_cast<int>(batch::size);
    const batch k(T(0.7978845608028654)), c(T(0.044715)), half(T(0.5)), one(T(1));
    const int n_vec = N - N % W;
    for (int i = 0; i < n_vec; i += W) {
        const batch x = batch::load_unaligned(inp + i);
        const batch th = xsimd::tanh(k * xsimd::fma(c * x, x * x, x));
        (half * x * (one + th)).store_unaligned(out + i);
    }
    ref::gelu_forward(out + n_vec, inp + n_vec, N - n_vec);
}

template <class T>
void gelu_backward(T* dinp, const T* inp, const T* dout, int N) {
    using batch = xsimd::batch<T>;
    constexpr int W = static_cast<int>(batch::size);
    const batch k(T(0.7978845608028654)), c(T(0.044715)), c3(T(3 * 0.044715)), half(T(0.5)), one(T(1));
    const int n_vec = N - N % W;
    for (int i = 0; i < n_vec; i += W) {
        const batch x = batch::load_unaligned(inp + i);
        const batch x2 = x * x;
        const batch th = xsimd::tanh(k * xsimd::fma(c * x, x2, x));
        const batch grad = half * (one + th) + half * x * (one - th * th) * k * xsimd::fma(c3, x2, one);
        xsimd::fma(grad, batch::load_unaligned(dout + i), batch::load_unaligned(dinp + i)).store_unaligned(dinp + i);
    }
    ref::gelu_backward(dinp + n_vec, inp + n_vec, dout + n_vec, N - n_vec);
}

// ---------------------------------------------------------------- a · bᵀ through a packed bᵀ
// out (M,N) [+]= a (M,K) · b (N,K)ᵀ + bias (N); bias may be null.
// Packs bᵀ (K,N) once (O(NK), against O(MNK) of work) into a scratch buffer that only ever grows, then runs the
// broadcast-FMA kernel, which needs no horizontal sum per output (the dot-product form above does: nt_block).
template <class T>
void matmul_nt(T* out, const T* a, const T* b, const T* bias, int M, int N, int K, bool accumulate) {
    thread_local std::vector<T> packed;  // grows to the largest weight once, then no step allocates
    if (packed.size() < std::size_t(N) * K) packed.resize(std::size_t(N) * K);
    T* bt = packed.data();
    for (int n = 0; n < N; ++n)
        for (int k = 0; k < K; ++k) bt[k * N + n] = b[n * K + k];
    matmul_strided_a(out, a, K, 1, bt, M, N, K, accumulate);
    if (bias)
        for (int m = 0; m < M; ++m)
            for (int n = 0; n < N; ++n) out[m * N + n] += bias[n];
}

// the dot-product form: each output is one hadd of MR×NR accumulators; kept as the second twin to measure against
template <class T>
void matmul_nt_dot(T* out, const T* a, const T* b, const T* bias, int M, int N, int K, bool accumulate) {
    int m = 0;
    for (; m + 4 <= M; m += 4) nt_rows<T, 4>(out, a, b, bias, m, N, K, accumulate);
    for (; m < M; ++m) nt_rows<T, 1>(out, a, b, bias, m, N, K, accumulate);
}

}  // namespace mha::simd

#endif  // XSIMD_NO_SUPPORTED_ARCHITECTURE
