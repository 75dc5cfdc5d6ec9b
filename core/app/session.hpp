// A training run as one object, for the page's workers (through web/bindings.cpp) and for native tests:
// the tokenizer, the dataset, the Trainer and its fixed evaluation batches, plus everything the page asks of a
// run — attention maps for a text, per-head scores, head ablation, tied heads, samples, snapshots.
//
//   TrainingSession s;
//   std::string err = s.init(model, train, text);      // "" or a sentence; V comes from the text
//   auto steps = s.train(10);                           // up to 10 steps (fewer at the end of the schedule)
//   double val = s.evaluate();                          // mean loss on the fixed validation batches
//   AttentionMaps m = s.attention("In the beginning");  // (L,H,T,T) for the characters of the text
//   auto bytes = s.snapshot(true);                      // a safetensors checkpoint with the AdamW state
//
//   CausalityReport c = s.causality();                  // leaking (t, s) pairs of the run's variant
//   s.init_induction(model, train, InductionTaskConfig{}); // panel 7: the repeated-segment task, no text
//   InductionMeasurement im = s.measure_induction(16);  // per-head scores, first/repeated-copy losses
//
// Errors: user-facing problems (bad settings, bad text, a foreign checkpoint) come back as sentences; calls
// made out of order (train before init) throw mha::Error, which the bindings turn into a sentence too.
// A session is neither copied nor moved: the Trainer's batch sampler points into the session's dataset.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "causality.hpp"
#include "checkpoint.hpp"
#include "config.hpp"
#include "dataset.hpp"
#include "induction_study.hpp"
#include "metrics.hpp"
#include "tokenizer.hpp"
#include "train.hpp"

namespace mha {

constexpr int kSessionEvalBatches = 4;      // fixed validation batches (B,T each) per evaluation
constexpr int kMaxSampleChars = 2000;       // longest sample the page asks for
constexpr int kProbeSeed = 12345;           // seed of the induction probe (the same for every run)
// A run has blown up when a step's loss is not finite (the Trainer then skips the update) or above this many
// times ln V, the loss of guessing uniformly. AdamW's normalised steps and the log-sum-exp loss keep the loss
// finite even at the largest learning rate the config accepts (10: the loss climbs past 1000 instead), so the
// page watches for both.
constexpr double kDivergenceFactor = 2.0;

// the layers' attention weights for one text
struct AttentionMaps {
    std::vector<std::string> tokens;  // (T) the characters the model saw, as UTF-8
    int L = 0, H = 0, T = 0;
    std::vector<float> att;           // (L,H,T,T)
    bool truncated = false;           // the text was longer than the context: only its first T characters
    int unknown = 0;                  // characters outside the vocabulary (read as the unknown symbol)
};

// scores of every head, (L*H) in layer-major order
struct HeadScoreTable {
    int L = 0, H = 0;
    int probe_len = 0;                // L of the induction probe [BOS, r, r]
    std::vector<HeadScores> heads;    // (L*H)
    std::vector<std::string> labels;  // (L*H) head_label of each
};

class TrainingSession {
public:
    TrainingSession() = default;
    TrainingSession(const TrainingSession&) = delete;
    TrainingSession& operator=(const TrainingSession&) = delete;

    // A fresh run on text: the vocabulary is the text's characters (model.vocab_size is ignored), train.seq_len
    // is the model's max_seq_len. Returns "" or a sentence (bad config, text empty/too short/too long).
    std::string init(const ModelConfig& model, const TrainConfig& train, const std::string& text,
                     int eval_batches = kSessionEvalBatches);
    // A run from a checkpoint (weights, and the AdamW state and progress when it has them): the model config
    // and vocabulary come from the file, the data from text, the schedule from train. "" or a sentence.
    std::string init_from_checkpoint(const std::uint8_t* data, std::size_t size, const TrainConfig& train,
                                     const std::string& text, int eval_batches = kSessionEvalBatches);
    // A fresh run on the induction task (no text): the model's vocab_size is task.vocab, train.seq_len is the
    // model's max_seq_len; the validation batches are drawn from the same task with a fixed seed, as mha-train
    // does. "" or a sentence.
    std::string init_induction(const ModelConfig& model, const TrainConfig& train, const InductionTaskConfig& task,
                               int eval_batches = kSessionEvalBatches);
    bool ready() const { return trainer_ != nullptr; }
    // true for a run of init_induction (no text, no tokenizer: attention(), head_scores() and sample() refuse)
    bool induction_task() const { return induction_; }
    const InductionTaskConfig& induction_config() const { return task_; }

    // ---------------------------------------------------------------- training
    // up to n steps, stopping at the end of the schedule; heads are re-enabled and a tie undone first, so
    // training always continues the real model
    std::vector<StepResult> train(int n);
    // mean loss over the fixed validation batches, with the current ablation and tie
    double evaluate();
    // a new schedule (e.g. a lower learning rate after a blow-up), keeping weights, AdamW state and progress.
    // "" or a sentence.
    std::string set_train_config(const TrainConfig& train);
    // the loss above which a step counts as blown up: kDivergenceFactor · ln V
    double divergence_limit() const;
    // r.skipped (non-finite loss or gradient), or a loss above divergence_limit()
    bool diverged(const StepResult& r) const;

    // ---------------------------------------------------------------- looking inside
    // attention of every layer for the first max_seq_len characters of text; an empty text throws
    AttentionMaps attention(const std::string& text);
    // scores of every head: previous-token, first-token and entropy on text, induction on a fixed probe
    HeadScoreTable head_scores(const std::string& text);
    // head ablation: a disabled head's output is zero
    void set_head_enabled(int layer, int head, bool enabled);
    void enable_all_heads();
    // "force all heads to the same weights": in every layer, copy head source's Q/K/V rows to all heads.
    // The weights before are kept, and untie() puts them back.
    void tie(int source_head);
    void untie();
    bool tied() const { return !untied_params_.empty(); }

    // ---------------------------------------------------------------- break it, induction heads
    // does any output position depend on a later input token? Checked on the first validation sequence (T tokens)
    // by perturbing each position in turn (causality.hpp): the exact dependency pattern, (T,T), and the leaks.
    // Runs T+1 forward passes of one sequence; works on random weights as well as trained ones.
    CausalityReport causality();
    // the loss on the fixed validation batches of this run's weights read by the model of another variant with the
    // same parameter layout (canonical weights in the swapped-order model: "silently a different model"). Returns
    // "" and sets loss, or a sentence when the two variants do not share a parameter layout.
    std::string evaluate_as(AttentionVariant variant, double& loss);
    // induction run only: per-head previous-token and induction scores and the first/repeated-copy losses on
    // n_probes sequences of the task (induction_study.hpp), drawn from kProbeSeed
    InductionMeasurement measure_induction(int n_probes);
    // induction run only: the attention of every layer on the fixed probe [BOS, r, r] of segment seg_max, to show
    // the copy structure at a glance; tokens are the ids as decimal strings, "BOS" for token 0
    AttentionMaps probe_attention();

    // temperature sampling of n characters after prompt (empty prompt: a newline, or the first symbol)
    std::string sample(const std::string& prompt, int n, double temperature, std::uint64_t seed);

    // ---------------------------------------------------------------- snapshots
    // a safetensors checkpoint of the current weights (the untied ones while tied), with the AdamW state and
    // progress when with_optimizer
    std::vector<std::uint8_t> snapshot(bool with_optimizer) const;
    // loads a snapshot of this same model (config and vocabulary must match): weights, and the AdamW state and
    // progress when the file has them. Undoes a tie, keeps ablations. "" or a sentence.
    std::string restore(const std::uint8_t* data, std::size_t size);
    // copies the weights of another session of the same model (the page's inspector follows a training run)
    std::string copy_weights_from(const TrainingSession& other);

    // ---------------------------------------------------------------- facts
    const ModelConfig& model_config() const;
    const TrainConfig& train_config() const;
    int steps_done() const;
    std::size_t num_params() const;
    const CharTokenizer& tokenizer() const { return tok_; }
    std::size_t train_tokens() const { return data_.train.size(); }
    std::size_t val_tokens() const { return data_.val.size(); }
    int unknown_chars() const { return unknown_; }
    // mean validation loss of the unigram model: what a model that ignores context can reach
    double baseline_loss() const { return baseline_; }

private:
    // what every init does first: forgets the previous run; "" or the sentence for a bad eval_batches
    std::string reset(int eval_batches);
    // "" or the sentence for a text that is empty or too large to train on
    std::string text_error(const std::string& text);
    std::string setup_data(const std::string& text, int T);
    // the weights a snapshot or another model should see: the untied ones while tied
    const float* weights() const { return tied() ? untied_params_.data() : trainer().model().params(); }
    Trainer& trainer();
    const Trainer& trainer() const;

    CharTokenizer tok_;
    Dataset data_;
    EvalBatches eval_;
    std::unique_ptr<Trainer> trainer_;
    std::vector<float> untied_params_;  // the weights before tie(), empty when not tied
    bool induction_ = false;
    InductionTaskConfig task_;
    std::vector<int> seg_len_, seg_start_;  // (B) scratch of the induction sampler
    BatchSampler make_sampler();
    int unknown_ = 0;
    double baseline_ = 0;
};

}  // namespace mha
