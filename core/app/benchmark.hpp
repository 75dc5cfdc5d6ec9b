// Measurements for scripts/bench, the same code natively, in wasm under node and in a Chromium worker:
// the machine's single-core SIMD ceiling, the matmul kernels' GFLOP/s on the reference workload's shapes,
// training steps of "tiny-char" (ms, achieved GFLOP/s and share of the ceiling) and a per-op profile of one step.
// Timings are printed figures, never pass/fail tests.
//
// Counting rule for every GFLOP/s figure: a multiply-add is 2 flops (a native FMA = 2 flops per lane; a wasm
// f32x4.mul followed by an f32x4.add = 2 flops per lane; a lone multiply or add = 1 flop per lane).
#pragma once
#include <string>
#include <vector>

#include "config.hpp"
#include "profile.hpp"
#include "train.hpp"

namespace mha {

// JSON text: {"simd", "peak_gflops", "peak": {...}, "matmuls": [...], "training": [...], "profile": {...},
// "variants": [...]}. quick = true runs shorter loops (for a smoke test of the benchmark itself); the profile is of
// a step with profile_heads heads (a divisor of D = 64).
std::string run_benchmarks(bool quick, int profile_heads = 4);

// The matmul flops of one training step (forward + backward; AdamW, LayerNorm, softmax, GELU and the rest are
// elementwise and not counted), for the canonical layout with `kv_heads()` K/V heads, B sequences of T tokens:
//   forward, per token:  2·(L·(D·(D + 2·Dkv) + D·D + [mlp] 8·D²) + V·D)    the weights: qkv, out-proj, MLP, lm_head
//                      + L·2·2·T·D                                          q kᵀ and att·v over the FULL T×T square
//   step = 3 · B·T · forward-per-token                                      backward = 2× forward (dinp and dweight)
// With Dkv = D and the MLP this is 2·(L·12·D² + V·D) + L·4·T·D per token: 0.730 GFLOP for tiny-char
// (B=16, T=64, D=64, L=2, V=65). The full square is counted, as when the kernels computed it; the causal drivers
// (kernels.hpp matmul_*_causal) now skip the register blocks above the diagonal: with R-row blocks a product does
// T²/2 + R·T/2 of the T² (more where q kᵀ's columns round up), so for tiny-char they skip 41 to 47% of the attention
// part (R = 8 with AVX-512: 43.75%; 6 with AVX2: 41–45%; 4 in wasm: 47%), 0.041 to 0.047 of the 0.73 GFLOP: a
// step's GFLOP/s and share of the ceiling overstate the work done by 6 to 7%. Kept so that the figures compare
// with every earlier one.
double training_step_flops(const ModelConfig& c, int B, int T);

// A per-op profile of training steps (profile.hpp's laps), and what the profiler costs.
struct StepProfile {
    struct Row {
        std::string op;    // lap path, e.g. "backward/qkv/dweight"
        double ms;         // per step (exclusive)
        double calls;      // per step
    };
    std::vector<Row> rows;       // the mean over the `steps` fastest profiled steps
    double step_ms = 0;          // their mean step time, measured around Trainer::step
    double unattributed_ms = 0;  // step_ms - Σ rows.ms: what no lap covered
    int steps = 0;               // how many profiled steps the rows average (the faster half)
    double step_ms_on = 0;       // median profiled step
    double step_ms_off = 0;      // median unprofiled step, interleaved with the profiled ones: the overhead is
                                 // step_ms_on / step_ms_off - 1
};

// runs 2·`pairs` training steps of `trainer`, alternately without and with profiling; the profile is the mean over
// the faster half of the profiled ones (a step the scheduler interrupted would charge its pause to one op)
StepProfile profile_training_steps(Trainer& trainer, int pairs);

}  // namespace mha
