// Model checkpoints as safetensors files that PyTorch users load directly (safetensors.torch.load_file, or
// json + struct): one F32 tensor per parameter under its PyTorch name, the config in __metadata__.
// Optionally the AdamW moments ("adamw.m.<name>", "adamw.v.<name>") and the training progress, so a run saved
// at step k and loaded continues bit-identically.
//
// __metadata__ (all strings): "format" = "mha-sandbox/1", "config" = JSON of ModelConfig,
// "vocab" = the tokenizer's symbols as UTF-8 (optional), "train" = JSON {"step", "data_rng_state"} (optional),
// "task" = JSON of the task the model was trained on (optional; written and read by the app tier, run.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "checkpoint_state.hpp"
#include "config.hpp"

namespace mha {

constexpr const char* kCheckpointFormat = "mha-sandbox/1";
constexpr std::size_t kMaxCheckpointBytes = 256u << 20;  // a tiny model is < 10 MB; refuse anything absurd

std::string config_to_json(const ModelConfig& c);
// "" and fills c, or a sentence; the config is also validated
std::string config_from_json(const std::string& json, ModelConfig& c);

// the file's bytes; optimizer may be null (weights only); task "" leaves the "task" metadata out
std::vector<std::uint8_t> save_checkpoint(const ModelConfig& config, const float* params, const std::string& vocab,
                                          const CheckpointOptimizer* optimizer, const std::string& task = "");

// Validates everything (the safetensors layer's checks, then: format, config, every parameter present once with
// its exact shape and dtype F32, no unexpected tensors, all values finite, optimizer state complete or absent).
// Returns "" and fills out, or a sentence for the user.
std::string load_checkpoint(const std::uint8_t* data, std::size_t size, Checkpoint& out);

}  // namespace mha
