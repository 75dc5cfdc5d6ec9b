// Scalar reference kernels: the plain loops every fast kernel in kernels_simd.hpp is tested against.
// Row-major everywhere. Kept even where nothing calls them at run time (house style rule 4).
#pragma once
#include <cmath>

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

// forward was: out = 0.5 x (1 + tanh u); so dinp += dout (0.5 (1 + tanh u) + 0.5 x (1 - tanh² u) k (1 + 3·0.044715 x²))
template <class T>
void gelu_backward(T* dinp, const T* inp, const T* dout, int N) {
    const T k = T(0.7978845608028654);
    for (int i = 0; i < N; ++i) {
        const T x = inp[i];
        const T th = std::tanh(k * (x + T(0.044715) * x * x * x));
        const T grad = T(0.5) * (T(1) + th) + T(0.5) * x * (T(1) - th * th) * k * (T(1) + T(3 * 0.044715) * x * x);
        dinp[i] += grad * dout[i];
    }
}

}  // namespace mha::ref
