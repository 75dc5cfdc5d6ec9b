// Training: a model, AdamW state, a data source, the schedule, the NaN guard, fixed evaluation batches,
// and sampling. The same code runs in the page's workers (wasm) and in the native trainer.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "checkpoint_state.hpp"
#include "dataset.hpp"
#include "model.hpp"
#include "optimizer.hpp"
#include "prng.hpp"

namespace mha {

struct TrainConfig {
    int batch = 16;          // B
    int seq_len = 64;        // T (<= the model's max_seq_len)
    int steps = 300;         // total steps of the schedule
    int warmup = 30;         // linear warm-up steps
    double lr = 3e-3;        // peak learning rate
    double min_lr = 3e-4;    // end of the cosine decay
    double clip = 1.0;       // global gradient-norm clip (0 = off)
    AdamWConfig adamw{};     // adamw.lr is ignored: the schedule sets it every step
    std::uint64_t seed = 1;  // weights (seed) and batches (seed + 1)
};

// Schedules the page and the trainer accept.
struct TrainLimits {
    static constexpr int max_batch = 512;
    static constexpr int max_steps = 1000000;
    static constexpr double max_lr = 10;
};

// "" or a sentence about what is wrong with the training settings for this model
std::string validate(const TrainConfig& t, const ModelConfig& m);

// fills x (B,T) with inputs and y (B,T) with next-token targets (-1 = no loss at that position)
using BatchSampler = std::function<void(Rng& rng, int B, int T, int* x, int* y)>;

// The seed of a run's fixed evaluation batches, from its training seed: the page and mha-train derive it the
// same way, so their curves of the same run are measured on the same batches.
inline std::uint64_t eval_seed(std::uint64_t train_seed) { return train_seed * 7919 + 13; }

// n fixed evaluation batches (n,B,T) drawn by a task's sampler from Rng(seed) alone (for tasks that have no
// held-out text, such as the induction task)
EvalBatches sample_eval_batches(const BatchSampler& sampler, int n, int B, int T, std::uint64_t seed);

// mean loss of model over fixed evaluation batches (forward only); throws mha::Error if they are empty or too long
double evaluate_loss(Gpt<float>& model, const EvalBatches& eval);
// the loss of batch i of eval (0 <= i < eval.n_batches): evaluate_loss is their sum, in order, over n_batches
double evaluate_batch(Gpt<float>& model, const EvalBatches& eval, int i);

// One half of a batch (x, y: (B,T)) at the model's weights: its gradient written into model.grads(), and its share
// of the whole batch's mean loss returned, both divided by loss_norm, the whole batch's count of targets (Gpt::
// forward). Trainer::step takes its halves with this, and so does a RemoteHalf's far side.
double half_gradient(Gpt<float>& model, const int* x, const int* y, int B, int T, int loss_norm);

// The second half of each step's batch, computed elsewhere: the page gives a run a helper worker on a core that
// would stand idle (web/js/helper.js). Trainer::step sends the half and the weights before it takes its own half's
// gradient, and receives the other's after; receive may fail (the helper went), and then the step takes that half
// itself. The step's numbers are the same bits either way (Trainer::step).
class RemoteHalf {
public:
    virtual ~RemoteHalf() = default;
    // the half (x, y: (B,T)), the whole batch's count of targets and the weights now (P)
    virtual void send(const int* x, const int* y, int B, int T, int loss_norm, const float* params, std::size_t P) = 0;
    // the half's gradient into grads (P) and its loss share into loss (half_gradient's), or false: none came
    virtual bool receive(float* grads, std::size_t P, double& loss) = 0;
    // the run's fixed evaluation batches [first, first + count) at the weights now (P), on the far side's copy of
    // them (a run of the same settings has the same ones): Run::evaluate sends the later batches there
    virtual void send_eval(int first, int count, const float* params, std::size_t P) = 0;
    // those batches' losses (evaluate_batch's, count of them) into losses, or false: none came
    virtual bool receive_eval(double* losses, int count) = 0;
};

struct StepResult {
    int step = 0;            // the step just taken (0-based)
    double loss = 0;         // training loss of this step's batch, before the update
    double grad_norm = 0;    // before clipping
    double lr = 0;           // the learning rate used
    bool skipped = false;    // true: loss or gradient norm not finite, the update was not applied
};

class Trainer {
public:
    // throws mha::Error if either config is invalid
    Trainer(const ModelConfig& model, const TrainConfig& train, BatchSampler sampler);

    // One step: a batch from the sampler, in two halves (the first ceil(B/2) sequences, then the rest) whose
    // gradients are taken one after the other (or the second by the RemoteHalf) and summed, clipped, and AdamW.
    StepResult step();
    // the steps to come take their batch's second half on remote (null: here again); it stays the Trainer's
    void set_remote(std::unique_ptr<RemoteHalf> remote) { remote_ = std::move(remote); }
    RemoteHalf* remote() const { return remote_.get(); }
    // a new schedule for the steps still to come (steps, warm-up, learning rates, clip, weight decay), keeping the
    // weights, the AdamW moments and the data PRNG; batch, context and seed fix the data and stay (throws mha::Error)
    void set_schedule(const TrainConfig& train);

    Gpt<float>& model() { return model_; }
    const Gpt<float>& model() const { return model_; }
    const TrainConfig& train_config() const { return train_; }
    int steps_done() const { return step_; }

    // everything a checkpoint needs to continue bit-identically: AdamW moments, steps done, data PRNG state
    CheckpointOptimizer optimizer_state() const;
    // loads a checkpoint's weights, and its optimizer state and progress when it has them (throws mha::Error
    // if the checkpoint's config is not this model's)
    void restore(const Checkpoint& c);

private:
    Gpt<float> model_;
    TrainConfig train_;
    BatchSampler sampler_;
    std::vector<float> m_, v_;
    std::vector<float> other_;  // (P) the gradient of the half not in the model's grads() (see step)
    std::unique_ptr<RemoteHalf> remote_;
    std::vector<int> x_, y_;
    Rng data_rng_;
    int step_ = 0;
};

// temperature sampling of n_new tokens after prompt (ids); the model sees the last max_seq_len tokens.
// temperature <= 0 means greedy. rng supplies the coin flips, so a seed reproduces the text.
std::vector<int> sample_tokens(Gpt<float>& model, const std::vector<int>& prompt, int n_new, double temperature,
                               Rng& rng);

}  // namespace mha
