// Settings as they arrive from outside, the page's forms and URL (through the bindings) and mha-train's flags:
// every number a double, so that "H = 2.5" or a missing field reaches the core and gets its sentence here,
// instead of being truncated on the way in. One rule for both: to_run_spec.
//
//   RunSettings s;                    // the defaults below are the page's "heads" panel
//   s.n_heads = 3;
//   RunSpec spec;
//   std::string err = to_run_spec(s, spec);   // "": each setting is a number in its range
//   err = validate_setup(spec);               // "D = 64 is not divisible by H = 3: ..."
#pragma once
#include <cstdint>
#include <string>

#include "run.hpp"

namespace mha {

struct RunSettings {
    // the model
    double d_model = 64, n_heads = 4, n_kv_heads = 0, n_layers = 2, context = 64;
    bool mlp = true;
    std::string variant = "canonical";
    // the task: "char" (the text) or "induction" (vocab, seg_min, seg_max)
    std::string task = "char";
    double vocab = 64, seg_min = 3, seg_max = 7;
    // the task "offsets": S symbols, the offsets as a comma-separated list of whole numbers ("1,3,5,7")
    double symbols = 3;
    std::string offsets = "1,3,5,7";
    // the schedule
    double batch = 16, steps = 300, warmup = 30, lr = 3e-3, min_lr = 3e-4, clip = 1, weight_decay = 0.1, seed = 1;
    double eval_batches = 4;
};

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

// The induction lab's settings of its task (the page's ntask), each with the budget it needs (measured: see
// docs/experiments.md). Both train a 2-layer attention-only model (and a 1-layer control) with D = 64, H = 4,
// V = 64, constant learning rate 2e-3 after 100 warm-up steps, no weight decay.
struct InductionSetting {
    const char* name;
    int context, seg_min, seg_max, batch, steps;
};
constexpr InductionSetting kInductionSettings[] = {
    {"short", 16, 3, 7, 64, 4500},
    {"long", 32, 4, 10, 32, 16000},
};
constexpr double kInductionLr = 2e-3;
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

// What a checkpoint file is a model of, so that a panel that opens it sets up a run of its own task: "" and s with
// the model's sizes (d_model, n_heads, n_kv_heads, n_layers, context, mlp, variant) and its task (task, symbols,
// offsets, vocab, seg_min, seg_max; the schedule fields left as they were) and step the steps it has trained (0 for
// weights alone), or the file's sentence. A file whose metadata does not name its task (written before it was
// recorded, or elsewhere) is a model of the text.
std::string settings_of_checkpoint(const std::vector<std::uint8_t>& bytes, RunSettings& s, int& step);

}  // namespace mha
