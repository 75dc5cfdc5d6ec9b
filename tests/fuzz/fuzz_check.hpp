// What the fuzz targets share: a check that crashes (so libFuzzer keeps the input), and the settings of the
// tiny runs they build.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

#include "run_settings.hpp"

// a property of the core that must hold for every input; a violation is a finding, like a sanitizer report
#define FUZZ_CHECK(cond, what)                                                                \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed: %s\n", __FILE__, __LINE__, #cond, \
                         std::string(what).c_str());                                          \
            std::abort();                                                                     \
        }                                                                                     \
    } while (0)

namespace mha::fuzz {

// a schedule that keeps one execution to milliseconds: batches of 2, one evaluation batch; steps at the limit so
// that any step a checkpoint may carry is within the schedule
inline RunSettings tiny_settings() {
    RunSettings s;
    s.d_model = 8, s.n_heads = 2, s.n_kv_heads = 0, s.n_layers = 1, s.context = 8, s.mlp = true;
    s.task = "char";
    s.batch = 2, s.steps = TrainLimits::max_steps, s.warmup = 2, s.lr = 3e-3, s.min_lr = 3e-4, s.seed = 1;
    s.eval_batches = 1;
    return s;
}

}  // namespace mha::fuzz
