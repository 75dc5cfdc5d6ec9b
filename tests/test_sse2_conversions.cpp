// The SSE2 float → int32 conversions, against x86's definition: natively this checks the hardware instructions;
// in the WebAssembly build it checks core/wasm_sse2/emmintrin.h, which replaces Emscripten's lane-by-lane lrint()
// versions with wasm SIMD ones. The same expectations must hold for both: that is the point of the replacement.
//   _mm_cvtps_epi32:  round to nearest, ties to even (the default rounding mode)
//   _mm_cvttps_epi32: truncate toward zero
//   both: NaN and values outside [-2^31, 2^31) give 0x80000000, the "integer indefinite"
#include <catch2/catch.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace {

struct Lanes {
    std::int32_t v[4];
};

Lanes lanes(__m128i m) {
    Lanes out;
    std::memcpy(out.v, &m, sizeof out.v);
    return out;
}

constexpr std::int32_t kIndefinite = std::numeric_limits<std::int32_t>::min();  // 0x80000000

// four lanes in, four expected per conversion
void check(const float (&in)[4], const std::int32_t (&rounded)[4], const std::int32_t (&truncated)[4]) {
    const __m128 x = _mm_setr_ps(in[0], in[1], in[2], in[3]);
    const Lanes r = lanes(_mm_cvtps_epi32(x)), t = lanes(_mm_cvttps_epi32(x));
    for (int i = 0; i < 4; ++i) {
        INFO("lane " << i << ": " << in[i]);
        CHECK(r.v[i] == rounded[i]);
        CHECK(t.v[i] == truncated[i]);
    }
}

}  // namespace

TEST_CASE("SSE2 float to int32 conversions follow x86: ties to even, truncation, 0x80000000 out of range",
          "[kernels][sse2]") {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    SECTION("ties go to the even neighbour; truncation goes toward zero") {
        check({0.5f, 1.5f, 2.5f, -2.5f}, {0, 2, 2, -2}, {0, 1, 2, -2});
        check({-0.5f, -1.5f, 3.7f, -3.7f}, {0, -2, 4, -4}, {0, -1, 3, -3});
        check({0.0f, -0.0f, 1.0f, -1.0f}, {0, 0, 1, -1}, {0, 0, 1, -1});
    }
    SECTION("the largest floats that fit, and -2^31 itself") {
        // 2147483520 = 2^31 - 128, the largest float below 2^31; -2^31 is exactly representable and in range;
        // 4194305.5 = 2^22 + 1.5 (floats there are 0.5 apart): a tie, to the even 4194306
        check({2147483520.0f, -2147483520.0f, -2147483648.0f, 4194305.5f},
              {2147483520, -2147483520, kIndefinite, 4194306}, {2147483520, -2147483520, kIndefinite, 4194305});
    }
    SECTION("out of range and NaN give the integer indefinite") {
        check({2147483648.0f, -2147483904.0f, 1e10f, -1e10f}, {kIndefinite, kIndefinite, kIndefinite, kIndefinite},
              {kIndefinite, kIndefinite, kIndefinite, kIndefinite});
        check({nan, -nan, inf, -inf}, {kIndefinite, kIndefinite, kIndefinite, kIndefinite},
              {kIndefinite, kIndefinite, kIndefinite, kIndefinite});
    }
}
#endif
