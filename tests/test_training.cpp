// Training behaviour: the schedule, clipping, the NaN guard, determinism, sampling.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "error.hpp"
#include "optimizer.hpp"
#include "train.hpp"

using namespace mha;

namespace {
ModelConfig tiny_config() {
    ModelConfig c;
    c.vocab_size = 12, c.d_model = 16, c.n_heads = 4, c.n_layers = 2, c.max_seq_len = 16;
    return c;
}
TrainConfig tiny_train() {
    TrainConfig t;
    t.batch = 4, t.seq_len = 16, t.steps = 40, t.warmup = 4, t.lr = 1e-2, t.min_lr = 1e-3;
    return t;
}
// a learnable stream: token t+1 = (token t + 1) mod V, random start per row
void counting_sampler(Rng& rng, int B, int T, int* x, int* y) {
    for (int b = 0; b < B; ++b) {
        int tok = int(rng.below(12));
        for (int t = 0; t < T; ++t) {
            x[b * T + t] = tok;
            tok = (tok + 1) % 12;
            y[b * T + t] = tok;
        }
    }
}
}  // namespace

TEST_CASE("learning-rate schedule: linear warm-up then cosine to min_lr", "[train]") {
    CHECK(lr_at(0, 100, 10, 1.0, 0.1) == Approx(0.1));
    CHECK(lr_at(9, 100, 10, 1.0, 0.1) == Approx(1.0));
    CHECK(lr_at(10, 100, 10, 1.0, 0.1) == Approx(1.0));
    CHECK(lr_at(55, 100, 10, 1.0, 0.1) == Approx(0.55));  // halfway through the cosine: the mean of max and min
    CHECK(lr_at(100, 100, 10, 1.0, 0.1) == Approx(0.1));
    for (int s = 11; s < 100; ++s) CHECK(lr_at(s, 100, 10, 1.0, 0.1) <= lr_at(s - 1, 100, 10, 1.0, 0.1));
}

TEST_CASE("gradient clipping scales to the max norm and leaves small gradients alone", "[train]") {
    std::vector<double> g = {3, 4};  // norm 5
    CHECK(clip_gradients(g.data(), 2, 1.0) == Approx(5.0));
    CHECK(global_norm(g.data(), 2) == Approx(1.0).epsilon(1e-6));
    std::vector<double> small = {0.3, 0.4};
    clip_gradients(small.data(), 2, 1.0);
    CHECK(small[0] == 0.3);
}

TEST_CASE("the global gradient norm sums every element, whatever the count's remainder", "[train]") {
    // integers: every square and partial sum is exact in double, so the norm's square is known exactly
    for (std::size_t n : {0, 1, 2, 7, 8, 9, 15, 16, 17, 100, 1001}) {
        std::vector<float> g(n);
        double want = 0;
        for (std::size_t i = 0; i < n; ++i) {
            g[i] = float(int(i % 13) - 6);
            want += double(g[i]) * g[i];
        }
        INFO("n = " << n);
        CHECK(global_norm(g.data(), n) == std::sqrt(want));
    }
}

TEST_CASE("invalid training settings are messages, not crashes", "[train]") {
    TrainConfig t = tiny_train();
    CHECK(validate(t, tiny_config()).empty());
    t.lr = std::numeric_limits<double>::quiet_NaN();
    CHECK_FALSE(validate(t, tiny_config()).empty());
    t = tiny_train();
    t.seq_len = 17;  // longer than the model's context
    CHECK(validate(t, tiny_config()).find("context length") != std::string::npos);
    REQUIRE_THROWS_AS(Trainer(tiny_config(), t, counting_sampler), Error);
    // a model of one position (a checkpoint with T = 1): not "must be 2 to the model's 1"
    ModelConfig one = tiny_config();
    one.max_seq_len = 1;
    t.seq_len = 1;
    CHECK(validate(t, one) ==
          "this model's context is 1 position; training needs at least 2 (a token and the next one to predict).");
}

TEST_CASE("the loss goes down on a learnable task", "[train]") {
    Trainer tr(tiny_config(), tiny_train(), counting_sampler);
    const double first = tr.step().loss;
    double last = first;
    for (int i = 1; i < 40; ++i) last = tr.step().loss;
    INFO("first " << first << ", last " << last);
    CHECK(first == Approx(std::log(12.0)).margin(0.1));  // a fresh model predicts nearly uniformly
    CHECK(last < 0.5 * first);
}

TEST_CASE("same seed, same build: bit-identical losses and weights", "[train][determinism]") {
    Trainer a(tiny_config(), tiny_train(), counting_sampler), b(tiny_config(), tiny_train(), counting_sampler);
    for (int i = 0; i < 15; ++i) REQUIRE(a.step().loss == b.step().loss);
    REQUIRE(std::memcmp(a.model().params(), b.model().params(), a.model().num_params() * sizeof(float)) == 0);
    TrainConfig other = tiny_train();
    other.seed = 2;
    Trainer c(tiny_config(), other, counting_sampler);
    CHECK(c.step().loss != Trainer(tiny_config(), tiny_train(), counting_sampler).step().loss);
}

namespace {
// A RemoteHalf as the page's helper worker is one: its own model, given the weights with each half, its gradient
// taken on send (here at once, in the page on another core) and handed over on receive. `missing` says which
// receives find nothing (the helper gone), as many as a step may meet.
class ModelHalf : public RemoteHalf {
public:
    ModelHalf(const ModelConfig& c, std::vector<int> missing) : model_(c), missing_(std::move(missing)) {}
    void send(const int* x, const int* y, int B, int T, int loss_norm, const float* params, std::size_t P) override {
        REQUIRE(P == model_.num_params());
        std::copy(params, params + P, model_.params());
        loss_ = half_gradient(model_, x, y, B, T, loss_norm);
        ++sends;
    }
    bool receive(float* grads, std::size_t P, double& loss) override {
        if (std::find(missing_.begin(), missing_.end(), sends) != missing_.end()) return false;
        std::copy(model_.grads(), model_.grads() + P, grads);
        loss = loss_;
        return true;
    }
    // a Trainer evaluates on its own (a Run sends half of its batches: test_run.cpp)
    void send_eval(int, int, const float*, std::size_t) override { FAIL("a Trainer sent evaluation batches"); }
    bool receive_eval(double*, int) override { return false; }
    int sends = 0;

private:
    Gpt<float> model_;
    std::vector<int> missing_;
    double loss_ = 0;
};
}  // namespace

TEST_CASE("a helper that takes each step's second half trains to the same bits as the trainer alone",
          "[train][determinism]") {
    for (int batch : {4, 5}) {  // 5: halves of 3 and 2 sequences
        TrainConfig t = tiny_train();
        t.batch = batch;
        Trainer alone(tiny_config(), t, counting_sampler), helped(tiny_config(), t, counting_sampler);
        auto half = std::make_unique<ModelHalf>(tiny_config(), std::vector<int>{4, 9});  // steps 4 and 9: gone
        ModelHalf* remote = half.get();
        helped.set_remote(std::move(half));
        for (int i = 0; i < 12; ++i) {
            const StepResult a = alone.step(), b = helped.step();
            INFO("batch " << batch << ", step " << i);
            REQUIRE(a.loss == b.loss);
            REQUIRE(a.grad_norm == b.grad_norm);
        }
        CHECK(remote->sends == 12);
        CHECK(std::memcmp(alone.model().params(), helped.model().params(),
                          alone.model().num_params() * sizeof(float)) == 0);
        helped.set_remote(nullptr);  // alone again: still the same steps
        for (int i = 0; i < 3; ++i) REQUIRE(alone.step().loss == helped.step().loss);
    }
}

TEST_CASE("two halves' gradients, each over the whole batch's count of targets, add up to the batch's",
          "[train]") {
    const ModelConfig c = tiny_config();
    Gpt<float> model(c);
    model.init_weights(3);
    const int B = 5, T = 16, first = 3;
    std::vector<int> x(B * T), y(B * T);
    Rng rng(7);
    counting_sampler(rng, B, T, x.data(), y.data());
    y[3] = y[40] = -1;  // positions without a target: neither half counts them
    const int norm = B * T - 2;
    const double whole = model.forward(x.data(), y.data(), B, T);
    model.zero_grad();
    model.backward();
    const std::vector<float> want(model.grads(), model.grads() + model.num_params());
    const double a = half_gradient(model, x.data(), y.data(), first, T, norm);
    const std::vector<float> ga(model.grads(), model.grads() + model.num_params());
    const double b = half_gradient(model, x.data() + first * T, y.data() + first * T, B - first, T, norm);
    CHECK(a + b == Approx(whole).epsilon(1e-6));
    CHECK(a > 0.4 * whole);  // each half carries its share, not the whole mean
    double worst = 0, largest = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        worst = std::max(worst, double(std::abs(ga[i] + model.grads()[i] - want[i])));
        largest = std::max(largest, double(std::abs(want[i])));
    }
    INFO("largest gradient " << largest << ", worst difference " << worst);
    CHECK(largest > 1e-3);
    CHECK(worst <= 1e-6 * largest);
}

TEST_CASE("the NaN guard skips the update and never writes a non-finite weight", "[train]") {
    int calls = 0;
    // the third batch holds a poisoned step: we make its loss NaN by corrupting one weight before it,
    // then check the guard reports it and leaves every weight as it was
    Trainer tr(tiny_config(), tiny_train(), [&](Rng& rng, int B, int T, int* x, int* y) {
        ++calls;
        counting_sampler(rng, B, T, x, y);
    });
    tr.step();
    tr.step();
    float* wte = tr.model().param("wte");
    const float saved = wte[0];
    wte[0] = std::numeric_limits<float>::infinity();  // as if an earlier update had overflowed
    std::vector<float> before(tr.model().params(), tr.model().params() + tr.model().num_params());
    const StepResult r = tr.step();
    CHECK(r.skipped);
    CHECK_FALSE(std::isfinite(r.loss * r.grad_norm));
    CHECK(std::memcmp(before.data(), tr.model().params(), before.size() * sizeof(float)) == 0);
    wte[0] = saved;  // the page restores the last good snapshot; then training goes on
    CHECK_FALSE(tr.step().skipped);
    CHECK(calls == 4);
}

TEST_CASE("a huge learning rate without clipping never writes a non-finite weight", "[train]") {
    TrainConfig t = tiny_train();
    t.lr = t.min_lr = 10.0, t.warmup = 0, t.clip = 0;  // no clipping: the largest steps AdamW can take
    Trainer tr(tiny_config(), t, counting_sampler);
    for (int i = 0; i < 60; ++i) tr.step();
    for (std::size_t i = 0; i < tr.model().num_params(); ++i) REQUIRE(std::isfinite(tr.model().params()[i]));
}

TEST_CASE("sampling is reproducible from its seed and greedy decoding follows the learned rule", "[train]") {
    Trainer tr(tiny_config(), tiny_train(), counting_sampler);
    for (int i = 0; i < 40; ++i) tr.step();
    Rng r1(5), r2(5);
    const auto a = sample_tokens(tr.model(), {3}, 20, 0.8, r1);
    const auto b = sample_tokens(tr.model(), {3}, 20, 0.8, r2);
    CHECK(a == b);
    Rng r3(0);
    const auto greedy = sample_tokens(tr.model(), {3, 4, 5}, 6, 0.0, r3);
    CHECK(greedy == std::vector<int>{6, 7, 8, 9, 10, 11});
}
