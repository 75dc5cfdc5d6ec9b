#include "ledger.hpp"

#include "model.hpp"

namespace mha {

std::string parameter_ledger(const ModelConfig& config, ParameterLedger& out) {
    const std::string err = validate(config);
    if (!err.empty()) return err;
    ParameterLedger r;
    for (const TensorSpec& t : parameter_table(config)) {
        std::string shape;
        for (int d : t.shape) shape += (shape.empty() ? "" : "×") + std::to_string(d);
        r.names.push_back(t.name);
        r.shapes.push_back(shape);
        r.sizes.push_back(static_cast<double>(t.size));
        r.total += static_cast<double>(t.size);
    }
    out = std::move(r);
    return "";
}

}  // namespace mha
