// Scalar reference kernels: the plain loops every fast kernel in kernels_simd.hpp is tested against.
// Row-major everywhere. Kept even where nothing calls them at run time (house style rule 4).
#pragma once

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

}  // namespace mha::ref
