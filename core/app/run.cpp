#include "run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>

#include "benchmark.hpp"
#include "checkpoint.hpp"
#include "error.hpp"

namespace mha {

// ---------------------------------------------------------------- validation
namespace {

// "" or the sentence for a text that is empty or too large to train on
std::string text_error(const std::string& text) {
    if (text.size() > DataLimits::max_text_bytes) {
        Dataset unused;  // make_text_dataset words the size message
        return make_text_dataset(text, CharTokenizer(), 1, unused);
    }
    if (text.empty()) return "The text is empty: paste or load some text to train on.";
    return "";
}

std::string eval_batches_error(int n) {
    if (n >= 1 && n <= RunLimits::max_eval_batches) return "";
    return "evaluation batches must be 1 to " + std::to_string(RunLimits::max_eval_batches) + ".";
}

// the model and schedule of spec once its vocabulary is known; "" or a sentence
std::string config_error(const ModelConfig& m, TrainConfig& t) {
    std::string err = validate(m);
    if (!err.empty()) return err;
    t.seq_len = m.max_seq_len;
    return validate(t, m);
}

}  // namespace

std::string validate(const RunSpec& spec) {
    if (task_row(spec.task).text) {
        const std::string err = text_error(spec.text);
        if (!err.empty()) return err;
    }
    // with a checkpoint the model comes from the file: make_run checks it there
    return spec.checkpoint.empty() ? validate_setup(spec) : eval_batches_error(spec.eval_batches);
}

std::uint64_t run_memory_bytes(const ModelConfig& m, int batch) {
    const std::vector<TensorSpec> table = parameter_table(m);
    const std::uint64_t P = std::uint64_t(table.back().offset) + table.back().size;
    const std::uint64_t A = activation_elements(m, batch, m.max_seq_len);
    constexpr std::uint64_t kRest = std::uint64_t(64) << 20;  // the text and its token ids, the module, the slack
    // TODO: a snapshot that wrote the moments from the Trainer's own buffers would need 3·P, not 5·P
    return sizeof(float) * (5 * P + 5 * P + 2 * A) + kRest;  // 5·P: the Trainer's other half's gradient too
}

namespace {

std::string gb(std::uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GB", bytes / 1073741824.0);  // GiB, as a browser's memory is counted
    return std::string(buf);
}

// "" when a run of m at batch B fits kRunMemoryLimit, else the sentence with the largest batch (or context) that does
std::string memory_error(ModelConfig m, int batch) {
    if (m.vocab_size < 256) m.vocab_size = 256;  // a text's vocabulary is known only once tokenized: a generous one
    const std::uint64_t need = run_memory_bytes(m, batch);
    if (need <= kRunMemoryLimit) return "";
    const std::string head = "This run needs about " + gb(need) + " of memory, more than the " + gb(kRunMemoryLimit) +
                             " a run may use in a browser tab";
    int B = batch - 1;
    while (B >= 1 && run_memory_bytes(m, B) > kRunMemoryLimit) --B;
    if (B >= 1) return head + ": at these sizes the largest batch that fits is B = " + std::to_string(B) + ".";
    ModelConfig shorter = m;
    while (shorter.max_seq_len > 1 && run_memory_bytes(shorter, 1) > kRunMemoryLimit) --shorter.max_seq_len;
    if (run_memory_bytes(shorter, 1) <= kRunMemoryLimit && shorter.max_seq_len >= 2)
        return head + ": even one sequence does not fit; at batch 1 the longest context that fits is T = " +
               std::to_string(shorter.max_seq_len) + ".";
    return head + ": choose a smaller model (D or the number of layers).";
}

// the sentence for a set-up that ran out of memory although the rule above let it through (the machine or the tab
// has less free than kRunMemoryLimit)
std::string out_of_memory_error(ModelConfig m, int batch) {
    if (m.vocab_size < 256) m.vocab_size = 256;
    return "There is not enough free memory for this run: at D = " + std::to_string(m.d_model) +
           ", H = " + std::to_string(m.n_heads) + ", L = " + std::to_string(m.n_layers) +
           ", T = " + std::to_string(m.max_seq_len) + " and B = " + std::to_string(batch) + " it needs about " +
           gb(run_memory_bytes(m, batch)) + ". Close other programs or tabs, or choose a smaller batch, context or model.";
}

}  // namespace

std::string validate_setup(const RunSpec& spec) {
    if (std::string err = eval_batches_error(spec.eval_batches); !err.empty()) return err;
    const TaskRow& k = task_row(spec.task);
    ModelConfig m = spec.model;
    // the task first, so that its vocabulary is known (the offsets task's S^K classes)
    if (std::string err = k.validate(spec, m.max_seq_len); !err.empty()) return err;
    m.vocab_size = k.vocab(spec);
    TrainConfig t = spec.train;
    std::string err = config_error(m, t);
    if (err.empty()) err = memory_error(m, t.batch);
    return err;
}

// ---------------------------------------------------------------- building a run
// the training batches of the run's task: windows of the text, or the task's own sampler (task_table.cpp)
BatchSampler Run::sampler() {
    const TaskRow& k = task_row(spec_.task);
    if (!k.text) return k.sampler(spec_);
    return [this](Rng& rng, int B, int T, int* x, int* y) { data_.sample_batch(rng, B, T, x, y); };
}

std::string make_run(const RunSpec& spec, std::unique_ptr<Run>& out, bool* out_of_memory) {
    out.reset();
    if (out_of_memory) *out_of_memory = false;
    ModelConfig model = spec.model;
    try {
        return Run::build(spec, out, model);
    } catch (const std::bad_alloc&) {
        // the run under construction was freed on the way out: nothing of it is left
        out.reset();
        if (out_of_memory) *out_of_memory = true;
        return out_of_memory_error(model, spec.train.batch);
    }
}

std::string Run::build(const RunSpec& spec, std::unique_ptr<Run>& out, ModelConfig& model) {
    std::string err = validate(spec);
    if (!err.empty()) return err;
    std::unique_ptr<Run> run(new Run());
    Run& r = *run;
    r.spec_ = spec;
    // the file's bytes are the caller's: a run keeps none of them (clear() would keep their capacity, a second copy
    // of the file for the run's life)
    std::vector<std::uint8_t>().swap(r.spec_.checkpoint);
    ModelConfig& m = r.spec_.model;
    TrainConfig& t = r.spec_.train;

    Checkpoint c;
    const bool from_file = !spec.checkpoint.empty();
    if (from_file) {
        err = load_checkpoint(spec.checkpoint.data(), spec.checkpoint.size(), c);
        if (!err.empty()) return err;
        m = c.config;
        model = m;
    }
    // the vocabulary: the text's characters (or the checkpoint's symbols), or the task's V
    const TaskRow& k = task_row(spec.task);
    if (k.text) {
        err = from_file && !c.vocab.empty() ? CharTokenizer::from_string(c.vocab, r.tok_)
                                            : CharTokenizer::from_text(spec.text, r.tok_);
        if (!err.empty()) return from_file ? "the checkpoint's vocabulary: " + err : err;
        if (from_file && r.tok_.vocab_size() != m.vocab_size)
            return "the checkpoint's model has a vocabulary of " + std::to_string(m.vocab_size) + " symbols, but " +
                   (c.vocab.empty() ? "the text has " : "its vocabulary lists ") + std::to_string(r.tok_.vocab_size()) +
                   ".";
        m.vocab_size = r.tok_.vocab_size();
    } else {
        if (std::string e = k.validate(spec, m.max_seq_len); !e.empty()) return e;
        const int V = k.vocab(spec);
        if (from_file && m.vocab_size != V)
            return "the checkpoint's model has a vocabulary of " + std::to_string(m.vocab_size) + " symbols, but the " +
                   k.name + " task has " + std::to_string(V) + ".";
        m.vocab_size = V;
    }
    err = config_error(m, t);
    // the memory rule again, for the model a checkpoint brings (validate_setup saw the form's, or none)
    if (err.empty()) err = memory_error(m, t.batch);
    if (!err.empty()) return err;
    if (from_file && c.has_optimizer && c.optimizer.step > t.steps)
        return "the checkpoint has already trained " + std::to_string(c.optimizer.step) + " steps, more than the " +
               std::to_string(t.steps) + " of this schedule: raise the number of steps.";

    // the data, the fixed validation batches and the baseline
    const std::uint64_t eval = eval_seed(t.seed);
    if (k.text) {
        err = make_text_dataset(spec.text, r.tok_, m.max_seq_len, r.data_, DataLimits::default_val_fraction, &r.unknown_);
        if (!err.empty()) return err;
        r.baseline_ = unigram_baseline_loss(r.data_.train, r.data_.val, r.tok_.vocab_size());
        r.eval_ = r.data_.eval_batches(spec.eval_batches, t.batch, m.max_seq_len, eval);
    } else {
        r.baseline_ = k.baseline_loss(m.vocab_size);
        r.eval_ = sample_eval_batches(r.sampler(), spec.eval_batches, t.batch, m.max_seq_len, eval);
    }
    r.trainer_ = std::make_unique<Trainer>(m, t, r.sampler());
    if (from_file) r.trainer_->restore(c);
    // everything a step and an evaluation need (both (B,T)), allocated now: memory that runs out fails the set-up,
    // never a run's first step (weights, gradients and AdamW moments are the Trainer's, already made)
    r.trainer_->model().reserve(t.batch, m.max_seq_len);
    out = std::move(run);
    return "";
}

// ---------------------------------------------------------------- training
TrainChunk Run::train(int n) {
    if (n < 1 || n > RunLimits::max_chunk)
        throw Error("the number of steps to train at once must be 1 to " + std::to_string(RunLimits::max_chunk) + ".");
    TrainChunk chunk;
    const int left = trainer_->train_config().steps - trainer_->steps_done();
    for (int i = 0; i < std::min(n, left); ++i) {
        chunk.steps.push_back(trainer_->step());
        if (diverged(chunk.steps.back())) {
            chunk.diverged = i;
            break;
        }
    }
    chunk.steps_done = steps_done();
    return chunk;
}

void Run::take_weights(const float* params, std::size_t P) {
    MHA_CHECK(P == model().num_params(), "the weights sent are not this model's");
    if (params != model().params()) std::copy(params, params + P, model().params());
}

double Run::half_gradient_at(const int* x, const int* y, int B, int T, int loss_norm, const float* params,
                             std::size_t P) {
    const TrainConfig& t = trainer_->train_config();
    MHA_CHECK(B >= 1 && B <= t.batch && T == t.seq_len && loss_norm >= 0 && loss_norm <= t.batch * T,
              "the half batch does not fit this run");
    take_weights(params, P);
    return half_gradient(model(), x, y, B, T, loss_norm);
}

int Run::train_to_end() {
    const int first = steps_done();
    while (!finished()) train(RunLimits::max_chunk);
    return steps_done() - first;
}

double Run::evaluate() {
    RemoteHalf* remote = trainer_->remote();
    const int n = eval_.n_batches, theirs = remote ? n / 2 : 0, mine = n - theirs;
    if (theirs > 0) remote->send_eval(mine, theirs, model().params(), model().num_params());
    std::vector<double> losses(std::size_t(n), 0.0);
    for (int i = 0; i < mine; ++i) losses[i] = evaluate_batch(model(), eval_, i);
    const bool came = theirs > 0 && remote->receive_eval(losses.data() + mine, theirs);
    for (int i = came ? n : mine; i < n; ++i) losses[i] = evaluate_batch(model(), eval_, i);
    double total = 0;  // evaluate_loss's sum, in its order
    for (double l : losses) total += l;
    return total / n;
}

void Run::evaluate_batches_at(int first, int count, const float* params, std::size_t P, double* losses) {
    MHA_CHECK(first >= 0 && count >= 1 && first + count <= eval_.n_batches,
              "the evaluation batches asked for are not this run's");
    take_weights(params, P);
    for (int i = 0; i < count; ++i) losses[i] = evaluate_batch(model(), eval_, first + i);
}

double Run::divergence_limit() const { return kDivergenceFactor * std::log(double(model().config().vocab_size)); }

bool Run::diverged(const StepResult& r) const {
    return r.skipped || !std::isfinite(r.loss) || r.loss > divergence_limit();
}

std::string Run::set_schedule(const TrainConfig& train) {
    const TrainConfig& now = trainer_->train_config();
    TrainConfig t = train;
    t.seq_len = now.seq_len;
    std::string err = validate(t, model().config());
    if (!err.empty()) return err;
    if (steps_done() > t.steps)
        return "the run has already taken " + std::to_string(steps_done()) + " steps, more than " +
               std::to_string(t.steps) + ".";
    if (t.batch != now.batch || t.seed != now.seed)
        return "the batch size and the seed of a run cannot change (they fix its data and evaluation batches).";
    trainer_->set_schedule(t);
    spec_.train = t;
    return "";
}

// ---------------------------------------------------------------- probes that need the run's data
CausalityReport Run::causality() {
    // the first validation sequence: real data for a text run, a repeated segment for an induction run
    const std::vector<int> idx(eval_.x.begin(), eval_.x.begin() + eval_.T);
    return check_causality(model(), idx);
}

std::string Run::evaluate_as(AttentionVariant variant, double& loss) {
    return mha::evaluate_as(model(), variant, eval_, loss);
}

InductionMeasurement Run::measure_induction() {
    if (!task_row(spec_.task).induction_probes) throw Error("this run is not on the induction task.");
    return mha::measure_induction(model(), spec_.induction, model().config().max_seq_len, kInductionProbes, kProbeSeed);
}

InductionMeasurement Run::measure_induction_without(const std::vector<std::pair<int, int>>& ablate) {
    if (!task_row(spec_.task).induction_probes) throw Error("this run is not on the induction task.");
    HeadEdit off(model(), ablate, false);
    return measure_induction();
}

PruningCurve Run::prune_heads() { return mha::prune_heads(model(), eval_); }

PhaseSeries Run::train_measuring_phase(int eval_every) {
    if (!task_row(spec_.task).induction_probes) throw Error("this run is not on the induction task.");
    MHA_CHECK(eval_every >= 1, "the evaluation interval must be at least one step.");
    PhaseSeries s;
    auto measure = [&] {
        const InductionMeasurement m = measure_induction();
        s.step.push_back(steps_done()), s.score.push_back(m.best_induction);
        s.loss_first.push_back(m.loss_first), s.loss_repeat.push_back(m.loss_repeat);
    };
    if (steps_done() == 0) measure();
    while (!finished()) {
        // to the next multiple of eval_every (or the end); a chunk ends early at a step that blew up, and the run
        // goes on from there, as mha-train's loop does
        const int done = steps_done();
        const int until = std::min(trainer_->train_config().steps, (done / eval_every + 1) * eval_every);
        if (train(std::min(until - done, RunLimits::max_chunk)).steps.empty()) break;
        if (steps_done() % eval_every == 0 || finished()) measure();
    }
    return s;
}

AttentionMaps Run::probe_attention() {
    if (!task_row(spec_.task).induction_probes) throw Error("this run is not on the induction task.");
    return induction_probe_maps(model(), spec_.induction.seg_max);
}

ProbeSequence Run::probe_sequence() const {
    ProbeSequence p;
    p.ids.assign(eval_.x.begin(), eval_.x.begin() + eval_.T);
    for (int id : p.ids) p.tokens.push_back(task_row(spec_.task).text ? tok_.decode({id}) : std::to_string(id));
    return p;
}

HeadTrace Run::trace() {
    ProbeSequence p = probe_sequence();
    return head_trace(model(), p.ids, std::move(p.tokens));
}

std::string Run::sample(const std::string& prompt, int n, double temperature, std::uint64_t seed) {
    if (n < 1 || n > RunLimits::max_sample_chars)
        throw Error("a sample is 1 to " + std::to_string(RunLimits::max_sample_chars) + " characters.");
    if (!(temperature >= 0 && temperature <= 5)) throw Error("the temperature must be 0 to 5.");
    if (!task_row(spec_.task).text) return "";
    std::vector<int> ids = tok_.encode(prompt);
    if (ids.empty()) {
        const int nl = tok_.id_of(U'\n');
        ids.push_back(nl != CharTokenizer::unknown_id ? nl : std::min(1, tok_.vocab_size() - 1));
    }
    Rng coin(seed);
    return tok_.decode(sample_tokens(model(), ids, n, temperature, coin));
}

std::string Run::end_sample() {
    return sample("\n", EndSample::chars, EndSample::temperature, EndSample::seed(spec_.train.seed));
}

// ---------------------------------------------------------------- snapshots
std::vector<std::uint8_t> Run::snapshot(bool with_optimizer) const {
    const std::string vocab = task_row(spec_.task).text ? tok_.to_string() : "";  // a task's ids are its own
    if (!with_optimizer) return save_checkpoint(model().config(), model().params(), vocab, nullptr, task_json(spec_));
    const CheckpointOptimizer opt = trainer_->optimizer_state();
    return save_checkpoint(model().config(), model().params(), vocab, &opt, task_json(spec_));
}

std::string Run::restore(const std::uint8_t* data, std::size_t size) {
    Checkpoint c;
    std::string err = load_checkpoint(data, size, c);
    if (!err.empty()) return err;
    if (!same_model(c.config, model().config()))
        return "this checkpoint is of another model (" + config_to_json(c.config) + "), not of this run's (" +
               config_to_json(model().config()) + ").";
    if (!c.vocab.empty() && task_row(spec_.task).text && c.vocab != tok_.to_string())
        return "this checkpoint has another vocabulary than this run.";
    if (c.has_optimizer && c.optimizer.step > trainer_->train_config().steps)
        return "this checkpoint is at step " + std::to_string(c.optimizer.step) + ", beyond this run's " +
               std::to_string(trainer_->train_config().steps) + " steps.";
    trainer_->restore(c);
    return "";
}

// ---------------------------------------------------------------- facts
RunFacts Run::facts() const {
    RunFacts f;
    f.model = model().config();
    f.train = trainer_->train_config();
    f.task = spec_.task;
    f.task_json = task_json(spec_);
    f.induction = spec_.induction;
    f.offsets = spec_.offsets;
    f.steps_done = steps_done();
    f.params = model().num_params();
    f.train_tokens = data_.train.size();
    f.val_tokens = data_.val.size();
    f.unknown_chars = unknown_;
    f.baseline_loss = baseline_;
    f.divergence_limit = divergence_limit();
    f.step_flops = training_step_flops(f.model, f.train.batch, f.train.seq_len);
    return f;
}

}  // namespace mha
