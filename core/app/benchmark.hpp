// Measurements for scripts/bench, the same code natively, in wasm under node and in a Chromium worker:
// the machine's single-core SIMD peak, the matmul kernels' GFLOP/s on the reference workload's shapes, and
// training steps of "tiny-char". Timings are printed figures, never pass/fail tests.
#pragma once
#include <string>

namespace mha {

// JSON text: {"simd": ..., "peak_gflops": ..., "matmuls": [...], "training": [...]}.
// quick = true runs shorter loops (for a smoke test of the benchmark itself).
std::string run_benchmarks(bool quick);

}  // namespace mha
