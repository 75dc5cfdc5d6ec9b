// The project's own random numbers: identical on every target (g++ natively, em++ in wasm), because
// std:: distributions and libm's log/cos are not. See Vigna, "splitmix64" (the xoroshiro seeder):
// https://prng.di.unimi.it/splitmix64.c — 64-bit state, passes BigCrush, one add and two multiplies.
#pragma once
#include <cstdint>

namespace mha {

// ln(x) for finite x > 0 with only +,-,*,/ and frexp, all exactly rounded in IEEE 754, so the same bits
// everywhere (libm's log may differ by an ulp between glibc and musl). Relative error < 1e-15.
double det_log(double x);

class Rng {
public:
    explicit Rng(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next_u64() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    std::uint32_t next_u32() { return static_cast<std::uint32_t>(next_u64() >> 32); }
    // uniform in [0, 1) with 24 random bits: every value exactly representable as float
    float uniform() { return static_cast<float>(next_u64() >> 40) * (1.0f / 16777216.0f); }
    // uniform in [0, 1) with 53 random bits
    double uniform_double() { return static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0); }
    // integer in [0, n) for n >= 1 (Lemire's multiply-shift; the bias is below 2^-32 for our n)
    std::uint32_t below(std::uint32_t n) {
        return static_cast<std::uint32_t>((static_cast<std::uint64_t>(next_u32()) * n) >> 32);
    }
    // standard normal by Marsaglia's polar method; the second value of each pair is kept for the next call
    double normal();

    // the whole generator state (a checkpoint stores it to continue a run bit-identically)
    std::uint64_t state() const { return state_; }
    void set_state(std::uint64_t s) { state_ = s; has_spare_ = false; }

private:
    std::uint64_t state_;
    double spare_ = 0.0;
    bool has_spare_ = false;
};

}  // namespace mha
