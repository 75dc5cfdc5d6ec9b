// What a checkpoint holds, in memory: the model's config and flat weights, the tokenizer's symbols, and optionally
// the training progress (AdamW moments, steps, the batch sampler's PRNG state) so a run continues bit-identically.
// The Trainer fills and reads it; io/checkpoint.hpp writes and reads it as a safetensors file.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config.hpp"

namespace mha {

struct CheckpointOptimizer {
    std::vector<float> m, v;           // (num_params) each, in the model's flat order
    int step = 0;                      // steps taken
    std::uint64_t data_rng_state = 0;  // the batch sampler's PRNG state
};

struct Checkpoint {
    ModelConfig config;
    std::vector<float> params;         // (num_params), flat, in parameter_table(config) order
    std::string vocab;                 // tokenizer symbols, "" if none
    std::string task;                  // JSON of the task the model was trained on (app/run.hpp task_json), "" if
                                       // the file does not say (the text's, or written elsewhere)
    bool has_optimizer = false;
    CheckpointOptimizer optimizer;
};

}  // namespace mha
