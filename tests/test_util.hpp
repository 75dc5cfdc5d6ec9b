// Small helpers shared by the tests: fixture paths, random tensors, a max-abs-difference.
#pragma once
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "prng.hpp"

namespace mha::test {

// MHA_FIXTURE_DIR is set by tests/CMakeLists.txt; the wasm binary reads it through NODERAWFS
inline std::string fixture_path(const std::string& name) { return std::string(MHA_FIXTURE_DIR) + "/" + name; }

// the shipped corpus, public/data/corpus.txt
inline std::string corpus_path() { return fixture_path("../../public/data/corpus.txt"); }

// the whole file as bytes ("" if it cannot be read)
inline std::string read_text_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

template <class T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed, double std = 1.0) {
    Rng rng(seed);
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(rng.normal() * std);
    return v;
}

template <class A, class B>
double max_abs_diff(const A& a, const B& b) {
    double m = 0;
    auto ia = std::begin(a);
    for (auto ib = std::begin(b); ib != std::end(b); ++ia, ++ib) {
        const double d = std::abs(static_cast<double>(*ia) - static_cast<double>(*ib));
        if (std::isnan(d)) return INFINITY;  // std::max would drop a NaN: a NaN on either side is no agreement
        m = std::max(m, d);
    }
    return m;
}

}  // namespace mha::test
