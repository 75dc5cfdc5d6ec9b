// The parameter ledger of a model: every tensor with its PyTorch name, its shape as the page prints it, and its
// size, in the flat buffer's order; the count that shows 4D² + 4D per attention layer whatever H is.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config.hpp"

namespace mha {

struct ParameterLedger {
    std::vector<std::string> names;   // e.g. "blocks.0.attn.q.weight"
    std::vector<std::string> shapes;  // e.g. "64×64"
    std::vector<double> sizes;        // elements of each tensor
    double total = 0;
};

// "" and out, or validate()'s sentence for the config
std::string parameter_ledger(const ModelConfig& config, ParameterLedger& out);

}  // namespace mha
