// Settings as they arrive from outside, the page's forms and URL (through the bindings) and mha-train's flags:
// every number a double, so that "H = 2.5" or a missing field reaches the core and gets its sentence here,
// instead of being truncated on the way in. One rule for both: to_run_spec, which reads the settings table below
// (each field's kind, range and wording, declared once), and the task table (run.hpp TaskRow).
//
//   RunSettings s;                    // the defaults below are the page's "heads" panel
//   s.n_heads = 3;
//   RunSpec spec;
//   std::string err = to_run_spec(s, spec);   // "": each setting is a number in its range
//   err = validate_setup(spec);               // "D = 64 is not divisible by H = 3: ..."
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "run.hpp"

namespace mha {

// ---------------------------------------------------------------- the settings table
// Every setting of a run, declared once. One row per field:
//   X(type, member, kind, js key, mha-train flag, default, lo, hi, task, label, help)
// type and default make the struct's member; kind says how it is read and checked (whole: a whole number from lo
// to hi; real: any finite number, its range is validate(TrainConfig)'s; flag: true or false; name: a word the core
// checks by its own list); the js key is the page's (marshal.hpp both ways, constants().defaults, the generated
// web/js/run_settings_type.js); the flag is mha-train's (--d-model); task is the task the field belongs to ("" for
// every task: its other fields are ignored elsewhere); label names the setting in sentences ("D must be a whole
// number ..."); help is mha-train's --help line and the JSDoc. The defaults are the page's "Heads, compared" text run.
#define MHA_RUN_SETTINGS(X)                                                                                            \
    /* the model */                                                                                                    \
    X(double, d_model, whole, "dModel", "d-model", 64, 1, Limits::max_d_model, "", "D", "D, embedding size")          \
    X(double, n_heads, whole, "nHeads", "heads", 4, 1, Limits::max_heads, "", "H", "H, attention heads")              \
    X(double, n_kv_heads, whole, "nKvHeads", "kv-heads", 0, 0, Limits::max_heads, "", "H_kv",                           \
      "H_kv, key/value heads (0 = H; 1 = MQA)")                                                                        \
    X(double, n_layers, whole, "nLayers", "layers", 2, 1, Limits::max_layers, "", "The number of layers",              \
      "L, transformer blocks")                                                                                         \
    X(double, context, whole, "context", "context", 64, 2, Limits::max_seq_len, "", "The context T",                   \
      "T, context length")                                                                                             \
    X(bool, mlp, flag, "mlp", "mlp", true, 0, 1, "", "The MLP", "an MLP in every block (false: attention-only)")       \
    X(std::string, variant, name, "variant", "variant", "canonical", 0, 0, "", "The attention variant",                \
      "attention variant (core/nn/config.hpp: canonical, swapped_order, no_wo, ...)")                                  \
    /* the task (the task table, run.hpp tasks()) and its own fields */                                                \
    X(std::string, task, name, "task", "task", "char", 0, 0, "", "The task",                                           \
      "char (a character LM on a text), induction (repeated random segments) or offsets (the tokens at the offsets)") \
    X(double, vocab, whole, "vocab", "vocab", 64, 2, Limits::max_vocab, "induction", "V",                              \
      "V, symbols of the induction task (token 0 is BOS)")                                                             \
    X(double, seg_min, whole, "segMin", "seg-min", 3, 1, Limits::max_seq_len, "induction", "The shortest segment",      \
      "shortest repeated segment (induction task)")                                                                    \
    X(double, seg_max, whole, "segMax", "seg-max", 7, 1, Limits::max_seq_len, "induction", "The longest segment",       \
      "longest repeated segment (induction task; 2 seg-max + 1 <= T)")                                                 \
    X(double, symbols, whole, "symbols", "symbols", 3, 2, Limits::max_vocab, "offsets", "The number of symbols",       \
      "S, input symbols of the offsets task (S^K classes)")                                                            \
    X(std::string, offsets, name, "offsets", "offsets", "1,3,5,7", 0, 0, "offsets", "The offsets",                      \
      "offsets task: the target is the tokens this many positions back (1 = previous), comma-separated")             \
    /* the schedule */                                                                                                 \
    X(double, batch, whole, "batch", "batch", 16, 1, TrainLimits::max_batch, "", "The batch size",                     \
      "B, sequences per step")                                                                                         \
    X(double, steps, whole, "steps", "steps", 300, 1, TrainLimits::max_steps, "", "Steps", "training steps")            \
    X(double, warmup, whole, "warmup", "warmup", 30, 0, TrainLimits::max_steps, "", "Warm-up",                          \
      "linear warm-up steps")                                                                                          \
    X(double, lr, real, "lr", "lr", 3e-3, 0, 0, "", "The learning rate", "peak learning rate")                          \
    X(double, min_lr, real, "minLr", "min-lr", 3e-4, 0, 0, "", "The final learning rate",                               \
      "final learning rate of the cosine decay")                                                                       \
    X(double, clip, real, "clip", "clip", 1, 0, 0, "", "The gradient clip", "global gradient-norm clip (0 = off)")      \
    X(double, weight_decay, real, "weightDecay", "weight-decay", 0.1, 0, 0, "", "The weight decay",                     \
      "AdamW weight decay (matrices and embeddings)")                                                                  \
    X(double, seed, whole, "seed", "seed", 1, 0, double(RunLimits::max_seed), "", "The seed",                           \
      "seed of weights, batches and evaluation batches")                                                               \
    X(double, eval_batches, whole, "evalBatches", "eval-batches", 4, 1, RunLimits::max_eval_batches, "",                \
      "Evaluation batches", "fixed validation batches per measurement")

struct RunSettings {
#define MHA_SETTING_MEMBER(type, member, kind, js, flag, def, lo, hi, task, label, help) type member = def;
    MHA_RUN_SETTINGS(MHA_SETTING_MEMBER)
#undef MHA_SETTING_MEMBER
};

// how a field is read from outside and checked (the table's kind column)
enum class FieldKind { whole, real, flag, name };

// One row of the settings table: the field's member (one of number, flag, text is set, by its type) and the columns
// above. check, for a name: "" or the sentence for a word that is not one (an unknown variant or task, offsets
// that are not a list).
struct SettingField {
    const char* name;  // the member's name: "d_model" (also the key of a task field in a checkpoint's "task")
    FieldKind kind;
    const char* js;    // "dModel"
    const char* flag;  // "d-model"
    double lo, hi;     // whole: the range
    const char* task;  // "" or the task the field belongs to
    const char* label;
    const char* help;
    double RunSettings::*number = nullptr;
    bool RunSettings::*boolean = nullptr;
    std::string RunSettings::*text = nullptr;
    std::string (*check)(const std::string&) = nullptr;

    bool for_task(const std::string& t) const { return task[0] == 0 || t == task; }
    // the field of s as text, as mha-train and JSDoc print a default ("64", "0.003", "true", "canonical")
    std::string value_text(const RunSettings& s) const;
};

// the checks of the name fields (variant, task, offsets)
std::string check_variant(const std::string& name);
std::string check_task(const std::string& name);
std::string check_offsets(const std::string& list);

namespace detail {
inline std::string (*name_check(const char* member))(const std::string&) {
    const std::string m = member;
    return m == "variant" ? check_variant : m == "task" ? check_task : m == "offsets" ? check_offsets : nullptr;
}
inline SettingField field(double RunSettings::*m, SettingField f) { return f.number = m, f; }
inline SettingField field(bool RunSettings::*m, SettingField f) { return f.boolean = m, f; }
inline SettingField field(std::string RunSettings::*m, SettingField f) { return f.text = m, f.check = name_check(f.name), f; }
}  // namespace detail

// the table, in the struct's order
inline const std::vector<SettingField>& setting_fields() {
#define MHA_SETTING_ROW(type, member, kind, js, flag, def, lo, hi, task, label, help) \
    detail::field(&RunSettings::member, {#member, FieldKind::kind, js, flag, double(lo), double(hi), task, label, help}),
    static const std::vector<SettingField> table = {MHA_RUN_SETTINGS(MHA_SETTING_ROW)};
#undef MHA_SETTING_ROW
    return table;
}

// the row of a member by its name ("d_model"), or nullptr
const SettingField* find_setting(const std::string& name);

// "" and spec's model, train, task, induction, offsets and eval_batches set (text and checkpoint untouched), or the sentence
// naming the setting in the page's terms ("H must be a whole number from 1 to 64 (not 2.5)."). How the settings go
// together (D divisible by H, the segment fitting T, the text's size) is validate_setup's and make_run's to say.
std::string to_run_spec(const RunSettings& s, RunSpec& spec);

// "1,3,5,7" as offsets: "" and out, or the sentence ("The offsets must be whole numbers separated by commas ...").
// Whether they fit T is validate_offset_task's to say.
std::string to_offsets(const std::string& list, std::vector<int>& out);

// an attention variant by its name: "" and out, or the sentence
std::string to_variant(const std::string& name, AttentionVariant& out);

// a seed as a number from outside: "" and out, or "The seed must be a whole number from 0 to 4294967295 ..."
std::string to_seed(double v, std::uint64_t& out);

// RunSettings whose schedule fields are t's (the rest at their defaults): what a new schedule starts from, so that
// a change names only what changes
RunSettings schedule_settings(const TrainConfig& t);

// the schedule alone (batch, steps, warmup, lr, min_lr, clip, weight_decay, seed): "" and t, or the sentence
std::string to_train_config(const RunSettings& s, TrainConfig& t);

// The induction lab's settings of its task (the page's ntask), each with the budget it needs at its learning rate
// (measured over seeds: docs/experiments.md, "The budget across seeds"). Both train a 2-layer attention-only model
// (and a 1-layer control) with D = 64, H = 4, V = 64, a constant learning rate after 100 warm-up steps, no weight
// decay. The short setting's rate is 1.5e-3: at 2e-3 it needed 4,500 steps for 31 of 32 seeds, at 1.5e-3 3,250
// (the budget keeps 250 steps more); the long setting's was measured at 2e-3 only (1e-3 formed later).
struct InductionSetting {
    const char* name;
    int context, seg_min, seg_max, batch, steps;
    double lr;
};
constexpr InductionSetting kInductionSettings[] = {
    {"short", 16, 3, 7, 64, 3500, 1.5e-3},
    {"long", 32, 4, 10, 32, 16000, 2e-3},
};
constexpr int kInductionWarmup = 100;
constexpr int kInductionVocab = 64;

// the induction lab's run: setting, layers (2, or 1 for the control), seed
RunSpec induction_lab_spec(const InductionSetting& setting, int layers, std::uint64_t seed);

// The offsets task as "Heads, compared" ships it (the page's task choice, scripts/offsets_seeds, the seeded test):
// one attention-only layer, so that neither depth nor an MLP can stand in for heads (with 2 layers and an MLP, H = 1
// learns it as fast as H = 4: docs/experiments.md, "The offsets task"). D and H are the form's. The schedule is a
// constant rate after a short warm-up, without weight decay: one head can learn the task, slowly, and under the
// text's cosine decay and weight decay it would not get there within any budget a page can offer (at 600 steps it
// sits near 1.14 nats, at 4,000 near 0.20). The comparison is over time: the step at which each run's validation
// loss first reaches `threshold` (reach.hpp), measured every `eval_every` steps.
struct OffsetsSetting {
    const char* offsets;  // as RunSettings::offsets
    int symbols, layers, context, batch, steps, warmup, eval_every;
    bool mlp;
    double lr, min_lr, weight_decay, threshold;
};
constexpr OffsetsSetting kOffsetsSetting = {"1,3,5,7", 3, 1, 32, 32, 3000, 100, 25, false, 3e-3, 3e-3, 0, 0.2};

// RunSettings of the shipped offsets setting with D = d_model, H = heads, the seed; the rest at their defaults
RunSettings offsets_settings(int d_model, int heads, std::uint64_t seed);

// ---------------------------------------------------------------- the page's presets
// The runs the page's panels start from, by name: mha-train --preset NAME (explicit flags override it), the
// scripts, and constants().presets, from which the page fills its forms (D, H and the seed stay the form's). Built
// from the settings above (kOffsetsSetting, kInductionSettings), never written out twice.
struct Preset {
    std::string name;         // "heads", "break", "offsets", "induction-short", "induction-long"
    std::string task;         // its task's name (the task table's preset column names it back)
    std::string description;  // one line
    RunSettings settings;     // a whole run's settings
    int eval_every = 0;       // steps between validation measurements; 0: the panel's (mha-train's) own
    double threshold = 0;     // nats: the loss whose first crossing compares runs over time; 0: none
};
const std::vector<Preset>& presets();
const Preset* find_preset(const std::string& name);  // or nullptr

// ---------------------------------------------------------------- mha-train's flags
// One field from a flag's text (mha-train --d-model 64): numbers as doubles, flags as true/false or 1/0, names as
// they are. "" or the sentence ("--d-model must be a number, not 'sixty'"); whether a number is whole and in range is
// to_run_spec's to say, in the same words as for the page.
std::string set_setting(const SettingField& f, const std::string& text, RunSettings& s);

// The settings of preset (RunSettings{} for none) with the flags given over it, each (flag without "--", text): the
// CLI's defaults are the core's by construction. "" or the first sentence.
std::string settings_from_flags(const Preset* preset, const std::vector<std::pair<std::string, std::string>>& given,
                                RunSettings& s);

// the settings of a run as built (its facts): its model, schedule, task and the task's own fields (eval_batches, which
// the facts do not carry, at its default)
RunSettings settings_of(const RunFacts& f);

// What a checkpoint file is a model of, so that a panel that opens it sets up a run of its own task: "" and s with
// the model's sizes (d_model, n_heads, n_kv_heads, n_layers, context, mlp, variant) and its task (task, symbols,
// offsets, vocab, seg_min, seg_max; the schedule fields left as they were) and step the steps it has trained (0 for
// weights alone), or the file's sentence. A file whose metadata does not name its task (written before it was
// recorded, or elsewhere) is a model of the text.
std::string settings_of_checkpoint(const std::vector<std::uint8_t>& bytes, RunSettings& s, int& step);

}  // namespace mha
