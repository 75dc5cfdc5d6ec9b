// mha-bench: prints the benchmark figures as JSON (natively, or as wasm under node). scripts/bench runs it on
// every platform and prints the table. `mha-bench --quick` runs short loops.
#include <cstring>
#include <iostream>

#include "benchmark.hpp"

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    std::cout << mha::run_benchmarks(quick) << "\n";
    return 0;
}
