// head_trace: per-head scores of one model state on one sequence (previous, first, entropy, mean distance, attention
// by offset), and Run::trace, which measures them on the run's first validation sequence at every evaluation.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "error.hpp"
#include "head_trace.hpp"
#include "metrics.hpp"
#include "probes.hpp"
#include "run.hpp"
#include "run_util.hpp"

using namespace mha;
using mha::test::built;
using mha::test::text_spec;

namespace {
ModelConfig trace_model() {
    ModelConfig m;
    m.vocab_size = 11, m.d_model = 16, m.n_heads = 4, m.n_layers = 2, m.max_seq_len = 24;
    return m;
}
std::vector<int> some_ids(int T, int V) {
    std::vector<int> ids(T);
    for (int t = 0; t < T; ++t) ids[t] = (t * 7 + 3) % V;
    return ids;
}
std::vector<std::string> numbers(const std::vector<int>& ids) {
    std::vector<std::string> s;
    for (int id : ids) s.push_back(std::to_string(id));
    return s;
}
}  // namespace

TEST_CASE("head_trace of a model whose attention is forced uniform matches the values worked by hand", "[trace]") {
    // W_Q, W_K and their biases zero: every score q·k is 0, so every head of every layer attends uniformly over the
    // causal keys, row i putting 1/(i+1) on each of keys 0..i
    Gpt<float> model(trace_model());
    model.init_weights(7);
    for (const TensorSpec& t : model.tensors())
        if (t.name.find(".attn.q") != std::string::npos || t.name.find(".attn.k") != std::string::npos)
            std::fill(model.params() + t.offset, model.params() + t.offset + t.size, 0.0f);
    const int T = 20;
    const std::vector<int> ids = some_ids(T, 11);
    const HeadTrace tr = head_trace(model, ids, numbers(ids));
    CHECK(tr.L == 2);
    CHECK(tr.H == 4);
    CHECK(tr.T == T);
    CHECK(tr.K == 16);
    CHECK(tr.ids == ids);
    REQUIRE(tr.previous.size() == 8);
    REQUIRE(tr.profile.size() == 8 * 16);
    // by hand: previous = first = mean_{i=1..19} 1/(i+1); entropy = mean_{i=0..19} ln(i+1);
    // distance = mean_{i=1..19} i/2 = T/4 = 5; profile[k] = mean_{i=k..19} 1/(i+1)
    double harmonic = 0, logs = 0;
    for (int i = 1; i < T; ++i) harmonic += 1.0 / (i + 1);
    for (int i = 0; i < T; ++i) logs += std::log(double(i + 1));
    for (int head = 0; head < 8; ++head) {
        INFO("head " << head);
        CHECK(tr.previous[head] == Approx(harmonic / (T - 1)).margin(1e-6));
        CHECK(tr.first[head] == Approx(harmonic / (T - 1)).margin(1e-6));
        CHECK(tr.entropy[head] == Approx(logs / T).margin(1e-5));
        CHECK(tr.max_entropy[head] == Approx(logs / T).margin(1e-12));
        CHECK(tr.distance[head] == Approx(5.0).margin(1e-5));
        for (int k = 0; k < 16; ++k) {
            double s = 0;
            for (int i = k; i < T; ++i) s += 1.0 / (i + 1);
            CHECK(tr.profile[head * 16 + k] == Approx(s / (T - k)).margin(1e-6));
        }
    }
}

TEST_CASE("head_trace agrees with attention_maps and the metric functions, head by head in layer-major order",
          "[trace]") {
    Gpt<float> model(trace_model());
    model.init_weights(11);
    // a larger forward first: the trace's T = 9 must be read with its own strides, not the buffer's
    const std::vector<int> big = some_ids(2 * 24, 11);
    model.forward(big.data(), nullptr, 2, 24);
    const std::vector<int> ids = some_ids(9, 11);
    const HeadTrace tr = head_trace(model, ids, numbers(ids));
    const AttentionMaps maps = attention_maps(model, ids, numbers(ids));
    REQUIRE(tr.K == 9);
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 4; ++h) {
            const int i = l * 4 + h;
            const float* a = maps.att.data() + std::size_t(i) * 9 * 9;
            INFO("layer " << l << " head " << h);
            CHECK(tr.previous[i] == previous_token_score(a, 9));
            CHECK(tr.first[i] == first_token_score(a, 9));
            CHECK(tr.entropy[i] == mean_row_entropy(a, 9));
            CHECK(tr.distance[i] == mean_attention_distance(a, 9));
            std::vector<double> p(9);
            offset_profile(a, 9, 9, p.data());
            for (int k = 0; k < 9; ++k) CHECK(tr.profile[i * 9 + k] == p[k]);
        }
    // bad input is an error, not a read past the end
    CHECK_THROWS_AS(head_trace(model, {}, {}), Error);
    CHECK_THROWS_AS(head_trace(model, {1, 99}, {"1", "99"}), Error);
    CHECK_THROWS_AS(head_trace(model, {1, 2}, {"1"}), Error);
}

TEST_CASE("Run::trace measures the first validation sequence, the same at every call, and leaves training as it was",
          "[trace][run]") {
    const auto a = built(text_spec()), b = built(text_spec());
    const HeadTrace t0 = a->trace();
    const EvalBatches& eval = a->eval_batches();
    const std::vector<int> first_row(eval.x.begin(), eval.x.begin() + eval.T);
    CHECK(t0.ids == first_row);
    CHECK(t0.T == 16);
    CHECK(t0.K == 16);
    // text: one character per position, the tokenizer's
    REQUIRE(t0.tokens.size() == 16);
    for (int t = 0; t < 16; ++t) CHECK(t0.tokens[t] == a->tokenizer().decode({first_row[t]}));
    // the same weights give the same trace
    const HeadTrace again = a->trace();
    CHECK(again.previous == t0.previous);
    CHECK(again.profile == t0.profile);
    // measuring between chunks does not change what training does: bit-identical to a run that never traces
    for (int c = 0; c < 3; ++c) {
        const TrainChunk ca = a->train(10), cb = b->train(10);
        REQUIRE(ca.steps.size() == cb.steps.size());
        for (std::size_t i = 0; i < ca.steps.size(); ++i) CHECK(ca.steps[i].loss == cb.steps[i].loss);
        a->trace();
    }
    CHECK(a->evaluate() == b->evaluate());
    // trained weights attend differently on the same sequence
    const HeadTrace t1 = a->trace();
    CHECK(t1.ids == t0.ids);
    CHECK(t1.distance != t0.distance);
}

TEST_CASE("Run::trace on the induction task: the first validation row, its ids shown as numbers", "[trace][run]") {
    RunSpec s;
    s.task = Task::induction;
    s.model.d_model = 16, s.model.n_heads = 2, s.model.n_layers = 2, s.model.max_seq_len = 16, s.model.mlp = false;
    s.train.batch = 8, s.train.steps = 40, s.train.warmup = 0, s.train.lr = 3e-3, s.train.min_lr = 3e-3, s.train.seed = 5;
    s.induction.vocab = 12, s.induction.seg_min = 3, s.induction.seg_max = 7;
    const auto r = built(s);
    const HeadTrace tr = r->trace();
    CHECK(tr.L == 2);
    CHECK(tr.H == 2);
    REQUIRE(tr.T == 16);
    const EvalBatches& eval = r->eval_batches();
    for (int t = 0; t < 16; ++t) {
        CHECK(tr.ids[t] == eval.x[t]);
        CHECK(tr.tokens[t] == std::to_string(eval.x[t]));
    }
    for (std::size_t i = 0; i < tr.distance.size(); ++i) {
        CHECK((tr.distance[i] >= 0 && tr.distance[i] <= 15));
        double total = 0;  // the profile covers every offset at T = 16, so its bars weigh every row once
        for (int k = 0; k < tr.K; ++k) total += tr.profile[i * tr.K + k] * (16 - k);
        CHECK(total == Approx(16.0).margin(1e-4));
    }
}
