// A training run, the one way the page's workers, mha-train and the tests build one (llama2.c's main builds
// transformer, tokenizer and sampler once; so do we):
//
//   RunSpec spec;                       // model, schedule, task and its settings, seeds
//   spec.task = Task::text, spec.text = corpus;
//   std::unique_ptr<Run> run;
//   std::string err = make_run(spec, run);          // "" or the sentence the page shows
//   TrainChunk c = run->train(10);                  // up to 10 steps; stops at a blown-up step
//   double val = run->evaluate();                   // mean loss on the run's fixed validation batches
//
// A Run owns the model, the Trainer (AdamW state, data PRNG), the data (the text's tokens, or the induction task's
// sampler), the fixed validation batches and the probes that need them. Looking inside a model needs none of the
// data: see Inspector (inspector.hpp). A Run is neither copied nor moved: its batch sampler points into it.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "causality.hpp"
#include "dataset.hpp"
#include "head_pruning.hpp"
#include "head_trace.hpp"
#include "induction_study.hpp"
#include "induction_task.hpp"
#include "offset_task.hpp"
#include "phase_change.hpp"
#include "probes.hpp"
#include "tokenizer.hpp"
#include "train.hpp"

namespace mha {

// ---------------------------------------------------------------- the tasks
enum class Task { text, induction, offsets };
struct RunSpec;
struct RunSettings;

// What a task is, one row per task (as variant_traits is for the attention variants): make_run, validate_setup, the
// settings (run_settings.hpp), the checkpoint's task metadata, the run's facts, the bindings' constants() and
// mha-train read these and never compare tasks. The rows are in core/app/task_table.cpp; the task itself (its
// sampler and its rule) is a file of its own in core/train/. Words are the page's: it builds its task choice, its
// notes and its presets from constants().tasks.
struct TaskRow {
    Task task;
    const char* name;         // "char": RunSettings::task, mha-train --task, a checkpoint's "task" metadata
    const char* label;        // "Text": the page's choice
    const char* description;  // one line: what the model learns
    const char* vocabulary;   // the vocabulary rule, in words
    const char* baseline;     // what the baseline loss is, in words ("uniform-guess loss")
    const char* notes;        // the short text the page shows beside the task
    const char* preset;       // the page's preset for it (run_settings.hpp presets())
    bool text;                // trains on a text (a tokenizer, a dataset, a unigram baseline); the others sample
    bool induction_probes;    // measure_induction and probe_attention apply
    // the hooks of a task without a text (the text's: read and write do nothing, validate says "", vocab is 2, a
    // stand-in until the text is tokenized; sampler and baseline_loss are null, the Run's dataset answers them)
    std::string (*read)(const RunSettings& s, RunSpec& spec);  // the task's fields, in range, into spec; "" or sentence
    void (*write)(const RunSpec& spec, RunSettings& s);        // and back
    std::string (*validate)(const RunSpec& spec, int T);       // the task well posed at context T: "" or the sentence
    int (*vocab)(const RunSpec& spec);                         // V of a task validate accepts
    BatchSampler (*sampler)(const RunSpec& spec);              // (B,T) batches; the sampler owns what it needs
    double (*baseline_loss)(int V);                            // the loss of context-free guessing
    // the task's own preset, named `preset`, for a task whose preset presets() does not build already: its settings
    // over the core's defaults (task set to the row's name). nullptr: presets() builds it (the text's, induction's,
    // offsets'). A new task's row gives its preset here, so that adding it touches no other table.
    void (*preset_settings)(RunSettings& s) = nullptr;
};

const std::vector<TaskRow>& tasks();  // in the page's order, the text first
const TaskRow& task_row(Task t);
const TaskRow* find_task(const std::string& name);  // by name, or nullptr
const char* task_name(Task t);  // task_row(t).name
bool parse_task(const std::string& name, Task& out);

struct RunSpec {
    ModelConfig model;              // vocab_size comes from the text, the task or the checkpoint
    TrainConfig train;              // seq_len is set to model.max_seq_len
    Task task = Task::text;
    std::string text;               // text task: UTF-8 training text (the last 10% is held out)
    InductionTaskConfig induction;  // induction task: V, segment lengths
    OffsetTaskConfig offsets;       // offsets task: S symbols, the offsets (vocabulary S^K)
    int eval_batches = 4;           // fixed validation batches per evaluation (B,T each), 1..RunLimits::max_eval_batches
    // start from this .safetensors file (weights; AdamW state and progress when it has them): the model config and
    // the vocabulary come from the file, spec.model is ignored; empty = fresh weights from train.seed
    std::vector<std::uint8_t> checkpoint;
};

// The task of spec as a checkpoint records it in its "task" metadata, so that any panel can open the model as a run
// of its own task: {"name":"char"}, {"name":"offsets","symbols":3,"offsets":"1,3,5,7"} or
// {"name":"induction","vocab":64,"seg_min":3,"seg_max":7}. run_settings.hpp settings_of_checkpoint reads it.
std::string task_json(const RunSpec& spec);

// Limits of a run besides the model's (config.hpp Limits), the schedule's (train.hpp TrainLimits) and the text's
// (dataset.hpp DataLimits).
struct RunLimits {
    static constexpr int max_chunk = 10000;                 // steps of one train() call
    static constexpr int max_eval_batches = 64;
    static constexpr std::uint64_t max_seed = 4294967295u;  // 2^32 - 1: a seed survives a JS number and the URL
    static constexpr int max_sample_chars = 2000;
};

// A run has blown up when a step's loss is not finite (the Trainer then skips the update) or above this many times
// ln V, the loss of guessing uniformly. AdamW's normalised steps and the log-sum-exp loss keep the loss finite even
// at the largest learning rate accepted (10: the loss climbs past 1000 instead), so both are watched.
constexpr double kDivergenceFactor = 2.0;

// the sample a run shows when it ends: after a newline, this many characters at this temperature, from seed + 2
struct EndSample {
    static constexpr int chars = 160;
    static constexpr double temperature = 0.8;
    static std::uint64_t seed(std::uint64_t train_seed) { return train_seed + 2; }
};

// The memory a run of model m at batch B holds at its largest: the parameters, their gradients, the gradient of
// the batch's other half (Trainer::step) and AdamW's two moments (5·P floats), one (B,T) batch's activations and
// their gradients (2·A floats, model.hpp activation_elements; evaluation reuses them), a full snapshot while it is
// made (Run::snapshot copies the moments out, 2·P, and writes the file of weights and moments, 3·P: 5·P floats; a
// page's worker takes them as it trains), and room for the rest (the text, token ids, the module itself).
std::uint64_t run_memory_bytes(const ModelConfig& m, int batch);
// The most a run may hold: a page's WebAssembly module grows to at most 2 GiB (Emscripten 3.1.6's default with
// memory growth), and a buffer that grows is briefly there twice; the CLI keeps to it too, so that every run the
// lab accepts runs in a tab.
constexpr std::uint64_t kRunMemoryLimit = std::uint64_t(1) << 30;

// "" when the model, the schedule and the task of spec go together (D divisible by H, the segment fitting T, the
// memory it needs within kRunMemoryLimit, ...), else the sentence; without the text and the checkpoint, so a form
// can be checked before there is any
std::string validate_setup(const RunSpec& spec);
// validate_setup and the text's size (and for a checkpoint only the text: the model comes from the file, and
// make_run holds the file's model to the same rules, memory included); make_run says the same
std::string validate(const RunSpec& spec);

class Run;
// "" and out set, or the sentence for the user and out empty. Everything a run needs is allocated here, so memory
// that runs out is a set-up sentence too (what the settings need, and what to change), never a half-built run; then
// *out_of_memory is set (the page replaces such a worker's module: web/bindings.cpp)
std::string make_run(const RunSpec& spec, std::unique_ptr<Run>& out, bool* out_of_memory = nullptr);

// ---------------------------------------------------------------- what a run reports
// what the page shows about a run once it is set up
struct RunFacts {
    ModelConfig model;
    TrainConfig train;
    Task task = Task::text;
    std::string task_json;          // the task and its own settings as a checkpoint records them (task_json)
    InductionTaskConfig induction;  // induction task only
    OffsetTaskConfig offsets;       // offsets task only
    int steps_done = 0;
    std::size_t params = 0;
    std::size_t train_tokens = 0, val_tokens = 0;  // text task
    int unknown_chars = 0;                          // characters of the text outside the checkpoint's vocabulary
    double baseline_loss = 0;   // what context-free guessing reaches: the task's baseline (TaskRow)
    double divergence_limit = 0;  // kDivergenceFactor · ln V
    double step_flops = 0;        // the matmul flops of one training step (benchmark.hpp training_step_flops)
};

// the steps of one train() call
struct TrainChunk {
    std::vector<StepResult> steps;
    int diverged = -1;     // index into steps of the blown-up step (the last one taken), or -1
    int steps_done = 0;    // after the chunk
};

// the run's fixed probe sequence: the first row of its validation batches (T ids), each position also as text (its
// character on the text task, its id on the others). trace() measures on it, and so does the Inspector on tasks
// without text.
struct ProbeSequence {
    std::vector<int> ids;             // (T)
    std::vector<std::string> tokens;  // (T)
};

class Run {
public:
    Run(const Run&) = delete;
    Run& operator=(const Run&) = delete;

    // ---------------------------------------------------------------- training
    // up to n steps (1..RunLimits::max_chunk), ending early at the end of the schedule or at the first step that
    // blew up (diverged); throws mha::Error for n out of range
    TrainChunk train(int n);
    // every step left in the schedule, through blow-ups (the Trainer's guard skips their updates): for scripts and
    // tests that only want the end; returns the steps taken
    int train_to_end();
    // the steps to come take their batch's second half on remote (null: here again; Trainer::step)
    void set_remote(std::unique_ptr<RemoteHalf> remote) { trainer_->set_remote(std::move(remote)); }
    // the far side of another run's RemoteHalf, on this run's model (the same settings): the gradient of the half
    // (x, y: (B,T), B at most this run's batch, T its context) at the weights params (P; model().params() itself
    // when they were written there), into model().grads(); returns its loss share (half_gradient). Throws
    // mha::Error for a half or weights that do not fit.
    double half_gradient_at(const int* x, const int* y, int B, int T, int loss_norm, const float* params,
                            std::size_t P);
    // mean loss over the fixed validation batches; with a remote, the later half of the batches is evaluated there
    // (the same bits: the batches' losses are added in order either way)
    double evaluate();
    // the far side of another run's evaluate, on this run's model and validation batches (the same settings give
    // the same batches): the losses of batches [first, first + count) at the weights params (P; model().params()
    // itself when they were written there), into losses (count). Throws mha::Error for a range or weights that do
    // not fit.
    void evaluate_batches_at(int first, int count, const float* params, std::size_t P, double* losses);
    // a new schedule (lr, min_lr, steps, warmup; e.g. a lower rate after a blow-up), keeping weights, AdamW state and
    // progress; batch and seed fix the data and cannot change. "" or a sentence.
    std::string set_schedule(const TrainConfig& train);
    // the loss above which a step counts as blown up: kDivergenceFactor · ln V
    double divergence_limit() const;
    // r.skipped (non-finite loss or gradient), or a loss above divergence_limit()
    bool diverged(const StepResult& r) const;
    bool finished() const { return steps_done() >= trainer_->train_config().steps; }

    // ---------------------------------------------------------------- probes that need the run's data
    // does any output depend on a later input? On the first validation sequence (T+1 forward passes)
    CausalityReport causality();
    // this run's weights read by another variant's model, on the validation batches; "" or a sentence
    std::string evaluate_as(AttentionVariant variant, double& loss);
    // induction task only (throws otherwise): per-head scores and copy losses on kInductionProbes task sequences
    InductionMeasurement measure_induction();
    // induction task only: the same measurement with the heads of ablate ([layer, head], e.g. every head of layer 0)
    // switched off for it alone (a HeadEdit: the model is put back exactly); throws mha::Error for a head that does
    // not exist
    InductionMeasurement measure_induction_without(const std::vector<std::pair<int, int>>& ablate);
    // every task: each head's importance (the validation loss with it alone off, minus the loss as trained) and the
    // loss with the heads switched off cumulatively, least important first (head_pruning.hpp); the model is put
    // back exactly
    PruningCurve prune_heads();
    // induction task only (throws otherwise): trains to the end of the schedule, measuring (measure_induction) before
    // the first step when none was taken, every eval_every steps and at the last: the points find_phase_change reads
    // (phase_change.hpp), the best last-layer score and both copy losses; throws mha::Error for eval_every < 1
    PhaseSeries train_measuring_phase(int eval_every);
    // induction task only: attention on the probe [BOS, r, r] with the longest trained segment
    AttentionMaps probe_attention();
    // every task: per-head scores (previous, first, entropy, mean distance, attention by offset) on the first
    // validation sequence, the same sequence at every call, so the values of one head over training are comparable;
    // its tokens are characters on the text task and numbers otherwise
    HeadTrace trace();
    // the sequence trace() measures on (ProbeSequence)
    ProbeSequence probe_sequence() const;
    // text task only ("" otherwise): n characters after prompt (a newline when empty) at temperature, from seed;
    // throws mha::Error for n outside 1..RunLimits::max_sample_chars or a temperature outside 0..5
    std::string sample(const std::string& prompt, int n, double temperature, std::uint64_t seed);
    // the sample shown when the run ends (EndSample)
    std::string end_sample();

    // ---------------------------------------------------------------- snapshots
    // a safetensors checkpoint of the weights, with the AdamW state and progress when with_optimizer
    std::vector<std::uint8_t> snapshot(bool with_optimizer) const;
    // back to a snapshot of this same model (config and vocabulary must match). "" or a sentence.
    std::string restore(const std::uint8_t* data, std::size_t size);

    // ---------------------------------------------------------------- facts
    RunFacts facts() const;
    int steps_done() const { return trainer_->steps_done(); }
    Task task() const { return spec_.task; }
    const CharTokenizer& tokenizer() const { return tok_; }
    const EvalBatches& eval_batches() const { return eval_; }
    const Gpt<float>& model() const { return trainer_->model(); }
    Gpt<float>& model() { return trainer_->model(); }
    const Trainer& trainer() const { return *trainer_; }

private:
    friend std::string make_run(const RunSpec& spec, std::unique_ptr<Run>& out, bool* out_of_memory);
    Run() = default;
    // make_run's work; model: the model being built (the file's, once it is read), for the out-of-memory sentence
    static std::string build(const RunSpec& spec, std::unique_ptr<Run>& out, ModelConfig& model);
    BatchSampler sampler();
    // the far side's weights (P; model().params() itself when they were written there) into this run's model;
    // throws mha::Error for weights of another size
    void take_weights(const float* params, std::size_t P);

    RunSpec spec_;             // as built: model.vocab_size and train.seq_len filled in, checkpoint bytes dropped
    CharTokenizer tok_;        // text task: the text's (or the checkpoint's) symbols
    Dataset data_;             // text task
    EvalBatches eval_;
    std::unique_ptr<Trainer> trainer_;
    int unknown_ = 0;
    double baseline_ = 0;
};

}  // namespace mha
