// The task table (run.hpp TaskRow): one row per task, and the few lines that adapt each task of core/train/ to a
// run (its settings in and out, its rule, its vocabulary, its sampler, its baseline). A new task is its file in
// core/train/, its fields in the settings table (run_settings.hpp MHA_RUN_SETTINGS, with its name in their task
// column), its config in RunSpec, one section of hooks here and one row below.
#include <cmath>
#include <utility>

#include "error.hpp"
#include "json_mini.hpp"
#include "run.hpp"
#include "run_settings.hpp"

namespace mha {

namespace {

// ---------------------------------------------------------------- the text: its data is the Run's dataset
std::string text_read(const RunSettings&, RunSpec&) { return ""; }
void text_write(const RunSpec&, RunSettings&) {}
std::string text_validate(const RunSpec&, int) { return ""; }
// the text's vocabulary is known only once tokenized (make_run); any V within the limits checks the rest
int text_vocab(const RunSpec&) { return 2; }

// ---------------------------------------------------------------- induction: the repeated random segment
std::string induction_read(const RunSettings& s, RunSpec& spec) {
    spec.induction = InductionTaskConfig{int(s.vocab), int(s.seg_min), int(s.seg_max)};
    return "";
}
void induction_write(const RunSpec& spec, RunSettings& s) {
    s.vocab = spec.induction.vocab, s.seg_min = spec.induction.seg_min, s.seg_max = spec.induction.seg_max;
}
std::string induction_validate(const RunSpec& spec, int T) {
    const InductionTaskConfig& k = spec.induction;
    std::string err = validate_induction_task(T, k.vocab, k.seg_min, k.seg_max);
    if (err.empty() && k.seg_max < 2) err = "the repeated segment must be at least 2 tokens long to measure induction.";
    return err;
}
int induction_vocab(const RunSpec& spec) { return spec.induction.vocab; }
// the per-sequence segment lengths and starts go to buffers the sampler owns, grown once to the batch size
BatchSampler induction_sampler(const RunSpec& spec) {
    return [k = spec.induction, len = std::vector<int>(), start = std::vector<int>()](
               Rng& rng, int B, int T, int* x, int* y) mutable {
        len.resize(B), start.resize(B);
        fill_shifted_batch(rng, B, T, k.vocab, k.seg_min, k.seg_max, x, y, len.data(), start.data());
    };
}
double induction_baseline(int V) { return std::log(double(V - 1)); }  // a uniform guess over the symbols after BOS

// ---------------------------------------------------------------- offsets: several tokens back at once
std::string offsets_read(const RunSettings& s, RunSpec& spec) {
    OffsetTaskConfig o;
    o.symbols = int(s.symbols);
    std::string err = to_offsets(s.offsets, o.offsets);
    if (err.empty()) spec.offsets = o;
    return err;
}
void offsets_write(const RunSpec& spec, RunSettings& s) {
    std::string list;
    for (int o : spec.offsets.offsets) list += (list.empty() ? "" : ",") + std::to_string(o);
    s.symbols = spec.offsets.symbols, s.offsets = list;
}
std::string offsets_validate(const RunSpec& spec, int T) { return validate_offset_task(spec.offsets, T); }
// the S^K classes are its vocabulary
int offsets_vocab(const RunSpec& spec) { return static_cast<int>(offset_task_classes(spec.offsets, Limits::max_vocab)); }
BatchSampler offsets_sampler(const RunSpec& spec) {
    return [k = spec.offsets](Rng& rng, int B, int T, int* x, int* y) { fill_offset_batch(rng, k, B, T, x, y); };
}
double offsets_baseline(int V) { return std::log(double(V)); }  // the targets are uniform over the classes

}  // namespace

// ---------------------------------------------------------------- the rows
const std::vector<TaskRow>& tasks() {
    static const std::vector<TaskRow> table = {
        {Task::text, "char", "Text", "character language model", "the text's characters",
         "unigram baseline loss",
         "The model predicts the next character of the text; the last 10% of the text is held out for validation.",
         "heads", true, false, text_read, text_write, text_validate, text_vocab, nullptr, nullptr},
        {Task::induction, "induction", "Induction", "a random segment, repeated once at a random place",
         "V symbols, token 0 the start of every sequence", "uniform-guess loss",
         "Only the repeat can be predicted, by finding where the current symbol occurred before and copying what "
         "came next: a previous-token head in layer 0 and an induction head in layer 1 (Olsson et al., 2022), which a "
         "1-layer model cannot build (docs/experiments.md, \"Induction heads\").",
         "induction-short", false, true, induction_read, induction_write, induction_validate, induction_vocab,
         induction_sampler, induction_baseline},
        {Task::offsets, "offsets", "Offsets", "the tokens at several offsets back, at once",
         "S input symbols; the target is the tuple of the K tokens back, one of S^K classes", "uniform-guess loss",
         "Each target is the tuple of the tokens at the offsets back. The task fixes its own model, one attention-only "
         "layer, because depth and an MLP stand in for heads. One head can learn it by weighing the offsets "
         "unequally, slowly; several heads split the offsets between them and learn it about ten times sooner "
         "(docs/experiments.md, \"The offsets task\").",
         "offsets", false, false, offsets_read, offsets_write, offsets_validate, offsets_vocab, offsets_sampler,
         offsets_baseline},
    };
    return table;
}

const TaskRow& task_row(Task t) {
    for (const TaskRow& k : tasks())
        if (k.task == t) return k;
    throw Error("a task without a row in the task table.");
}

const TaskRow* find_task(const std::string& name) {
    for (const TaskRow& k : tasks())
        if (name == k.name) return &k;
    return nullptr;
}

const char* task_name(Task t) { return task_row(t).name; }

bool parse_task(const std::string& name, Task& out) {
    const TaskRow* k = find_task(name);
    if (k) out = k->task;
    return k != nullptr;
}

// {"name":..., then the task's fields of the settings table, whole numbers as integers}
std::string task_json(const RunSpec& spec) {
    const TaskRow& k = task_row(spec.task);
    RunSettings s;
    k.write(spec, s);
    std::string out = "{\"name\":\"" + std::string(k.name) + "\"";
    for (const SettingField& f : setting_fields()) {
        if (f.task != std::string(k.name)) continue;
        out += ",\"" + std::string(f.name) + "\":";
        out += f.text ? json::quote(s.*f.text) : f.value_text(s);
    }
    return out + "}";
}

}  // namespace mha
