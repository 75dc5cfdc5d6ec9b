// Emscripten 3.1.6's SSE2 emulation, with its two float → int32 conversions done in wasm SIMD instead of lane by lane.
//
// Only the WebAssembly build puts this folder on the include path, ahead of Emscripten's own compat headers, so
// every #include <emmintrin.h> (xsimd's SSE2 path, which is what -msimd128 -msse2 compiles to wasm SIMD) lands here
// first. Emscripten implements _mm_cvtps_epi32 and _mm_cvttps_epi32 as a loop calling lrint() on each of the four
// lanes ("TODO: optimize" in its header). xsimd's exp calls _mm_cvttps_epi32 once per batch (to_int before its
// ldexp), and its tanh calls exp, so in wasm the softmax and the GELU ran 4-5x their native time while the matmuls
// ran 2x (scripts/bench, the per-op profile). The versions below give the same results as x86 does, including its
// "integer indefinite" 0x80000000 for NaN and out-of-range inputs, in four to five wasm SIMD instructions.
//
// The trick: the macros rename Emscripten's two functions while its header is read, then ours take the names.
#ifndef MHA_WASM_SSE2_EMMINTRIN_H
#define MHA_WASM_SSE2_EMMINTRIN_H

#define _mm_cvtps_epi32 mha_emscripten_lanewise_cvtps_epi32
#define _mm_cvttps_epi32 mha_emscripten_lanewise_cvttps_epi32
#include_next <emmintrin.h>
#undef _mm_cvtps_epi32
#undef _mm_cvttps_epi32

#include <wasm_simd128.h>

// x86 semantics: lanes that are NaN or outside [-2^31, 2^31) become 0x80000000; in range, the truncated value.
// wasm's saturating truncation already gives INT32_MIN below -2^31, so only NaN and >= 2^31 need the select.
static __inline__ __m128i __attribute__((__always_inline__, __nodebug__)) mha_x86_indefinite(v128_t converted,
                                                                                               v128_t rounded) {
    const v128_t in_range = wasm_f32x4_lt(wasm_f32x4_abs(rounded), wasm_f32x4_splat(2147483648.0f));
    return (__m128i)wasm_v128_bitselect(converted, wasm_i32x4_splat((int)0x80000000), in_range);
}

// round to nearest, ties to even (the default MXCSR rounding, as lrint() under the default mode)
static __inline__ __m128i __attribute__((__always_inline__, __nodebug__)) _mm_cvtps_epi32(__m128 a) {
    const v128_t rounded = wasm_f32x4_nearest((v128_t)a);
    return mha_x86_indefinite(wasm_i32x4_trunc_sat_f32x4(rounded), rounded);
}

// truncate toward zero
static __inline__ __m128i __attribute__((__always_inline__, __nodebug__)) _mm_cvttps_epi32(__m128 a) {
    return mha_x86_indefinite(wasm_i32x4_trunc_sat_f32x4((v128_t)a), (v128_t)a);
}

#endif
