#include "kernels.hpp"

#include <string>

namespace mha {

const char* simd_arch_name() {
#if defined(MHA_HAVE_SIMD)
#if defined(__EMSCRIPTEN__)
#if defined(__wasm_relaxed_simd__)
    static const std::string name = std::string("wasm-simd128 + relaxed_madd (xsimd ") + xsimd::default_arch::name() + ")";
#else
    static const std::string name = std::string("wasm-simd128 (xsimd ") + xsimd::default_arch::name() + ")";
#endif
    return name.c_str();
#else
    return xsimd::default_arch::name();
#endif
#else
    return "scalar";
#endif
}

}  // namespace mha
