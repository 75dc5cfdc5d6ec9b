#include "train.hpp"

#include <algorithm>
#include <cmath>

#include "error.hpp"
#include "profile.hpp"

namespace mha {

std::string validate(const TrainConfig& t, const ModelConfig& m) {
    if (t.batch < 1 || t.batch > TrainLimits::max_batch)
        return "batch size must be 1 to " + std::to_string(TrainLimits::max_batch) + ".";
    if (m.max_seq_len < 2)  // a model of one position (a checkpoint may hold one) has nothing to learn from
        return "this model's context is 1 position; training needs at least 2 (a token and the next one to predict).";
    if (t.seq_len < 2 || t.seq_len > m.max_seq_len)
        return "context length " + std::to_string(t.seq_len) + " must be 2 to the model's " +
               std::to_string(m.max_seq_len) + ".";
    if (t.steps < 1 || t.steps > TrainLimits::max_steps)
        return "steps must be 1 to " + std::to_string(TrainLimits::max_steps) + ".";
    if (t.warmup < 0 || t.warmup > t.steps) return "warm-up must be 0 to the number of steps.";
    if (!(t.lr > 0 && t.lr <= TrainLimits::max_lr))
        return "learning rate must be above 0 and at most 10.";
    static_assert(TrainLimits::max_lr == 10, "the sentence above states the limit");
    if (!(t.min_lr >= 0 && t.min_lr <= t.lr)) return "minimum learning rate must be 0 to the peak learning rate.";
    if (!(t.clip >= 0 && std::isfinite(t.clip))) return "gradient clip must be 0 (off) or positive.";
    const AdamWConfig& a = t.adamw;
    if (!(a.beta1 >= 0 && a.beta1 < 1 && a.beta2 >= 0 && a.beta2 < 1)) return "AdamW betas must be in [0, 1).";
    if (!(a.eps > 0) || !(a.weight_decay >= 0 && a.weight_decay < 1)) return "AdamW eps must be > 0 and weight decay in [0, 1).";
    return "";
}

Trainer::Trainer(const ModelConfig& model, const TrainConfig& train, BatchSampler sampler)
    : model_(model), train_(train), sampler_(std::move(sampler)), data_rng_(train.seed + 1) {
    const std::string err = validate(train_, model);
    throw_if_invalid(err);
    model_.init_weights(train_.seed);
    m_.assign(model_.num_params(), 0.0f);
    v_.assign(model_.num_params(), 0.0f);
    other_.assign(model_.num_params(), 0.0f);
    x_.resize(std::size_t(train_.batch) * train_.seq_len);
    y_.resize(x_.size());
}

double half_gradient(Gpt<float>& model, const int* x, const int* y, int B, int T, int loss_norm) {
    ProfileLap lap("forward");  // one lap per phase: profile.hpp
    const double loss = model.forward(x, y, B, T, loss_norm);
    lap("zero grads");
    model.zero_grad();
    lap("backward");
    model.backward();
    return loss;
}

// Why halves, always: a run that a helper joins half way (web/js/helper.js) must train to the same bits as one
// that trains alone, or a seed would not give its run back. So every step sums two half-batch gradients, each
// normalised by the whole batch's count of targets, whoever takes the second: here the first half's gradient is
// set aside in other_ while the second's is taken into grads(), with a helper the second's arrives in other_; the
// sum g + other is the same either way (IEEE addition commutes), and so are the loss shares' sum and all after it.
// Against one pass over the whole batch it differs by rounding only (the PyTorch fixtures' tolerances hold).
StepResult Trainer::step() {
    const int B = train_.batch, T = train_.seq_len;
    StepResult r;
    r.step = step_;
    r.lr = lr_at(step_, train_.steps, train_.warmup, train_.lr, train_.min_lr);
    {
        ProfileLap lap("sample batch");
        sampler_(data_rng_, B, T, x_.data(), y_.data());
    }
    const int norm = static_cast<int>(std::count_if(y_.begin(), y_.end(), [](int y) { return y >= 0; }));
    const int first = B - B / 2, second = B / 2;
    const std::size_t at = std::size_t(first) * T, n = model_.num_params();
    if (second > 0 && remote_) remote_->send(x_.data() + at, y_.data() + at, second, T, norm, model_.params(), n);
    r.loss = half_gradient(model_, x_.data(), y_.data(), first, T, norm);
    float* g = model_.grads();
    if (second > 0) {
        double other_loss = 0;
        if (!(remote_ && remote_->receive(other_.data(), n, other_loss))) {
            std::copy(g, g + n, other_.begin());
            other_loss = half_gradient(model_, x_.data() + at, y_.data() + at, second, T, norm);
        }
        ProfileLap lap("sum halves");
        for (std::size_t i = 0; i < n; ++i) g[i] += other_[i];
        r.loss += other_loss;
    }
    ProfileLap lap("grad norm + clip");
    r.grad_norm = train_.clip > 0 ? clip_gradients(g, n, train_.clip) : global_norm(g, n);
    // the guard: a non-finite loss or gradient never reaches the weights
    if (!std::isfinite(r.loss) || !std::isfinite(r.grad_norm)) {
        r.skipped = true;
        ++step_;
        return r;
    }
    lap("adamw");
    AdamWConfig c = train_.adamw;
    c.lr = r.lr;
    for (const TensorSpec& s : model_.tensors())
        adamw_update(model_.params() + s.offset, g + s.offset, m_.data() + s.offset, v_.data() + s.offset, s.size, c,
                     s.decay ? c.weight_decay : 0.0, step_ + 1);
    ++step_;
    return r;
}

void Trainer::set_schedule(const TrainConfig& train) {
    throw_if_invalid(validate(train, model_.config()));
    MHA_CHECK(train.batch == train_.batch && train.seq_len == train_.seq_len && train.seed == train_.seed,
              "a new schedule keeps the batch size, the context and the seed");
    train_ = train;
}

double evaluate_loss(Gpt<float>& model, const EvalBatches& eval) {
    MHA_CHECK(eval.n_batches > 0, "empty evaluation set");
    double total = 0;
    for (int i = 0; i < eval.n_batches; ++i) total += evaluate_batch(model, eval, i);
    return total / eval.n_batches;
}

double evaluate_batch(Gpt<float>& model, const EvalBatches& eval, int i) {
    MHA_CHECK(i >= 0 && i < eval.n_batches && eval.T <= model.config().max_seq_len,
              "no such evaluation batch, or too long");
    return model.forward(eval.x_batch(i), eval.y_batch(i), eval.B, eval.T);
}

EvalBatches sample_eval_batches(const BatchSampler& sampler, int n, int B, int T, std::uint64_t seed) {
    MHA_CHECK(n >= 1 && B >= 1 && T >= 1, "evaluation batches need n, B and T of at least 1");
    EvalBatches e;
    e.n_batches = n, e.B = B, e.T = T;
    e.x.resize(std::size_t(n) * B * T), e.y.resize(e.x.size());
    Rng rng(seed);
    for (int i = 0; i < n; ++i) sampler(rng, B, T, e.x.data() + std::size_t(i) * B * T, e.y.data() + std::size_t(i) * B * T);
    return e;
}

CheckpointOptimizer Trainer::optimizer_state() const {
    return CheckpointOptimizer{m_, v_, step_, data_rng_.state()};
}

void Trainer::restore(const Checkpoint& c) {
    MHA_CHECK(same_model(c.config, model_.config()),
              "the checkpoint was saved from a different model configuration");
    MHA_CHECK(c.params.size() == model_.num_params(), "checkpoint size does not match the model");
    std::copy(c.params.begin(), c.params.end(), model_.params());
    if (c.has_optimizer) {
        m_ = c.optimizer.m;
        v_ = c.optimizer.v;
        step_ = c.optimizer.step;
        data_rng_.set_state(c.optimizer.data_rng_state);
    }
}

std::vector<int> sample_tokens(Gpt<float>& model, const std::vector<int>& prompt, int n_new, double temperature,
                               Rng& rng) {
    MHA_CHECK(!prompt.empty(), "sampling needs at least one prompt token");
    const int V = model.config().vocab_size, Tmax = model.config().max_seq_len;
    std::vector<int> seq = prompt, out;
    std::vector<double> p(V);
    for (int i = 0; i < n_new; ++i) {
        const int T = std::min<int>(static_cast<int>(seq.size()), Tmax);
        model.forward(seq.data() + seq.size() - T, nullptr, 1, T);
        const float* z = model.logits() + std::size_t(T - 1) * V;  // the last position's logits (V)
        int next = 0;
        if (temperature <= 0) {
            for (int v = 1; v < V; ++v) next = z[v] > z[next] ? v : next;
        } else {
            double mx = z[0], sum = 0;
            for (int v = 1; v < V; ++v) mx = std::max(mx, double(z[v]));
            for (int v = 0; v < V; ++v) sum += (p[v] = std::exp((z[v] - mx) / temperature));
            double coin = rng.uniform_double() * sum;
            next = V - 1;
            for (int v = 0; v < V; ++v) {
                coin -= p[v];
                if (coin < 0) { next = v; break; }
            }
        }
        seq.push_back(next);
        out.push_back(next);
    }
    return out;
}

}  // namespace mha
