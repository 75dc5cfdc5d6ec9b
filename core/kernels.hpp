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
// out (M,N) [+]= a (K,M)ᵀ · b (K,N)
template <class T>
inline void matmul_tn(T* out, const T* a, const T* b, int M, int N, int K, bool accumulate) {
    kern::matmul_tn(out, a, b, M, N, K, accumulate);
}

// out (N) = gelu(inp), tanh form
template <class T>
inline void gelu_forward(T* out, const T* inp, int N) {
    kern::gelu_forward(out, inp, N);
}
// dinp (N) += gelu'(inp) * dout
template <class T>
inline void gelu_backward(T* dinp, const T* inp, const T* dout, int N) {
    kern::gelu_backward(dinp, inp, dout, N);
}

// name of the instruction set the kernels were built for ("avx2", "sse2" = wasm SIMD128 under em++)
const char* simd_arch_name();

}  // namespace mha
