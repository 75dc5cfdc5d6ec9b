// The Run, the one way the page's workers, mha-train and the tests build a run: set-up and its sentences (from
// settings as the page and the CLI send them), training in chunks that stop at a blow-up, evaluation, the schedule
// changed in place, snapshots that resume bit-identically, the probes that need the run's data; and the Inspector,
// which looks inside with weights, vocabulary and validation batches only and leaves the model as it was.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint.hpp"
#include "error.hpp"
#include "inspector.hpp"
#include "run.hpp"
#include "run_settings.hpp"
#include "run_util.hpp"

using namespace mha;
using mha::test::built;
using mha::test::small_model;
using mha::test::small_text;
using mha::test::small_train;
using mha::test::text_spec;

namespace {
// make_run's sentence for spec ("" when it builds)
std::string run_error(const RunSpec& spec) {
    std::unique_ptr<Run> r;
    const std::string err = make_run(spec, r);
    CHECK((r == nullptr) == !err.empty());
    return err;
}
RunSpec induction_spec(int layers = 2) {
    RunSpec s;
    s.task = Task::induction;
    s.model.d_model = 16, s.model.n_heads = 2, s.model.n_layers = layers, s.model.max_seq_len = 16, s.model.mlp = false;
    s.train.batch = 8, s.train.steps = 40, s.train.warmup = 0, s.train.lr = 3e-3, s.train.min_lr = 3e-3, s.train.seed = 5;
    s.induction.vocab = 12, s.induction.seg_min = 3, s.induction.seg_max = 7;
    return s;
}
}  // namespace

// ---------------------------------------------------------------- set-up
TEST_CASE("run set-up errors are sentences: empty, short, oversize text, bad D and H, a bad rate", "[run]") {
    CHECK(run_error(text_spec(small_model(), small_train(), "")).find("empty") != std::string::npos);
    CHECK(run_error(text_spec(small_model(), small_train(), "too short")).find("needs at least") != std::string::npos);
    const std::string huge(DataLimits::max_text_bytes + 1, 'a');
    CHECK(run_error(text_spec(small_model(), small_train(), huge)).find("at most 8 MiB") != std::string::npos);
    ModelConfig bad = small_model(3);
    CHECK(run_error(text_spec(bad)).find("not divisible") != std::string::npos);
    TrainConfig bad_lr = small_train();
    bad_lr.lr = -1;
    CHECK(run_error(text_spec(small_model(), bad_lr)).find("learning rate") != std::string::npos);
    RunSpec few = text_spec();
    few.eval_batches = 0;
    CHECK(run_error(few).find("evaluation batches") != std::string::npos);
    const auto r = built(text_spec());
    CHECK(r->model().config().vocab_size == r->tokenizer().vocab_size());
    CHECK(r->trainer().train_config().seq_len == 16);
    CHECK(r->facts().params == r->model().num_params());
    CHECK_THROWS_AS(r->train(0), Error);
    CHECK_THROWS_AS(r->train(RunLimits::max_chunk + 1), Error);
}

TEST_CASE("settings from the page or the CLI: one rule, sentences in the user's terms", "[run]") {
    RunSettings s;
    RunSpec spec;
    REQUIRE(to_run_spec(s, spec).empty());
    CHECK(spec.model.n_heads == 4);
    CHECK(spec.train.seed == 1);
    s.n_heads = 2.5;
    CHECK(to_run_spec(s, spec) == "H must be a whole number from 1 to 64 (not 2.5).");
    s.n_heads = -3;
    CHECK(to_run_spec(s, spec).find("H must be a whole number from 1 to 64") == 0);
    s.n_heads = std::numeric_limits<double>::quiet_NaN();  // a field the page did not send
    CHECK(to_run_spec(s, spec) == "H must be a whole number from 1 to 64 (not missing).");
    s.n_heads = 3;  // a whole number in range: divisibility is validate_setup's, with the nearest H
    REQUIRE(to_run_spec(s, spec).empty());
    const std::string div = validate_setup(spec);
    CHECK(div.find("not divisible") != std::string::npos);
    CHECK(div.find("4") != std::string::npos);
    s.n_heads = 4;
    s.seed = 4294967295.0;  // the largest seed a URL carries
    REQUIRE(to_run_spec(s, spec).empty());
    CHECK(spec.train.seed == 4294967295u);
    TrainConfig back;  // a schedule read back into settings converts to itself
    REQUIRE(to_train_config(schedule_settings(spec.train), back).empty());
    CHECK(back.seed == spec.train.seed);
    CHECK(back.lr == spec.train.lr);
    CHECK(back.warmup == spec.train.warmup);
    s.seed = 4294967296.0;
    CHECK(to_run_spec(s, spec).find("The seed must be a whole number from 0 to 4294967295") == 0);
    s.seed = 1;
    s.variant = "sideways";
    CHECK(to_run_spec(s, spec).find("not an attention variant") != std::string::npos);
    s.variant = "no_wo";
    s.task = "images";
    CHECK(to_run_spec(s, spec).find("task") != std::string::npos);
    s.task = "induction", s.context = 16, s.seg_max = 8;  // 2·8 + 1 > 16
    REQUIRE(to_run_spec(s, spec).empty());
    CHECK_FALSE(validate_setup(spec).empty());
}

TEST_CASE("a run is made whole: a step's and an evaluation's activations are allocated when it is made", "[run]") {
    for (const RunSpec& spec : {text_spec(), induction_spec()}) {
        std::unique_ptr<Run> run;
        REQUIRE(make_run(spec, run).empty());
        const ModelConfig& m = run->model().config();
        const std::size_t made = run->model().activation_capacity();
        CHECK(made == activation_elements(m, spec.train.batch, m.max_seq_len));
        run->train(2);
        (void)run->evaluate();
        CHECK(run->model().activation_capacity() == made);  // training and evaluating allocated no more
    }
}

TEST_CASE("the same spec builds the same run: bit-identical losses", "[run]") {
    const auto a = built(text_spec()), b = built(text_spec());
    const TrainChunk ca = a->train(10), cb = b->train(10);
    REQUIRE(ca.steps.size() == cb.steps.size());
    for (std::size_t i = 0; i < ca.steps.size(); ++i) CHECK(ca.steps[i].loss == cb.steps[i].loss);
    CHECK(a->evaluate() == b->evaluate());
}

namespace {
// The page's helper as the core sees it: another Run of the same settings, the far side of each step's second half
// (Run::half_gradient_at) and of the later validation batches (Run::evaluate_batches_at), done at once on send.
// Receives numbered in `missing` (counting steps and evaluations together) find nothing: the helper went.
class RunHalf : public RemoteHalf {
public:
    RunHalf(Run& far, std::vector<int> missing) : far_(far), missing_(std::move(missing)) {}
    void send(const int* x, const int* y, int B, int T, int loss_norm, const float* params, std::size_t P) override {
        ++sends;
        loss_ = far_.half_gradient_at(x, y, B, T, loss_norm, params, P);
    }
    bool receive(float* grads, std::size_t P, double& loss) override {
        if (gone()) return false;
        std::copy(far_.model().grads(), far_.model().grads() + P, grads);
        loss = loss_;
        return true;
    }
    void send_eval(int first, int count, const float* params, std::size_t P) override {
        ++sends, ++evals;
        losses_.assign(std::size_t(count), 0.0);
        far_.evaluate_batches_at(first, count, params, P, losses_.data());
    }
    bool receive_eval(double* losses, int count) override {
        if (gone()) return false;
        REQUIRE(std::size_t(count) == losses_.size());
        std::copy(losses_.begin(), losses_.end(), losses);
        return true;
    }
    int sends = 0, evals = 0;

private:
    bool gone() const { return std::find(missing_.begin(), missing_.end(), sends) != missing_.end(); }
    Run& far_;
    std::vector<int> missing_;
    double loss_ = 0;
    std::vector<double> losses_;
};
}  // namespace

TEST_CASE("a helper run that takes half of each step and of each evaluation gives the same bits", "[run]") {
    for (int eval_batches : {4, 5, 1}) {  // 5: the helper takes 2 of them; 1: the run evaluates alone
        RunSpec spec = text_spec();
        spec.eval_batches = eval_batches;
        const auto alone = built(spec), helped = built(spec), far = built(spec);
        auto remote = std::make_unique<RunHalf>(*far, std::vector<int>{3, 8, 9});  // a step's, an evaluation's
        RunHalf* half = remote.get();
        helped->set_remote(std::move(remote));
        for (int round = 0; round < 4; ++round) {
            INFO(eval_batches << " evaluation batches, round " << round);
            const TrainChunk a = alone->train(2), b = helped->train(2);
            REQUIRE(a.steps.size() == b.steps.size());
            for (std::size_t i = 0; i < a.steps.size(); ++i) REQUIRE(a.steps[i].loss == b.steps[i].loss);
            REQUIRE(alone->evaluate() == helped->evaluate());
        }
        CHECK(half->evals == (eval_batches > 1 ? 4 : 0));
        CHECK(half->sends == 8 + half->evals);
        CHECK(std::memcmp(alone->model().params(), helped->model().params(),
                          alone->model().num_params() * sizeof(float)) == 0);
    }
    // the far side refuses batches the run does not have, and weights of another size
    const auto far = built(text_spec());
    std::vector<double> out(8);
    CHECK_THROWS_AS(far->evaluate_batches_at(3, 2, far->model().params(), far->model().num_params(), out.data()),
                    Error);
    CHECK_THROWS_AS(far->evaluate_batches_at(0, 1, far->model().params(), 7, out.data()), Error);
}

// ---------------------------------------------------------------- training
TEST_CASE("a run trains, the validation loss falls below the unigram baseline, the schedule ends", "[run]") {
    const auto r = built(text_spec());
    const double before = r->evaluate();
    const TrainChunk first = r->train(10);
    REQUIRE(first.steps.size() == 10);
    CHECK(first.steps[0].step == 0);
    CHECK(first.steps[9].step == 9);
    CHECK(first.steps_done == 10);
    CHECK(first.diverged == -1);
    const TrainChunk rest = r->train(100);
    CHECK(rest.steps.size() == 50);  // stops at the end of the 60-step schedule
    CHECK(r->finished());
    CHECK(r->train(5).steps.empty());
    CHECK(r->train_to_end() == 0);
    const double after = r->evaluate();
    CHECK(after < before - 0.5);
    CHECK(after < r->facts().baseline_loss);
    CHECK(r->steps_done() == 60);
}

TEST_CASE("a learning rate that blows up is caught, the chunk ends there, a lower rate recovers in place", "[run]") {
    TrainConfig t = small_train();
    t.lr = 10, t.min_lr = 1, t.warmup = 0;
    const auto r = built(text_spec(small_model(), t));
    CHECK(r->divergence_limit() == Approx(2.0 * std::log(double(r->model().config().vocab_size))));
    CHECK(r->facts().divergence_limit == r->divergence_limit());
    StepResult ok, bad;
    ok.loss = 1.0;
    bad.loss = NAN, bad.skipped = true;
    CHECK_FALSE(r->diverged(ok));
    CHECK(r->diverged(bad));
    const TrainChunk c = r->train(60);
    REQUIRE(c.diverged >= 0);
    CHECK(c.diverged == static_cast<int>(c.steps.size()) - 1);  // the chunk ends at the blown-up step
    CHECK(r->diverged(c.steps.back()));
    const auto bytes = r->snapshot(true);  // the checkpoint loader refuses non-finite values: this must load
    const auto check = built(text_spec(small_model(), t));
    CHECK(check->restore(bytes.data(), bytes.size()).empty());
    const auto weights = r->snapshot(false);
    t.lr = 1e-3, t.min_lr = 1e-4;
    CHECK(r->set_schedule(t).empty());
    CHECK(r->trainer().train_config().lr == 1e-3);
    CHECK(r->snapshot(false) == weights);  // a new schedule keeps the weights
    CHECK(r->train(1).steps.size() == 1);
    t.batch = 5;
    CHECK(r->set_schedule(t).find("batch size") != std::string::npos);
    t.batch = 4, t.steps = 1;
    CHECK(r->set_schedule(t).find("already taken") != std::string::npos);
}

TEST_CASE("a new schedule continues exactly as a run built with it from a checkpoint", "[run]") {
    const auto a = built(text_spec());
    a->train(12);
    TrainConfig longer = small_train();
    longer.steps = 80, longer.lr = 5e-3;
    REQUIRE(a->set_schedule(longer).empty());
    const auto a_next = a->train(8);
    const auto b = built(text_spec());
    b->train(12);
    const auto whole = built(text_spec());
    CHECK(whole->train_to_end() == 60);
    CHECK(whole->finished());
    RunSpec from_file = text_spec(small_model(), longer);
    from_file.checkpoint = b->snapshot(true);
    const auto c = built(from_file);
    CHECK(c->steps_done() == 12);
    const auto c_next = c->train(8);
    REQUIRE(a_next.steps.size() == c_next.steps.size());
    for (std::size_t i = 0; i < c_next.steps.size(); ++i) CHECK(a_next.steps[i].loss == c_next.steps[i].loss);
}

// ---------------------------------------------------------------- snapshots
TEST_CASE("snapshot with optimizer state, restore, and the run continues bit-identically", "[run]") {
    const auto a = built(text_spec()), b = built(text_spec());
    a->train(12);
    const auto bytes = a->snapshot(true);
    const auto next_a = a->train(8);
    REQUIRE(b->restore(bytes.data(), bytes.size()).empty());
    CHECK(b->steps_done() == 12);
    const auto next_b = b->train(8);
    REQUIRE(next_a.steps.size() == next_b.steps.size());
    for (std::size_t i = 0; i < next_a.steps.size(); ++i) CHECK(next_a.steps[i].loss == next_b.steps[i].loss);
    // a fresh run from the checkpoint file continues the same way
    RunSpec from_file = text_spec();
    from_file.checkpoint = bytes;
    const auto c = built(from_file);
    CHECK(c->steps_done() == 12);
    const auto next_c = c->train(8);
    for (std::size_t i = 0; i < next_a.steps.size(); ++i) CHECK(next_a.steps[i].loss == next_c.steps[i].loss);
    // a checkpoint further on than the schedule
    RunSpec shorter = from_file;
    shorter.train.steps = 10, shorter.train.warmup = 0;
    CHECK(run_error(shorter).find("raise the number of steps") != std::string::npos);
}

TEST_CASE("restore refuses garbage, truncated files and another model's checkpoint", "[run]") {
    const auto s = built(text_spec(small_model(4))), other = built(text_spec(small_model(8)));
    const std::string junk = "definitely not safetensors";
    CHECK_FALSE(s->restore(reinterpret_cast<const std::uint8_t*>(junk.data()), junk.size()).empty());
    auto bytes = s->snapshot(true);
    CHECK_FALSE(s->restore(bytes.data(), bytes.size() / 2).empty());
    const auto foreign = other->snapshot(false);
    CHECK(s->restore(foreign.data(), foreign.size()).find("another model") != std::string::npos);
    RunSpec from_junk = text_spec();
    from_junk.checkpoint.assign(junk.begin(), junk.end());
    CHECK_FALSE(run_error(from_junk).empty());
}

TEST_CASE("samples: seeded, the requested length, only symbols of the vocabulary; the end sample's rule", "[run]") {
    const auto s = built(text_spec());
    s->train(30);
    const std::string a = s->sample("the ", 40, 0.8, 7), b = s->sample("the ", 40, 0.8, 7);
    CHECK(a == b);
    CHECK(utf8_decode(a).size() == 40);
    for (char c : a) CHECK(small_text().find(c) != std::string::npos);
    CHECK(utf8_decode(s->sample("", 10, 0.0, 1)).size() == 10);
    CHECK(s->end_sample() == s->sample("\n", EndSample::chars, EndSample::temperature, small_train().seed + 2));
}

// ---------------------------------------------------------------- probes of a run
TEST_CASE("a run carries the attention variant; the causality check finds leaks on random and trained weights",
          "[run][variants]") {
    for (AttentionVariant v : {AttentionVariant::canonical, AttentionVariant::swapped_order,
                               AttentionVariant::no_transpose_split, AttentionVariant::no_transpose_merge,
                               AttentionVariant::no_transpose_both}) {
        INFO(variant_name(v));
        ModelConfig m = small_model();
        m.variant = v;
        const auto s = built(text_spec(m));
        CHECK(s->model().config().variant == v);
        const CausalityReport random = s->causality();  // leaks are structural: visible before any training
        CHECK(random.T == 16);
        CHECK(random.depends.size() == 16u * 16u);
        const bool leaks = v == AttentionVariant::no_transpose_split || v == AttentionVariant::no_transpose_merge;
        CHECK(random.causal() == !leaks);
        for (const auto& [t, src] : random.leaks) CHECK(src > t);
        s->train(10);
        const CausalityReport trained = s->causality();
        CHECK(trained.causal() == !leaks);
        // the run trains on after the check (the check runs B = 1 forward passes)
        CHECK(s->train(1).steps.size() == 1);
    }
}

TEST_CASE("canonical weights read by the swapped-order model give another loss; no_wo cannot load them",
          "[run][variants]") {
    const auto s = built(text_spec());
    s->train(60);
    const double own = s->evaluate();
    double same = 0, swapped = 0, none = 0;
    REQUIRE(s->evaluate_as(AttentionVariant::canonical, same).empty());
    CHECK(same == Approx(own).epsilon(1e-6));
    REQUIRE(s->evaluate_as(AttentionVariant::swapped_order, swapped).empty());
    CHECK(std::isfinite(swapped));
    // the same numbers, cut into heads differently: a different model (how much worse depends on how much the heads
    // have specialised; tests/test_variants.cpp shows a task where it is 6.5e-5 -> 0.50)
    CHECK(std::abs(swapped - own) > 1e-4);
    const std::string err = s->evaluate_as(AttentionVariant::no_wo, none);
    CHECK(err.find("other parameters") != std::string::npos);
    ModelConfig gqa = small_model();
    gqa.n_kv_heads = 2;
    const auto g = built(text_spec(gqa));
    CHECK_FALSE(g->evaluate_as(AttentionVariant::swapped_order, none).empty());  // variants need n_kv_heads == H
}

TEST_CASE("a run on the induction task: set-up errors, training, per-head scores, the probe, a 1-layer control",
          "[run][induction]") {
    RunSpec too_long = induction_spec();
    too_long.induction.seg_max = 8;  // 2·8 + 1 > 16
    CHECK_FALSE(run_error(too_long).empty());
    RunSpec one_token = induction_spec();
    one_token.induction.seg_min = 1, one_token.induction.seg_max = 1;
    CHECK(run_error(one_token).find("at least 2 tokens") != std::string::npos);
    const auto s = built(induction_spec());
    CHECK(s->task() == Task::induction);
    CHECK(s->model().config().vocab_size == 12);
    CHECK(s->facts().baseline_loss == Approx(std::log(11.0)));
    const double before = s->evaluate();
    CHECK(s->train(40).steps.size() == 40);
    CHECK(s->evaluate() < before);
    const InductionMeasurement im = s->measure_induction();
    CHECK(im.layers == 2);
    CHECK(im.heads == 2);
    REQUIRE(im.previous.size() == 4);
    REQUIRE(im.induction.size() == 4);
    for (double x : im.induction) CHECK((x >= 0 && x <= 1));
    CHECK(std::isfinite(im.loss_first));
    CHECK(std::isfinite(im.loss_repeat));
    // the run measures with the core's one probe seed and count, as mha-train and the tests do
    const InductionMeasurement direct =
        measure_induction(s->model(), induction_spec().induction, 16, kInductionProbes, kProbeSeed);
    CHECK(direct.induction == im.induction);
    const AttentionMaps p = s->probe_attention();
    CHECK(p.T == 15);
    CHECK(p.L == 2);
    REQUIRE(p.tokens.size() == 15);
    CHECK(p.tokens[0] == "BOS");
    CHECK(p.tokens[1] == p.tokens[8]);  // [BOS, r, r]: the repeat starts at L + 1
    CHECK(p.att.size() == 2u * 2 * 15 * 15);
    CHECK(s->causality().causal());
    CHECK(s->sample("", 10, 1.0, 1).empty());  // no text, no characters to sample
    // the snapshot round trip works without a text, and a new run starts from it
    const auto bytes = s->snapshot(true);
    REQUIRE(s->restore(bytes.data(), bytes.size()).empty());
    Checkpoint file;
    REQUIRE(load_checkpoint(bytes.data(), bytes.size(), file).empty());
    CHECK(file.vocab.empty());  // the task's ids are no characters
    RunSpec again = induction_spec();
    again.train.steps = 80;
    again.checkpoint = bytes;
    const auto resumed = built(again);
    CHECK(resumed->steps_done() == 40);
    again.induction.vocab = 13;
    CHECK(run_error(again).find("vocabulary") != std::string::npos);

    const auto control = built(induction_spec(1));
    control->train(5);
    const InductionMeasurement c = control->measure_induction();
    CHECK(c.layers == 1);
    CHECK(c.induction.size() == 2);
    // a text run has no induction measurement
    const auto text = built(text_spec());
    CHECK(text->task() == Task::text);
    CHECK_THROWS_AS(text->measure_induction(), Error);
}

TEST_CASE("the induction lab's spec is the page's settings table", "[run][induction]") {
    for (const InductionSetting& k : kInductionSettings) {
        INFO(k.name);
        const RunSpec spec = induction_lab_spec(k, 2, 1);
        CHECK(validate_setup(spec).empty());
        CHECK(spec.model.max_seq_len == k.context);
        CHECK(spec.train.steps == k.steps);
        CHECK(spec.train.lr == spec.train.min_lr);  // constant after the warm-up
        CHECK_FALSE(spec.model.mlp);
    }
}

// Switching heads off for one measurement (the induction panel's "switch layer 0 off"). What the architecture fixes,
// whatever the weights: a layer's attention weights depend only on the layers below it, so switching layer 0 off
// leaves layer 0's scores as they were and moves layer 1's, and switching layer 1 off leaves every score as it was
// but not the losses. Afterwards the model measures as before (the edit is undone).
TEST_CASE("the induction measurement with heads switched off, and the model put back", "[run][induction]") {
    const auto s = built(induction_spec());
    s->train(20);
    const InductionMeasurement before = s->measure_induction();
    const int H = before.heads;
    const auto layer = [&](int l) {
        std::vector<std::pair<int, int>> heads;
        for (int h = 0; h < H; ++h) heads.emplace_back(l, h);
        return heads;
    };
    const InductionMeasurement no0 = s->measure_induction_without(layer(0));
    CHECK(std::equal(no0.previous.begin(), no0.previous.begin() + H, before.previous.begin()));
    CHECK(std::equal(no0.induction.begin(), no0.induction.begin() + H, before.induction.begin()));
    CHECK_FALSE(std::equal(no0.induction.begin() + H, no0.induction.end(), before.induction.begin() + H));
    CHECK(no0.loss_repeat != before.loss_repeat);
    const InductionMeasurement no1 = s->measure_induction_without(layer(1));
    CHECK(no1.previous == before.previous);
    CHECK(no1.induction == before.induction);
    CHECK(no1.best_induction == before.best_induction);
    CHECK(no1.loss_repeat != before.loss_repeat);
    // nothing switched off: the plain measurement
    CHECK(s->measure_induction_without({}).induction == before.induction);
    // a head that does not exist: a sentence, and the model untouched
    CHECK_THROWS_AS(s->measure_induction_without({{0, 0}, {2, 0}}), Error);
    const InductionMeasurement after = s->measure_induction();
    CHECK(after.induction == before.induction);
    CHECK(after.loss_repeat == before.loss_repeat);
    CHECK(after.loss_first == before.loss_first);
    // a text run has no induction measurement
    CHECK_THROWS_AS(built(text_spec())->measure_induction_without(layer(0)), Error);
}

// ---------------------------------------------------------------- looking inside
TEST_CASE("the inspector: attention maps for a text, causal rows that sum to 1, unknown characters counted",
          "[run][inspect]") {
    const auto s = built(text_spec());
    Inspector in(*s);
    const Inspection i = in.look("the cat@", {}, false);
    const AttentionMaps& m = i.maps;
    CHECK(m.L == 2);
    CHECK(m.H == 4);
    CHECK(m.T == 8);
    CHECK(m.unknown == 1);  // '@' is not in the text
    CHECK(m.tokens[7] == "@");
    CHECK_FALSE(m.truncated);
    REQUIRE(m.att.size() == 2u * 4 * 8 * 8);
    for (int lh = 0; lh < 8; ++lh)
        for (int t = 0; t < 8; ++t) {
            double sum = 0;
            for (int u = 0; u < 8; ++u) {
                const float a = m.att[(lh * 8 + t) * 8 + u];
                if (u > t) CHECK(a == 0.0f);
                sum += a;
            }
            CHECK(sum == Approx(1.0).margin(1e-5));
        }
    CHECK(in.look(std::string(40, 'a'), {}, false).maps.truncated);
    CHECK(in.look(std::string(40, 'a'), {}, false).maps.T == 16);
    CHECK_THROWS_AS(in.look("", {}, false), Error);
    // an induction run has no text to look at: the inspector shows its probe sequence, the first validation row,
    // whatever is typed, with each position named by its id
    const auto ind = built(induction_spec());
    Inspector probe(*ind);
    const EvalBatches& ev = ind->eval_batches();
    const std::vector<int> first_row(ev.x.begin(), ev.x.begin() + ev.T);
    const Inspection a = probe.look("abc", {}, false), b = probe.look("", {}, false);
    REQUIRE(a.maps.T == ev.T);
    CHECK(a.maps.att == b.maps.att);
    for (int t = 0; t < ev.T; ++t) CHECK(a.maps.tokens[t] == std::to_string(first_row[t]));
    CHECK(a.maps.att == attention_maps(ind->model(), first_row, a.maps.tokens).att);
    CHECK_FALSE(a.maps.truncated);
    CHECK(a.maps.unknown == 0);
}

TEST_CASE("the inspector's head scores: one per head, in range, with a label", "[run][inspect]") {
    const auto s = built(text_spec());
    s->train(20);
    Inspector in(*s);
    const HeadScoreTable t = in.look("the cat sat on the mat", {}, false).scores;
    REQUIRE(t.heads.size() == 8);
    REQUIRE(t.labels.size() == 8);
    CHECK(t.probe_len == 7);  // (16 - 1) / 2
    for (std::size_t i = 0; i < t.heads.size(); ++i) {
        const HeadScores& h = t.heads[i];
        CHECK(h.previous >= 0);
        CHECK(h.previous <= 1.0 + 1e-6);
        CHECK(h.first >= 0);
        CHECK(h.induction >= 0);
        CHECK(h.induction <= 1.0 + 1e-6);
        CHECK(h.entropy <= h.max_entropy + 1e-6);
        CHECK(t.labels[i] == head_label(h));
    }
}

TEST_CASE("ablating a head changes the validation loss for that look only", "[run][inspect]") {
    const auto s = built(text_spec());
    s->train(40);
    Inspector in(*s);
    const double run_loss = s->evaluate();
    const Inspection plain = in.look("the dog ran", {}, true);
    CHECK(plain.val_base == run_loss);  // the run's own validation batches
    CHECK(plain.val_modified == plain.val_base);
    const Inspection off = in.look("the dog ran", {{{0, 1}}, false}, true);
    CHECK(off.val_base == plain.val_base);
    CHECK(off.val_modified != off.val_base);
    // the look left the model as it was
    CHECK(in.look("the dog ran", {}, true).val_base == plain.val_base);
    CHECK(in.look("the dog ran", {}, false).maps.att == plain.maps.att);
    CHECK_THROWS_AS(in.look("the dog ran", {{{2, 0}}, false}, false), Error);  // no layer 2
    CHECK_THROWS_AS(in.look("the dog ran", {{{0, 4}}, false}, false), Error);  // no head 4
}

TEST_CASE("tied heads give identical maps in every layer for that look; the weights come back exactly",
          "[run][inspect]") {
    const auto s = built(text_spec());
    s->train(30);
    Inspector in(*s);
    const std::vector<float> before(in.model().params(), in.model().params() + in.model().num_params());
    const Inspection free_look = in.look("the dog ran", {}, true);
    const Inspection tied = in.look("the dog ran", {{}, true}, true);
    const AttentionMaps& m = tied.maps;
    const std::size_t TT = std::size_t(m.T) * m.T;
    for (int l = 0; l < m.L; ++l)
        for (int h = 1; h < m.H; ++h)  // head 0 is the source
            for (std::size_t i = 0; i < TT; ++i) CHECK(m.att[(l * m.H + h) * TT + i] == m.att[(l * m.H) * TT + i]);
    CHECK(tied.val_modified != tied.val_base);
    CHECK(std::vector<float>(in.model().params(), in.model().params() + in.model().num_params()) == before);
    CHECK(in.look("the dog ran", {}, false).maps.att == free_look.maps.att);
}

TEST_CASE("the inspector follows the run's weights and loads its snapshots", "[run][inspect]") {
    const auto s = built(text_spec());
    Inspector in(*s);
    const auto at0 = s->snapshot(false);
    s->train(20);
    const Inspection old_look = in.look("the cat", {}, true);
    REQUIRE(in.follow(*s).empty());
    const Inspection now = in.look("the cat", {}, true);
    CHECK(now.val_base == s->evaluate());
    CHECK(now.val_base != old_look.val_base);
    REQUIRE(in.load(at0.data(), at0.size()).empty());
    CHECK(in.look("the cat", {}, true).val_base == old_look.val_base);
    const auto other = built(text_spec(small_model(8)));
    CHECK_FALSE(in.follow(*other).empty());
    const auto foreign = other->snapshot(false);
    CHECK(in.load(foreign.data(), foreign.size()).find("another model") != std::string::npos);
}

TEST_CASE("a HeadEdit restores the model exactly, also after a tie", "[run][inspect]") {
    const auto s = built(text_spec());
    s->train(10);
    Gpt<float>& m = s->model();
    const std::vector<float> before(m.params(), m.params() + m.num_params());
    const double base = s->evaluate();
    {
        HeadEdit e(m, {{0, 0}, {1, 3}}, true, 2);
        CHECK(e.changes_model());
        CHECK_FALSE(m.head_enabled(0, 0));
        CHECK(s->evaluate() != base);
    }
    CHECK(m.head_enabled(0, 0));
    CHECK(m.head_enabled(1, 3));
    CHECK(std::vector<float>(m.params(), m.params() + m.num_params()) == before);
    CHECK(s->evaluate() == base);
    HeadEdit nothing(m, {}, false);
    CHECK_FALSE(nothing.changes_model());
    // a head that does not exist is a sentence that says which do; a sentinel index is not repeated
    CHECK_THROWS_WITH(HeadEdit(m, {{5, 0}}, false), Catch::Contains(
        "there is no head 0 in layer 5: this model has layers 0 to 1 with heads 0 to 3 in each."));
    CHECK_THROWS_WITH(HeadEdit(m, {{-2147483647 - 1, 0}}, false), Catch::Contains(
        "there is no such head: this model has layers 0 to 1 with heads 0 to 3 in each."));
}

// ---------------------------------------------------------------- memory is part of the set-up
TEST_CASE("a run that would not fit a tab's memory is refused, naming the largest batch or context that does",
          "[run][memory]") {
    // the page's largest heads settings: H = 64, D = 256, L = 4, T = 128, B = 64 (1.9 GB ran out in a worker)
    RunSettings s;
    s.d_model = 256, s.n_heads = 64, s.n_layers = 4, s.context = 128, s.batch = 64, s.steps = 1, s.warmup = 0;
    RunSpec spec;
    REQUIRE(to_run_spec(s, spec).empty());
    const std::string refused = validate_setup(spec);
    CHECK(refused.rfind("This run needs about ", 0) == 0);
    CHECK(refused.find(" GB of memory, more than the 1.00 GB a run may use in a browser tab: at these sizes the largest "
                       "batch that fits is B = 14.") != std::string::npos);
    spec.train.batch = 14;
    CHECK(validate_setup(spec).empty());
    CHECK(run_memory_bytes(spec.model, 14) <= kRunMemoryLimit);
    CHECK(run_memory_bytes(spec.model, 15) > kRunMemoryLimit);
    // the estimate is the model's own count: 5 copies of the parameters (weights, gradients, the other half's
    // gradient, AdamW's moments), 5 more while a full snapshot is made, and 2 of the activations, as floats
    ModelConfig m = spec.model;
    m.vocab_size = 256;
    const std::vector<TensorSpec> table = parameter_table(m);
    const std::size_t P = table.back().offset + table.back().size;
    CHECK(run_memory_bytes(m, 14) == 4 * (10 * P + 2 * activation_elements(m, 14, 128)) + (std::size_t(64) << 20));
    // mha-train's case: too big at any batch, and at any context: a smaller model
    s.d_model = 1024, s.n_layers = 16, s.context = 1024, s.batch = 512;
    REQUIRE(to_run_spec(s, spec).empty());
    CHECK(validate_setup(spec).find(": choose a smaller model (D or the number of layers).") != std::string::npos);
    // one sequence too long: the longest context that fits at batch 1
    s.d_model = 256, s.n_layers = 4, s.context = 1024, s.batch = 1;
    REQUIRE(to_run_spec(s, spec).empty());
    CHECK(validate_setup(spec).find(": even one sequence does not fit; at batch 1 the longest context that fits is T = ") !=
          std::string::npos);
    // the defaults are far inside
    RunSpec def;
    REQUIRE(to_run_spec(RunSettings{}, def).empty());
    CHECK(validate_setup(def).empty());
}

// ---------------------------------------------------------------- a checkpoint names its task
TEST_CASE("a checkpoint names its task: a panel that opens it sets up a run of that task", "[run][checkpoint]") {
    // three runs of three tasks, 3 steps each, saved with their AdamW state
    RunSpec offsets;
    offsets.task = Task::offsets;
    offsets.model.d_model = 16, offsets.model.n_heads = 4, offsets.model.n_layers = 1, offsets.model.max_seq_len = 16;
    offsets.model.mlp = false;
    offsets.train.batch = 4, offsets.train.steps = 10, offsets.train.warmup = 0, offsets.train.seed = 2;
    offsets.offsets.symbols = 2, offsets.offsets.offsets = {1, 4};
    const std::vector<std::pair<RunSpec, std::string>> cases = {
        {offsets, "offsets"}, {induction_spec(), "induction"}, {text_spec(), "char"}};
    for (const auto& [spec, task] : cases) {
        std::unique_ptr<Run> run;
        REQUIRE(make_run(spec, run).empty());
        run->train(3);
        const std::vector<std::uint8_t> file = run->snapshot(true);
        RunSettings s;  // the page's defaults: the text task, D = 64, H = 4, ...
        int step = -1;
        REQUIRE(settings_of_checkpoint(file, s, step).empty());
        INFO(task);
        CHECK(s.task == task);
        CHECK(step == 3);
        CHECK(s.d_model == spec.model.d_model);
        CHECK(s.n_layers == spec.model.n_layers);
        CHECK(s.context == spec.model.max_seq_len);
        CHECK(s.mlp == spec.model.mlp);
        if (task == "offsets") CHECK((s.symbols == 2 && s.offsets == "1,4"));
        if (task == "induction") CHECK((s.vocab == 12 && s.seg_min == 3 && s.seg_max == 7));
        // and the settings read back set up a run of that task from the file, at its step
        s.steps = 10, s.warmup = 0;
        RunSpec again;
        REQUIRE(to_run_spec(s, again).empty());
        again.checkpoint = file;
        if (task == "char") again.text = spec.text;
        std::unique_ptr<Run> back;
        REQUIRE(make_run(again, back).empty());
        CHECK(back->steps_done() == 3);
    }
    // weights alone: step 0
    std::unique_ptr<Run> run;
    REQUIRE(make_run(offsets, run).empty());
    RunSettings s;
    int step = -1;
    REQUIRE(settings_of_checkpoint(run->snapshot(false), s, step).empty());
    CHECK((s.task == "offsets" && step == 0));
}

TEST_CASE("a checkpoint without a task is the text's; an unknown task is a sentence", "[run][checkpoint]") {
    std::unique_ptr<Run> run;
    REQUIRE(make_run(text_spec(), run).empty());
    const Checkpoint c = [&] {
        Checkpoint k;
        REQUIRE(load_checkpoint(run->snapshot(false).data(), run->snapshot(false).size(), k).empty());
        return k;
    }();
    RunSettings s;
    s.task = "offsets";
    int step = -1;
    // written without the "task" metadata (as before it was recorded): the text's
    const std::vector<std::uint8_t> plain = save_checkpoint(c.config, c.params.data(), c.vocab, nullptr);
    REQUIRE(settings_of_checkpoint(plain, s, step).empty());
    CHECK(s.task == "char");
    const std::vector<std::uint8_t> odd =
        save_checkpoint(c.config, c.params.data(), c.vocab, nullptr, "{\"name\":\"chess\"}");
    CHECK(settings_of_checkpoint(odd, s, step) == "the checkpoint names a task this lab does not know.");
    const std::vector<std::uint8_t> no_offsets =
        save_checkpoint(c.config, c.params.data(), c.vocab, nullptr, "{\"name\":\"offsets\",\"symbols\":3}");
    CHECK(settings_of_checkpoint(no_offsets, s, step) == "the checkpoint's offsets task has no symbols or offsets.");
    CHECK(settings_of_checkpoint({}, s, step) != "");
}
