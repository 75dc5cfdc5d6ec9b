// The benchmark for a Chromium Web Worker: mha::run_benchmarks() exported to JS as runBenchmarks(quick).
// bench_worker.mjs imports the module in a worker (where the page trains, so that is what we measure);
// scripts/bench_chromium.mjs opens bench.html in headless Chromium and prints the JSON.
#include <emscripten/bind.h>

#include <exception>
#include <string>

#include "benchmark.hpp"

namespace {

// a JSON string literal for an error message (quotes, backslashes and control characters escaped)
std::string json_quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\', out += c;
        else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
        else out += c;
    }
    return out + "\"";
}

// never lets a C++ exception escape into JS (house style 9): a failure comes back as {"error": "..."}
std::string run_benchmarks_js(bool quick) {
    try {
        return mha::run_benchmarks(quick);
    } catch (const std::exception& e) {
        return "{\"error\":" + json_quote(e.what()) + "}";
    } catch (...) {
        return "{\"error\":\"unknown C++ exception\"}";
    }
}

}  // namespace

EMSCRIPTEN_BINDINGS(mha_bench_web) {
    // runBenchmarks(quick: boolean) -> string, the JSON of mha::run_benchmarks (see core/benchmark.hpp)
    emscripten::function("runBenchmarks", &run_benchmarks_js);
}
