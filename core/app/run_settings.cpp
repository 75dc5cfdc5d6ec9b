#include "run_settings.hpp"

#include <cmath>

#include "checkpoint.hpp"
#include "config.hpp"
#include "json_mini.hpp"

namespace mha {

namespace {

std::string number_text(double v) {
    if (std::isnan(v)) return "missing";
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);  // 2.500000 -> 2.5, 3.000000 -> 3.
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

// "" and out = v, or "<name> must be a whole number from lo to hi." (also for NaN: a missing field)
std::string whole(double v, const char* name, double lo, double hi, double& out) {
    if (!(v == std::floor(v) && v >= lo && v <= hi))
        return std::string(name) + " must be a whole number from " + number_text(lo) + " to " + number_text(hi) +
               " (not " + number_text(v) + ").";
    out = v;
    return "";
}

template <class I>
std::string whole_int(double v, const char* name, double lo, double hi, I& out) {
    double d = 0;
    std::string err = whole(v, name, lo, hi, d);
    if (err.empty()) out = static_cast<I>(d);
    return err;
}

std::string finite(double v, const char* name, double& out) {
    if (!std::isfinite(v)) return std::string(name) + " must be a number.";
    out = v;
    return "";
}

}  // namespace

std::string to_offsets(const std::string& list, std::vector<int>& out) {
    const std::string bad = "The offsets must be whole numbers from 1 to " + std::to_string(Limits::max_seq_len - 1) +
                            " separated by commas, like 1,3,5,7 (not '" + list + "').";
    std::vector<int> r;
    std::string item;
    for (char c : list + ",") {
        if (c == ' ') continue;
        if (c != ',') {
            if (c < '0' || c > '9' || item.size() >= 5) return bad;
            item += c;
            continue;
        }
        if (item.empty()) return bad;  // an empty list, or two commas in a row
        const int v = std::stoi(item);
        if (v < 1 || v > Limits::max_seq_len - 1) return bad;
        r.push_back(v);
        item.clear();
    }
    if (r.size() > static_cast<std::size_t>(OffsetTaskLimits::max_offsets))
        return "at most " + std::to_string(OffsetTaskLimits::max_offsets) + " offsets (got " +
               std::to_string(r.size()) + ").";
    out = r;
    return "";
}

std::string to_variant(const std::string& name, AttentionVariant& out) {
    return parse_variant(name, out) ? "" : "'" + name + "' is not an attention variant.";
}

std::string to_seed(double v, std::uint64_t& out) {
    return whole_int(v, "The seed", 0, double(RunLimits::max_seed), out);
}

std::string to_train_config(const RunSettings& s, TrainConfig& t) {
    TrainConfig r;
    std::string err;
    if (err.empty()) err = whole_int(s.batch, "The batch size", 1, TrainLimits::max_batch, r.batch);
    if (err.empty()) err = whole_int(s.steps, "Steps", 1, TrainLimits::max_steps, r.steps);
    if (err.empty()) err = whole_int(s.warmup, "Warm-up", 0, TrainLimits::max_steps, r.warmup);
    if (err.empty()) err = finite(s.lr, "The learning rate", r.lr);
    if (err.empty()) err = finite(s.min_lr, "The final learning rate", r.min_lr);
    if (err.empty()) err = finite(s.clip, "The gradient clip", r.clip);
    if (err.empty()) err = finite(s.weight_decay, "The weight decay", r.adamw.weight_decay);
    if (err.empty()) err = to_seed(s.seed, r.seed);
    if (err.empty()) t = r;
    return err;
}

RunSettings schedule_settings(const TrainConfig& t) {
    RunSettings s;
    s.batch = t.batch, s.steps = t.steps, s.warmup = t.warmup, s.lr = t.lr, s.min_lr = t.min_lr, s.clip = t.clip;
    s.weight_decay = t.adamw.weight_decay, s.seed = static_cast<double>(t.seed);
    return s;
}

std::string to_run_spec(const RunSettings& s, RunSpec& spec) {
    ModelConfig m;
    InductionTaskConfig k;
    OffsetTaskConfig o;
    Task task = Task::text;
    int eval_batches = 0;
    std::string err;
    if (err.empty()) err = whole_int(s.d_model, "D", 1, Limits::max_d_model, m.d_model);
    if (err.empty()) err = whole_int(s.n_heads, "H", 1, Limits::max_heads, m.n_heads);
    if (err.empty()) err = whole_int(s.n_kv_heads, "H_kv", 0, Limits::max_heads, m.n_kv_heads);
    if (err.empty()) err = whole_int(s.n_layers, "The number of layers", 1, Limits::max_layers, m.n_layers);
    if (err.empty()) err = whole_int(s.context, "The context T", 2, Limits::max_seq_len, m.max_seq_len);
    m.mlp = s.mlp;
    if (err.empty()) err = to_variant(s.variant, m.variant);
    if (err.empty() && !parse_task(s.task, task)) err = "the task must be 'char', 'induction' or 'offsets', not '" + s.task + "'.";
    if (err.empty() && task == Task::induction) {
        err = whole_int(s.vocab, "V", 2, Limits::max_vocab, k.vocab);
        if (err.empty()) err = whole_int(s.seg_min, "The shortest segment", 1, Limits::max_seq_len, k.seg_min);
        if (err.empty()) err = whole_int(s.seg_max, "The longest segment", 1, Limits::max_seq_len, k.seg_max);
    }
    if (err.empty() && task == Task::offsets) {
        err = whole_int(s.symbols, "The number of symbols", 2, Limits::max_vocab, o.symbols);
        if (err.empty()) err = to_offsets(s.offsets, o.offsets);
    }
    if (err.empty()) err = whole_int(s.eval_batches, "Evaluation batches", 1, RunLimits::max_eval_batches, eval_batches);
    TrainConfig t;
    if (err.empty()) err = to_train_config(s, t);
    if (!err.empty()) return err;
    spec.model = m;
    spec.train = t;
    spec.task = task;
    spec.induction = k;
    spec.offsets = o;
    spec.eval_batches = eval_batches;
    return "";
}

RunSpec induction_lab_spec(const InductionSetting& setting, int layers, std::uint64_t seed) {
    RunSpec spec;
    spec.task = Task::induction;
    spec.induction = InductionTaskConfig{kInductionVocab, setting.seg_min, setting.seg_max};
    spec.model.d_model = 64, spec.model.n_heads = 4, spec.model.n_layers = layers;
    spec.model.max_seq_len = setting.context, spec.model.mlp = false;
    TrainConfig& t = spec.train;
    t.batch = setting.batch, t.steps = setting.steps, t.warmup = kInductionWarmup;
    t.lr = kInductionLr, t.min_lr = kInductionLr, t.adamw.weight_decay = 0, t.seed = seed;
    return spec;
}

std::string settings_of_checkpoint(const std::vector<std::uint8_t>& bytes, RunSettings& s, int& step) {
    Checkpoint c;
    std::string err = load_checkpoint(bytes.data(), bytes.size(), c);
    if (!err.empty()) return err;
    RunSettings r = s;
    r.d_model = c.config.d_model, r.n_heads = c.config.n_heads, r.n_kv_heads = c.config.n_kv_heads;
    r.n_layers = c.config.n_layers, r.context = c.config.max_seq_len, r.mlp = c.config.mlp;
    r.variant = variant_name(c.config.variant);
    r.task = task_name(Task::text);
    if (!c.task.empty()) {
        json::Value v;
        const json::Value* name = json::parse(c.task, v).empty() ? v.find("name") : nullptr;
        Task task = Task::text;
        if (!name || !name->is(json::Kind::string) || !parse_task(name->s, task))
            return "the checkpoint names a task this lab does not know.";
        r.task = name->s;
        auto whole = [&](const char* key, double& out) {
            const json::Value* x = v.find(key);
            if (!x || !x->is(json::Kind::integer)) return false;
            out = static_cast<double>(x->i);
            return true;
        };
        if (task == Task::offsets) {
            const json::Value* list = v.find("offsets");
            if (!whole("symbols", r.symbols) || !list || !list->is(json::Kind::string))
                return "the checkpoint's offsets task has no symbols or offsets.";
            r.offsets = list->s;
        } else if (task == Task::induction) {
            if (!whole("vocab", r.vocab) || !whole("seg_min", r.seg_min) || !whole("seg_max", r.seg_max))
                return "the checkpoint's induction task has no vocabulary or segment lengths.";
        }
    }
    step = c.has_optimizer ? c.optimizer.step : 0;
    s = r;
    return "";
}

RunSettings offsets_settings(int d_model, int heads, std::uint64_t seed) {
    const OffsetsSetting& k = kOffsetsSetting;
    RunSettings s;
    s.task = "offsets", s.offsets = k.offsets, s.symbols = k.symbols;
    s.d_model = d_model, s.n_heads = heads, s.n_layers = k.layers, s.mlp = k.mlp, s.context = k.context;
    s.batch = k.batch, s.steps = k.steps, s.warmup = k.warmup, s.lr = k.lr, s.min_lr = k.min_lr;
    s.weight_decay = k.weight_decay, s.seed = static_cast<double>(seed);
    return s;
}

}  // namespace mha
