#include "checkpoint.hpp"

#include <cmath>
#include <set>

#include "file_kind.hpp"
#include "json_mini.hpp"
#include "model.hpp"
#include "safetensors.hpp"

namespace mha {

std::string config_to_json(const ModelConfig& c) {
    return std::string("{\"vocab_size\":") + std::to_string(c.vocab_size) + ",\"d_model\":" +
           std::to_string(c.d_model) + ",\"n_heads\":" + std::to_string(c.n_heads) + ",\"n_kv_heads\":" +
           std::to_string(c.kv_heads()) + ",\"n_layers\":" + std::to_string(c.n_layers) + ",\"max_seq_len\":" +
           std::to_string(c.max_seq_len) + ",\"mlp\":" + (c.mlp ? "true" : "false") + ",\"variant\":\"" +
           variant_name(c.variant) + "\"}";
}

std::string config_from_json(const std::string& text, ModelConfig& c) {
    json::Value v;
    std::string err = json::parse(text, v);
    if (!err.empty()) return "the model config is not valid JSON: " + err;
    if (!v.is(json::Kind::object)) return "the model config must be a JSON object";
    auto get_int = [&](const char* key, int& out) -> std::string {
        const json::Value* f = v.find(key);
        if (!f || !f->is(json::Kind::integer)) return std::string("the model config has no integer '") + key + "'";
        if (f->i < -1000000 || f->i > 1000000) return std::string("the model config's '") + key + "' is out of range";
        out = static_cast<int>(f->i);
        return "";
    };
    ModelConfig r;
    for (auto [key, field] : {std::pair<const char*, int*>{"vocab_size", &r.vocab_size}, {"d_model", &r.d_model},
                              {"n_heads", &r.n_heads}, {"n_kv_heads", &r.n_kv_heads}, {"n_layers", &r.n_layers},
                              {"max_seq_len", &r.max_seq_len}}) {
        err = get_int(key, *field);
        if (!err.empty()) return err;
    }
    const json::Value* mlp = v.find("mlp");
    if (!mlp || !mlp->is(json::Kind::boolean)) return "the model config has no boolean 'mlp'";
    r.mlp = mlp->b;
    if (const json::Value* var = v.find("variant")) {  // absent in files of canonical models made elsewhere
        if (!var->is(json::Kind::string) || !parse_variant(var->s, r.variant))
            return "the model config's 'variant' is not a known attention variant";
    }
    err = validate(r);
    if (!err.empty()) return "the checkpoint's model config is invalid: " + err;
    c = r;
    return "";
}

std::vector<std::uint8_t> save_checkpoint(const ModelConfig& config, const float* params, const std::string& vocab,
                                          const CheckpointOptimizer* optimizer, const std::string& task) {
    const std::vector<TensorSpec> specs = parameter_table(config);
    std::vector<std::pair<std::string, std::string>> meta = {{"format", kCheckpointFormat},
                                                             {"config", config_to_json(config)}};
    if (!vocab.empty()) meta.emplace_back("vocab", vocab);
    if (!task.empty()) meta.emplace_back("task", task);
    if (optimizer)
        meta.emplace_back("train", "{\"step\":" + std::to_string(optimizer->step) + ",\"data_rng_state\":\"" +
                                       std::to_string(optimizer->data_rng_state) + "\"}");
    std::vector<st::NamedTensor> tensors;
    auto add = [&](const std::string& prefix, const float* base) {
        for (const TensorSpec& s : specs)
            tensors.push_back({prefix + s.name, st::DType::F32, std::vector<std::int64_t>(s.shape.begin(), s.shape.end()),
                               base + s.offset});
    };
    add("", params);
    if (optimizer) {
        add("adamw.m.", optimizer->m.data());
        add("adamw.v.", optimizer->v.data());
    }
    return st::write(meta, tensors);
}

std::string load_checkpoint(const std::uint8_t* data, std::size_t size, Checkpoint& out) {
    if (size > kMaxCheckpointBytes) return "the file is larger than " + std::to_string(kMaxCheckpointBytes >> 20) + " MB";
    st::File f;
    std::string err = st::parse(data, size, f);
    if (!err.empty()) {
        const std::string kind = other_file_kind(data, size);
        if (!kind.empty()) return "this file is " + kind + ", not a .safetensors model";
        return "not a valid safetensors file: " + err;
    }
    if (f.meta("format") != kCheckpointFormat)
        return "this safetensors file was not written by mha-sandbox (its __metadata__ has no format \"" +
               std::string(kCheckpointFormat) + "\")";
    Checkpoint c;
    err = config_from_json(f.meta("config"), c.config);
    if (!err.empty()) return err;
    c.vocab = f.meta("vocab");
    if (!c.vocab.empty() && !json::valid_utf8(c.vocab)) return "the checkpoint's vocabulary is not valid UTF-8";
    c.task = f.meta("task");

    const std::vector<TensorSpec> specs = parameter_table(c.config);
    const std::size_t n = specs.back().offset + specs.back().size;
    const bool has_opt = f.find("adamw.m." + specs.front().name) != nullptr;
    std::set<std::string> expected;
    // reads tensor prefix+name into dst, checking dtype, exact shape and finiteness. Every tensor is checked
    // before dst is allocated: a header of a few hundred bytes may claim the largest model the limits allow
    // (844 MB of parameters), and only a file that holds all of its tensors holds the bytes to fill dst.
    auto read_into = [&](const std::string& prefix, std::vector<float>& dst) -> std::string {
        for (const TensorSpec& s : specs) {
            const std::string name = prefix + s.name;
            expected.insert(name);
            const st::TensorView* v = f.find(name);
            if (!v) return "the checkpoint has no tensor '" + name + "'";
            if (v->dtype != st::DType::F32) return "tensor '" + name + "' must be F32";
            if (v->shape != std::vector<std::int64_t>(s.shape.begin(), s.shape.end())) {
                std::string want, got;
                for (int d : s.shape) want += (want.empty() ? "" : ", ") + std::to_string(d);
                for (auto d : v->shape) got += (got.empty() ? "" : ", ") + std::to_string(d);
                return "tensor '" + name + "' has shape [" + got + "] but the config needs [" + want + "]";
            }
        }
        dst.assign(n, 0.0f);
        for (const TensorSpec& s : specs) {
            const std::string name = prefix + s.name;
            const std::vector<float> values = st::read_f32(data, *f.find(name));
            if (!st::all_finite(values)) return "tensor '" + name + "' holds NaN or infinite values";
            std::copy(values.begin(), values.end(), dst.begin() + s.offset);
        }
        return "";
    };
    err = read_into("", c.params);
    if (!err.empty()) return err;
    if (has_opt) {
        err = read_into("adamw.m.", c.optimizer.m);
        if (!err.empty()) return err;
        err = read_into("adamw.v.", c.optimizer.v);
        if (!err.empty()) return err;
        for (float x : c.optimizer.v)
            if (x < 0) return "the AdamW second moments must not be negative";
        json::Value t;
        err = json::parse(f.meta("train"), t);
        const json::Value* step = err.empty() ? t.find("step") : nullptr;
        const json::Value* rng = err.empty() ? t.find("data_rng_state") : nullptr;
        if (!step || !step->is(json::Kind::integer) || step->i < 0 || step->i > 100000000 || !rng ||
            !rng->is(json::Kind::string) || rng->s.empty() || rng->s.size() > 20 ||
            rng->s.find_first_not_of("0123456789") != std::string::npos)
            return "the checkpoint has optimizer state but no valid \"train\" metadata (step, data_rng_state)";
        c.optimizer.step = static_cast<int>(step->i);
        try {
            c.optimizer.data_rng_state = std::stoull(rng->s);
        } catch (...) {
            return "the checkpoint's data_rng_state is out of range";
        }
        c.has_optimizer = true;
    }
    for (const st::TensorView& v : f.tensors)
        if (!expected.count(v.name)) return "unexpected tensor '" + v.name + "' for this model config";
    out = std::move(c);
    return "";
}

}  // namespace mha
