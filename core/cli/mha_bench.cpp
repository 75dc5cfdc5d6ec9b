// mha-bench: prints the benchmark figures as JSON (natively, or as wasm under node). scripts/bench runs it on
// every platform and prints the table. `mha-bench --quick` runs short loops; `--profile-heads H` profiles a step
// with H heads instead of 4 (H divides D = 64).
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "benchmark.hpp"

int main(int argc, char** argv) {
    bool quick = false;
    int profile_heads = 4;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (std::strcmp(argv[i], "--profile-heads") == 0 && i + 1 < argc) {
            profile_heads = std::atoi(argv[++i]);
            if (profile_heads < 1 || profile_heads > 64 || 64 % profile_heads != 0) {
                std::cerr << "mha-bench: --profile-heads takes a number of heads that divides 64 (1, 2, 4, ... 64)\n";
                return 2;
            }
        } else {
            std::cerr << "usage: mha-bench [--quick] [--profile-heads H]\n";
            return 2;
        }
    }
    std::cout << mha::run_benchmarks(quick, profile_heads) << "\n";
    return 0;
}
