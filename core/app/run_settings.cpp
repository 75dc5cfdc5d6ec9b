#include "run_settings.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#include "checkpoint.hpp"
#include "config.hpp"
#include "error.hpp"
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

// "" or the sentence for the field f of s, by its kind
std::string check_field(const SettingField& f, const RunSettings& s) {
    double unused = 0;
    switch (f.kind) {
        case FieldKind::whole: return whole(s.*f.number, f.label, f.lo, f.hi, unused);
        case FieldKind::real: return finite(s.*f.number, f.label, unused);
        case FieldKind::flag: return "";
        case FieldKind::name: return f.check(s.*f.text);
    }
    return "";
}

// the fields named, in this order: "" or the first sentence
std::string check_fields(const RunSettings& s, std::initializer_list<const char*> names) {
    for (const char* n : names)
        if (std::string err = check_field(*find_setting(n), s); !err.empty()) return err;
    return "";
}

}  // namespace

// ---------------------------------------------------------------- the settings table
const SettingField* find_setting(const std::string& name) {
    for (const SettingField& f : setting_fields())
        if (name == f.name) return &f;
    return nullptr;
}

std::string SettingField::value_text(const RunSettings& s) const {
    if (boolean) return s.*boolean ? "true" : "false";
    if (text) return s.*text;
    const double v = s.*number;
    char buf[32];
    if (kind == FieldKind::whole && std::fabs(v) < 1e15 && v == std::floor(v)) {
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return buf;
    }
    // the shortest text that reads back as the same double: 0.003, not 0.0030000000000000001
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    return buf;
}

std::string check_variant(const std::string& name) {
    AttentionVariant unused;
    return to_variant(name, unused);
}

std::string check_task(const std::string& name) {
    if (find_task(name)) return "";
    std::string names;
    for (std::size_t i = 0; i < tasks().size(); ++i)
        names += (i == 0 ? "'" : i + 1 == tasks().size() ? " or '" : ", '") + std::string(tasks()[i].name) + "'";
    return "the task must be " + names + ", not '" + name + "'.";
}

std::string check_offsets(const std::string& list) {
    std::vector<int> unused;
    return to_offsets(list, unused);
}

// ---------------------------------------------------------------- settings -> spec
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
    const SettingField& f = *find_setting("seed");
    return whole_int(v, f.label, f.lo, f.hi, out);
}

std::string to_train_config(const RunSettings& s, TrainConfig& t) {
    std::string err = check_fields(s, {"batch", "steps", "warmup", "lr", "min_lr", "clip", "weight_decay", "seed"});
    if (!err.empty()) return err;
    TrainConfig r;
    r.batch = int(s.batch), r.steps = int(s.steps), r.warmup = int(s.warmup), r.lr = s.lr, r.min_lr = s.min_lr;
    r.clip = s.clip, r.adamw.weight_decay = s.weight_decay, r.seed = static_cast<std::uint64_t>(s.seed);
    t = r;
    return "";
}

RunSettings schedule_settings(const TrainConfig& t) {
    RunSettings s;
    s.batch = t.batch, s.steps = t.steps, s.warmup = t.warmup, s.lr = t.lr, s.min_lr = t.min_lr, s.clip = t.clip;
    s.weight_decay = t.adamw.weight_decay, s.seed = static_cast<double>(t.seed);
    return s;
}

std::string to_run_spec(const RunSettings& s, RunSpec& spec) {
    // every field of the run and of its task, in the table's order (the other tasks' fields are not read)
    for (const SettingField& f : setting_fields())
        if (f.for_task(s.task))
            if (std::string err = check_field(f, s); !err.empty()) return err;
    RunSpec r = spec;
    ModelConfig& m = r.model;
    m = ModelConfig{};
    m.d_model = int(s.d_model), m.n_heads = int(s.n_heads), m.n_kv_heads = int(s.n_kv_heads);
    m.n_layers = int(s.n_layers), m.max_seq_len = int(s.context), m.mlp = s.mlp;
    to_variant(s.variant, m.variant);
    to_train_config(s, r.train);
    r.eval_batches = int(s.eval_batches);
    const TaskRow& k = *find_task(s.task);
    r.task = k.task;
    r.induction = InductionTaskConfig{}, r.offsets = OffsetTaskConfig{};
    if (std::string err = k.read(s, r); !err.empty()) return err;
    spec = std::move(r);
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
    t.lr = setting.lr, t.min_lr = setting.lr, t.adamw.weight_decay = 0, t.seed = seed;
    return spec;
}

namespace {

// {"name":..., and the task's fields of the settings table} (task_json) into r: "" or the sentence
std::string read_task_json(const std::string& text, RunSettings& r) {
    json::Value v;
    const json::Value* name = json::parse(text, v).empty() ? v.find("name") : nullptr;
    const TaskRow* k = name && name->is(json::Kind::string) ? find_task(name->s) : nullptr;
    if (!k) return "the checkpoint names a task this lab does not know.";
    RunSettings out = r;
    out.task = k->name;
    // the task's fields of the settings table, by their names (task_json wrote them)
    std::string names;
    bool missing = false;
    std::vector<const SettingField*> own;
    for (const SettingField& f : setting_fields())
        if (f.task == std::string(k->name)) own.push_back(&f);
    for (std::size_t i = 0; i < own.size(); ++i) {
        const SettingField& f = *own[i];
        names += std::string(i == 0 ? "" : i + 1 == own.size() ? " or " : ", ") + f.name;
        const json::Value* x = v.find(f.name);
        if (f.text && x && x->is(json::Kind::string)) out.*f.text = x->s;
        else if (f.number && x && x->is(json::Kind::integer)) out.*f.number = static_cast<double>(x->i);
        else missing = true;
    }
    if (missing) return "the checkpoint's " + std::string(k->name) + " task has no " + names + ".";
    r = out;
    return "";
}

}  // namespace

std::string settings_of_checkpoint(const std::vector<std::uint8_t>& bytes, RunSettings& s, int& step) {
    Checkpoint c;
    std::string err = load_checkpoint(bytes.data(), bytes.size(), c);
    if (!err.empty()) return err;
    RunSettings r = s;
    r.d_model = c.config.d_model, r.n_heads = c.config.n_heads, r.n_kv_heads = c.config.n_kv_heads;
    r.n_layers = c.config.n_layers, r.context = c.config.max_seq_len, r.mlp = c.config.mlp;
    r.variant = variant_name(c.config.variant);
    r.task = task_name(Task::text);
    if (!c.task.empty())
        if (std::string err = read_task_json(c.task, r); !err.empty()) return err;
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

// ---------------------------------------------------------------- mha-train's flags
std::string set_setting(const SettingField& f, const std::string& text, RunSettings& s) {
    const std::string flag = std::string("--") + f.flag;
    if (f.text) {
        s.*f.text = text;
        return "";
    }
    if (f.boolean) {
        if (text == "1" || text == "true") s.*f.boolean = true;
        else if (text == "0" || text == "false") s.*f.boolean = false;
        else return flag + " must be true or false (1 or 0), not '" + text + "'";
        return "";
    }
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end || !std::isfinite(v)) return flag + " must be a number, not '" + text + "'";
    s.*f.number = v;
    return "";
}

std::string settings_from_flags(const Preset* preset, const std::vector<std::pair<std::string, std::string>>& given,
                                RunSettings& s) {
    RunSettings r = preset ? preset->settings : RunSettings{};
    for (const auto& [flag, text] : given) {
        const SettingField* field = nullptr;
        for (const SettingField& f : setting_fields())
            if (flag == f.flag) field = &f;
        if (!field) return "--" + flag + " is not a setting";
        if (std::string err = set_setting(*field, text, r); !err.empty()) return err;
    }
    s = r;
    return "";
}

RunSettings settings_of(const RunFacts& f) {
    RunSettings s = schedule_settings(f.train);
    s.d_model = f.model.d_model, s.n_heads = f.model.n_heads, s.n_kv_heads = f.model.n_kv_heads;
    s.n_layers = f.model.n_layers, s.context = f.model.max_seq_len, s.mlp = f.model.mlp;
    s.variant = variant_name(f.model.variant);
    // the task's own fields as its checkpoint would record them: no line here per task
    if (std::string err = read_task_json(f.task_json, s); !err.empty()) throw Error("the run's facts: " + err);
    return s;
}

// ---------------------------------------------------------------- the page's presets
const std::vector<Preset>& presets() {
    static const std::vector<Preset> table = [] {
        std::vector<Preset> p;
        p.push_back({"heads", "char", "the text, as \"Heads, compared\" trains it: the core's default run", RunSettings{},
                     0, 0});
        RunSettings b;
        b.steps = 200, b.warmup = 20;
        p.push_back({"break", "char", "the text, as \"Break it\" trains each variant: the default model, 200 steps", b,
                     0, 0});
        const OffsetsSetting& o = kOffsetsSetting;
        RunSettings s = offsets_settings(RunSettings{}.d_model, RunSettings{}.n_heads, RunSettings{}.seed);
        p.push_back({"offsets", "offsets", "the offsets task as \"Heads, compared\" ships it: one attention-only "
                     "layer, a constant rate", s, o.eval_every, o.threshold});
        for (const InductionSetting& k : kInductionSettings) {
            RunSettings n;
            const RunSpec spec = induction_lab_spec(k, 2, static_cast<std::uint64_t>(n.seed));
            n.task = task_name(Task::induction), n.vocab = spec.induction.vocab;
            n.seg_min = k.seg_min, n.seg_max = k.seg_max;
            n.d_model = spec.model.d_model, n.n_heads = spec.model.n_heads, n.n_layers = spec.model.n_layers;
            n.context = k.context, n.mlp = spec.model.mlp;
            n.batch = k.batch, n.steps = k.steps, n.warmup = kInductionWarmup, n.lr = k.lr;
            n.min_lr = k.lr, n.weight_decay = 0;
            p.push_back({std::string("induction-") + k.name, "induction",
                         std::string("the induction lab's ") + k.name + " setting: the 2-layer attention-only model "
                         "(--layers 1: its control)", n, 0, 0});
        }
        // a task whose row brings its own preset
        for (const TaskRow& k : tasks()) {
            if (!k.preset_settings) continue;
            RunSettings s;
            s.task = k.name;
            k.preset_settings(s);
            p.push_back({k.preset, k.name, k.description, s, 0, 0});
        }
        return p;
    }();
    return table;
}

const Preset* find_preset(const std::string& name) {
    for (const Preset& p : presets())
        if (p.name == name) return &p;
    return nullptr;
}

}  // namespace mha
