#include "session.hpp"

#include <algorithm>
#include <cmath>

#include "error.hpp"
#include "induction_task.hpp"
#include "model.hpp"

namespace mha {

// ---------------------------------------------------------------- set-up
std::string TrainingSession::reset(int eval_batches) {
    trainer_.reset();
    untied_params_.clear();
    induction_ = false;
    if (eval_batches < 1 || eval_batches > 64) return "evaluation batches must be 1 to 64.";
    return "";
}

std::string TrainingSession::text_error(const std::string& text) {
    if (text.size() > DataLimits::max_text_bytes) {
        Dataset unused;  // make_text_dataset words the size message
        return make_text_dataset(text, tok_, 1, unused);
    }
    if (text.empty()) return "The text is empty: paste or load some text to train on.";
    return "";
}

std::string TrainingSession::setup_data(const std::string& text, int T) {
    Dataset data;
    int unknown = 0;
    std::string err = make_text_dataset(text, tok_, T, data, DataLimits::default_val_fraction, &unknown);
    if (!err.empty()) return err;
    data_ = std::move(data);
    unknown_ = unknown;
    baseline_ = unigram_baseline_loss(data_.train, data_.val, tok_.vocab_size());
    return "";
}

std::string TrainingSession::init(const ModelConfig& model, const TrainConfig& train, const std::string& text,
                                  int eval_batches) {
    std::string err = reset(eval_batches);
    if (err.empty()) err = text_error(text);
    if (!err.empty()) return err;
    err = CharTokenizer::from_text(text, tok_);
    if (!err.empty()) return err;
    ModelConfig m = model;
    m.vocab_size = tok_.vocab_size();
    err = validate(m);
    if (!err.empty()) return err;
    TrainConfig t = train;
    t.seq_len = m.max_seq_len;
    err = validate(t, m);
    if (!err.empty()) return err;
    err = setup_data(text, m.max_seq_len);
    if (!err.empty()) return err;
    eval_ = data_.eval_batches(eval_batches, t.batch, m.max_seq_len, eval_seed(t.seed));
    trainer_ = std::make_unique<Trainer>(m, t, make_sampler());
    return "";
}

std::string TrainingSession::init_from_checkpoint(const std::uint8_t* data, std::size_t size, const TrainConfig& train,
                                                  const std::string& text, int eval_batches) {
    std::string err = reset(eval_batches);
    if (!err.empty()) return err;
    Checkpoint c;
    err = load_checkpoint(data, size, c);
    if (err.empty()) err = text_error(text);
    if (!err.empty()) return err;
    err = c.vocab.empty() ? CharTokenizer::from_text(text, tok_) : CharTokenizer::from_string(c.vocab, tok_);
    if (!err.empty()) return "the checkpoint's vocabulary: " + err;
    if (tok_.vocab_size() != c.config.vocab_size)
        return "the checkpoint's model has a vocabulary of " + std::to_string(c.config.vocab_size) + " symbols, but " +
               (c.vocab.empty() ? "the text has " : "its vocabulary lists ") + std::to_string(tok_.vocab_size()) + ".";
    TrainConfig t = train;
    t.seq_len = c.config.max_seq_len;
    err = validate(t, c.config);
    if (!err.empty()) return err;
    if (c.has_optimizer && c.optimizer.step > t.steps)
        return "the checkpoint has already trained " + std::to_string(c.optimizer.step) + " steps, more than the " +
               std::to_string(t.steps) + " of this schedule: raise the number of steps.";
    err = setup_data(text, c.config.max_seq_len);
    if (!err.empty()) return err;
    eval_ = data_.eval_batches(eval_batches, t.batch, c.config.max_seq_len, eval_seed(t.seed));
    trainer_ = std::make_unique<Trainer>(c.config, t, make_sampler());
    trainer_->restore(c);
    return "";
}

// the training batches of this session's task: windows of the text, or the shifted repeated-segment task
// (its per-sequence segment lengths and starts go to buffers that grow once to the batch size)
BatchSampler TrainingSession::make_sampler() {
    if (induction_)
        return [this](Rng& rng, int B, int T, int* x, int* y) {
            seg_len_.resize(B), seg_start_.resize(B);
            fill_shifted_batch(rng, B, T, task_.vocab, task_.seg_min, task_.seg_max, x, y, seg_len_.data(),
                               seg_start_.data());
        };
    return [this](Rng& rng, int B, int T, int* x, int* y) { data_.sample_batch(rng, B, T, x, y); };
}

std::string TrainingSession::init_induction(const ModelConfig& model, const TrainConfig& train,
                                            const InductionTaskConfig& task, int eval_batches) {
    std::string err = reset(eval_batches);
    if (!err.empty()) return err;
    ModelConfig m = model;
    m.vocab_size = task.vocab;
    err = validate(m);
    if (!err.empty()) return err;
    err = validate_induction_task(m.max_seq_len, task.vocab, task.seg_min, task.seg_max);
    if (!err.empty()) return err;
    if (task.seg_max < 2) return "the repeated segment must be at least 2 tokens long to measure induction.";
    TrainConfig t = train;
    t.seq_len = m.max_seq_len;
    err = validate(t, m);
    if (!err.empty()) return err;
    tok_ = CharTokenizer();
    data_ = Dataset();
    unknown_ = 0;
    task_ = task;
    induction_ = true;
    baseline_ = std::log(double(task.vocab - 1));  // a uniform guess over the symbols that follow BOS
    BatchSampler sampler = make_sampler();
    // the validation batches: the same task from a fixed seed, as mha-train draws them
    eval_ = sample_eval_batches(sampler, eval_batches, t.batch, m.max_seq_len, eval_seed(t.seed));
    trainer_ = std::make_unique<Trainer>(m, t, sampler);
    return "";
}

Trainer& TrainingSession::trainer() {
    MHA_CHECK(trainer_ != nullptr, "the run is not set up: call init first");
    return *trainer_;
}
const Trainer& TrainingSession::trainer() const {
    MHA_CHECK(trainer_ != nullptr, "the run is not set up: call init first");
    return *trainer_;
}

// ---------------------------------------------------------------- training
std::vector<StepResult> TrainingSession::train(int n) {
    Trainer& tr = trainer();
    MHA_CHECK(n >= 0 && n <= 100000, "train: n must be 0 to 100000");
    untie();
    enable_all_heads();
    std::vector<StepResult> out;
    const int left = tr.train_config().steps - tr.steps_done();
    for (int i = 0; i < std::min(n, left); ++i) out.push_back(tr.step());
    return out;
}

double TrainingSession::evaluate() { return trainer().evaluate(eval_); }

std::string TrainingSession::set_train_config(const TrainConfig& train) {
    Trainer& old = trainer();
    TrainConfig t = train;
    t.seq_len = old.model().config().max_seq_len;
    std::string err = validate(t, old.model().config());
    if (!err.empty()) return err;
    if (old.steps_done() > t.steps)
        return "the run has already taken " + std::to_string(old.steps_done()) + " steps, more than " +
               std::to_string(t.steps) + ".";
    if (t.batch != old.train_config().batch || t.seed != old.train_config().seed)
        return "the batch size and the seed of a run cannot change (they fix its data and evaluation batches).";
    untie();
    Checkpoint c;
    c.config = old.model().config();
    c.params.assign(old.model().params(), old.model().params() + old.model().num_params());
    c.has_optimizer = true;
    c.optimizer = old.optimizer_state();
    std::vector<unsigned char> enabled;
    for (int l = 0; l < c.config.n_layers; ++l)
        for (int h = 0; h < c.config.n_heads; ++h) enabled.push_back(old.model().head_enabled(l, h));
    auto next = std::make_unique<Trainer>(c.config, t, make_sampler());
    next->restore(c);
    for (int l = 0, i = 0; l < c.config.n_layers; ++l)
        for (int h = 0; h < c.config.n_heads; ++h) next->model().set_head_enabled(l, h, enabled[i++] != 0);
    trainer_ = std::move(next);
    return "";
}

double TrainingSession::divergence_limit() const {
    return kDivergenceFactor * std::log(double(trainer().model().config().vocab_size));
}

bool TrainingSession::diverged(const StepResult& r) const {
    return r.skipped || !std::isfinite(r.loss) || r.loss > divergence_limit();
}

// ---------------------------------------------------------------- looking inside
AttentionMaps TrainingSession::attention(const std::string& text) {
    Gpt<float>& m = trainer().model();
    const ModelConfig& c = m.config();
    if (induction_) throw Error("this run is on the induction task, which has no text: see its probe instead.");
    const std::vector<char32_t> cps = utf8_decode(text);
    if (cps.empty()) throw Error("Type at least one character to see the attention maps.");
    AttentionMaps r;
    r.truncated = static_cast<int>(cps.size()) > c.max_seq_len;
    const int T = std::min<int>(static_cast<int>(cps.size()), c.max_seq_len);
    std::vector<int> ids(T);
    for (int t = 0; t < T; ++t) {
        ids[t] = tok_.id_of(cps[t]);
        r.unknown += ids[t] == CharTokenizer::unknown_id;
        std::string s;
        utf8_append(s, cps[t]);
        r.tokens.push_back(s);
    }
    m.forward(ids.data(), nullptr, 1, T);
    r.L = c.n_layers, r.H = c.n_heads, r.T = T;
    const std::size_t per_layer = std::size_t(r.H) * T * T;
    r.att.resize(per_layer * r.L);
    for (int l = 0; l < r.L; ++l) std::copy(m.attention(l), m.attention(l) + per_layer, r.att.begin() + l * per_layer);
    return r;
}

HeadScoreTable TrainingSession::head_scores(const std::string& text) {
    const AttentionMaps maps = attention(text);
    Gpt<float>& m = trainer().model();
    const ModelConfig& c = m.config();
    HeadScoreTable r;
    r.L = c.n_layers, r.H = c.n_heads;
    // the probe [BOS, r, r]: as long as the context allows, at most 2·24+1; BOS is the unknown symbol (id 0),
    // which never occurs in the repeated segment
    r.probe_len = std::min(24, (c.max_seq_len - 1) / 2);
    std::vector<float> probe_att;
    const int Tp = 2 * r.probe_len + 1;
    const bool can_probe = r.probe_len >= 2 && c.vocab_size >= 2;
    if (can_probe) {
        const std::vector<int> probe = induction_probe(r.probe_len, c.vocab_size, kProbeSeed);
        m.forward(probe.data(), nullptr, 1, Tp);
    }
    const int T = maps.T;
    const double max_entropy = uniform_row_entropy(T);
    for (int l = 0; l < r.L; ++l)
        for (int h = 0; h < r.H; ++h) {
            const float* a = maps.att.data() + (std::size_t(l) * r.H + h) * T * T;
            HeadScores s;
            s.previous = previous_token_score(a, T);
            s.first = first_token_score(a, T);
            s.entropy = mean_row_entropy(a, T);
            s.max_entropy = max_entropy;
            if (can_probe) s.induction = induction_score(m.attention(l) + std::size_t(h) * Tp * Tp, Tp, r.probe_len);
            r.heads.push_back(s);
            r.labels.push_back(head_label(s));
        }
    return r;
}

void TrainingSession::set_head_enabled(int layer, int head, bool enabled) {
    trainer().model().set_head_enabled(layer, head, enabled);
}

void TrainingSession::enable_all_heads() {
    Gpt<float>& m = trainer().model();
    for (int l = 0; l < m.config().n_layers; ++l)
        for (int h = 0; h < m.config().n_heads; ++h) m.set_head_enabled(l, h, true);
}

void TrainingSession::tie(int source_head) {
    Gpt<float>& m = trainer().model();
    MHA_CHECK(source_head >= 0 && source_head < m.config().n_heads, "no such head");
    if (!tied()) untied_params_.assign(m.params(), m.params() + m.num_params());
    for (int l = 0; l < m.config().n_layers; ++l) tie_heads(m, l, source_head);
}

void TrainingSession::untie() {
    if (!tied()) return;
    std::copy(untied_params_.begin(), untied_params_.end(), trainer().model().params());
    untied_params_.clear();
}

std::string TrainingSession::sample(const std::string& prompt, int n, double temperature, std::uint64_t seed) {
    Gpt<float>& m = trainer().model();
    if (n < 1 || n > kMaxSampleChars || induction_) return "";
    std::vector<int> ids = tok_.encode(prompt);
    if (ids.empty()) {
        const int nl = tok_.id_of(U'\n');
        ids.push_back(nl != CharTokenizer::unknown_id ? nl : std::min(1, tok_.vocab_size() - 1));
    }
    Rng coin(seed);
    return tok_.decode(sample_tokens(m, ids, n, std::max(0.0, std::min(temperature, 5.0)), coin));
}

// ---------------------------------------------------------------- break it, induction heads
CausalityReport TrainingSession::causality() {
    Gpt<float>& m = trainer().model();
    // the first validation sequence: real data for a text run, a repeated segment for an induction run
    const std::vector<int> idx(eval_.x.begin(), eval_.x.begin() + eval_.T);
    return check_causality(m, idx);
}

std::string TrainingSession::evaluate_as(AttentionVariant variant, double& loss) {
    const Gpt<float>& src = trainer().model();
    ModelConfig c = src.config();
    c.variant = variant;
    const std::string err = validate(c);
    if (!err.empty()) return err;
    Gpt<float> other(c);
    // the same tensors (names and shapes) in the same places, or the weights mean nothing to the other model
    bool same = other.tensors().size() == src.tensors().size();
    for (std::size_t i = 0; same && i < src.tensors().size(); ++i)
        same = other.tensors()[i].name == src.tensors()[i].name && other.tensors()[i].shape == src.tensors()[i].shape &&
               other.tensors()[i].offset == src.tensors()[i].offset;
    if (!same)
        return std::string("the ") + variant_name(variant) + " model has other parameters than the " +
               variant_name(src.config().variant) + " model: its weights cannot be loaded into it.";
    std::copy(weights(), weights() + src.num_params(), other.params());
    loss = evaluate_loss(other, eval_);
    return "";
}

InductionMeasurement TrainingSession::measure_induction(int n_probes) {
    MHA_CHECK(induction_, "measure_induction: this run is not on the induction task");
    MHA_CHECK(n_probes >= 1 && n_probes <= 256, "measure_induction: 1 to 256 probes");
    Gpt<float>& m = trainer().model();
    return mha::measure_induction(m, task_, m.config().max_seq_len, n_probes, kProbeSeed);
}

AttentionMaps TrainingSession::probe_attention() {
    MHA_CHECK(induction_, "probe_attention: this run is not on the induction task");
    Gpt<float>& m = trainer().model();
    const ModelConfig& c = m.config();
    const int L = task_.seg_max, T = 2 * L + 1;
    const std::vector<int> probe = induction_probe(L, c.vocab_size, kProbeSeed);
    m.forward(probe.data(), nullptr, 1, T);
    AttentionMaps r;
    r.L = c.n_layers, r.H = c.n_heads, r.T = T;
    for (int id : probe) r.tokens.push_back(id == INDUCTION_BOS ? "BOS" : std::to_string(id));
    const std::size_t per_layer = std::size_t(r.H) * T * T;
    r.att.resize(per_layer * r.L);
    for (int l = 0; l < r.L; ++l) std::copy(m.attention(l), m.attention(l) + per_layer, r.att.begin() + l * per_layer);
    return r;
}

// ---------------------------------------------------------------- snapshots
std::vector<std::uint8_t> TrainingSession::snapshot(bool with_optimizer) const {
    const Trainer& tr = trainer();
    const Gpt<float>& m = tr.model();
    if (!with_optimizer) return save_checkpoint(m.config(), weights(), tok_.to_string(), nullptr);
    const CheckpointOptimizer opt = tr.optimizer_state();
    return save_checkpoint(m.config(), weights(), tok_.to_string(), &opt);
}

std::string TrainingSession::restore(const std::uint8_t* data, std::size_t size) {
    Trainer& tr = trainer();
    Checkpoint c;
    std::string err = load_checkpoint(data, size, c);
    if (!err.empty()) return err;
    if (config_to_json(c.config) != config_to_json(tr.model().config()))
        return "this checkpoint is of another model (" + config_to_json(c.config) + "), not of this run's (" +
               config_to_json(tr.model().config()) + ").";
    if (!c.vocab.empty() && c.vocab != tok_.to_string()) return "this checkpoint has another vocabulary than this run.";
    if (c.has_optimizer && c.optimizer.step > tr.train_config().steps)
        return "this checkpoint is at step " + std::to_string(c.optimizer.step) + ", beyond this run's " +
               std::to_string(tr.train_config().steps) + " steps.";
    untied_params_.clear();
    tr.restore(c);
    return "";
}

std::string TrainingSession::copy_weights_from(const TrainingSession& other) {
    Trainer& tr = trainer();
    const Gpt<float>& src = other.trainer().model();
    if (config_to_json(src.config()) != config_to_json(tr.model().config())) return "the two runs have different models.";
    untied_params_.clear();
    std::copy(other.weights(), other.weights() + src.num_params(), tr.model().params());
    return "";
}

// ---------------------------------------------------------------- facts
const ModelConfig& TrainingSession::model_config() const { return trainer().model().config(); }
const TrainConfig& TrainingSession::train_config() const { return trainer().train_config(); }
int TrainingSession::steps_done() const { return trainer().steps_done(); }
std::size_t TrainingSession::num_params() const { return trainer().model().num_params(); }

}  // namespace mha
