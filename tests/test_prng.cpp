// The PRNG: the same numbers on every target. Compared with values computed independently in Python
// (scripts/gen_prng_reference.py), bit for bit, so the native and the wasm build agree with each other.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "prng.hpp"
#include "test_util.hpp"

using namespace mha;

namespace {
double from_hex(const std::string& hex) {
    std::uint64_t bits = std::stoull(hex, nullptr, 16);
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}
}  // namespace

TEST_CASE("splitmix64 gives the published test vector", "[prng]") {
    // Vigna's splitmix64.c seeded with 1234567 (also java.util.SplittableRandom's test values)
    Rng r(1234567);
    CHECK(r.next_u64() == 6457827717110365317ULL);
    CHECK(r.next_u64() == 3203168211198807973ULL);
    CHECK(r.next_u64() == 9817491932198370423ULL);
}

TEST_CASE("integers, uniforms, normals and det_log match the Python reference bit for bit", "[prng]") {
    std::ifstream in(test::fixture_path("prng_reference.txt"));
    REQUIRE(in.good());
    std::string line;
    int checked = 0;
    // replay each (kind, seed) stream in order
    std::string cur_kind;
    std::uint64_t cur_seed = 0;
    Rng rng(0);
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ls(line);
        std::string kind, seed_s, index_s, value;
        ls >> kind >> seed_s >> index_s >> value;
        const std::uint64_t seed = std::stoull(seed_s);
        if (kind != cur_kind || seed != cur_seed) {
            cur_kind = kind;
            cur_seed = seed;
            rng = Rng(seed);
        }
        if (kind == "u64") {
            CHECK(rng.next_u64() == std::stoull(value));
        } else if (kind == "uniform") {
            CHECK(static_cast<double>(rng.uniform()) == from_hex(value));
        } else if (kind == "normal") {
            const double got = rng.normal(), want = from_hex(value);
            CHECK(std::memcmp(&got, &want, sizeof got) == 0);
        } else if (kind == "log") {
            std::string out;
            ls >> out;
            const double got = det_log(from_hex(value)), want = from_hex(out);
            CHECK(std::memcmp(&got, &want, sizeof got) == 0);
        }
        ++checked;
    }
    CHECK(checked > 100);
}

TEST_CASE("det_log is within 2 ulp-ish of the true logarithm", "[prng]") {
    for (double x = 1e-300; x < 1e300; x *= 7.31) {
        const double want = std::log(x);
        CHECK(std::abs(det_log(x) - want) <= 4e-16 * std::max(1.0, std::abs(want)));
    }
}

TEST_CASE("uniforms lie in 0 <= u < 1 and normals have mean 0 and variance 1", "[prng]") {
    Rng r(42);
    double sum = 0, sum2 = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
        const float u = r.uniform();
        REQUIRE(u >= 0.0f);
        REQUIRE(u < 1.0f);
    }
    for (int i = 0; i < n; ++i) {
        const double z = r.normal();
        sum += z;
        sum2 += z * z;
    }
    const double mean = sum / n, var = sum2 / n - mean * mean;
    // standard errors: mean 1/sqrt(n) = 0.0022, variance sqrt(2/n) = 0.0032; allow 5 sigma
    CHECK(std::abs(mean) < 0.011);
    CHECK(std::abs(var - 1.0) < 0.016);
    for (std::uint32_t n_below : {1u, 2u, 7u, 65u}) {
        for (int i = 0; i < 1000; ++i) REQUIRE(r.below(n_below) < n_below);
    }
}
