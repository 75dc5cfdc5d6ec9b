// The multi-offset task: inputs uniform over the S symbols, the target the tuple of the tokens at the offsets
// written in base S (the first offset the lowest digit), no target (-1) where an offset reaches before the
// sequence; the validator's sentences; determinism per seed. Expectations are computed here from the definition,
// not copied from the filler's output.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "offset_task.hpp"
#include "prng.hpp"
#include "reach.hpp"
#include "run.hpp"
#include "run_settings.hpp"

using namespace mha;

namespace {
bool says(const std::string& err, const std::string& part) { return err.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("offsets task: targets are the tokens at the offsets in base S, none before the largest offset", "[data]") {
    OffsetTaskConfig k;
    k.symbols = 3, k.offsets = {5, 1, 3};  // not sorted: the order fixes the digits
    const int B = 8, T = 20;
    std::vector<int> x(B * T), y(B * T);
    Rng rng(7);
    std::vector<int> seen(27, 0), symbol_seen(3, 0);
    for (int rep = 0; rep < 10; ++rep) {
        fill_offset_batch(rng, k, B, T, x.data(), y.data());
        for (int b = 0; b < B; ++b)
            for (int t = 0; t < T; ++t) {
                const int* xb = &x[b * T];
                const int v = xb[t];
                REQUIRE((v >= 0 && v < 3));
                ++symbol_seen[v];
                const int target = y[b * T + t];
                if (t < 5) {
                    REQUIRE(target == -1);  // x[t-5] does not exist
                    continue;
                }
                // digit 1 = x[t-5], digit 3 = x[t-1], digit 9 = x[t-3]
                const int expected = xb[t - 5] + 3 * xb[t - 1] + 9 * xb[t - 3];
                REQUIRE(target == expected);
                ++seen[target];
            }
    }
    for (int c = 0; c < 27; ++c) CHECK(seen[c] > 0);  // every class occurs
    for (int s = 0; s < 3; ++s) CHECK(symbol_seen[s] > 0);
}

TEST_CASE("offsets task: offset 1 is the previous token", "[data]") {
    OffsetTaskConfig k;
    k.symbols = 4, k.offsets = {1};
    const int T = 6;
    std::vector<int> x(T), y(T);
    Rng rng(3);
    fill_offset_batch(rng, k, 1, T, x.data(), y.data());
    CHECK(y[0] == -1);
    for (int t = 1; t < T; ++t) CHECK(y[t] == x[t - 1]);
}

TEST_CASE("offsets task batches are deterministic per seed", "[data]") {
    OffsetTaskConfig k;
    k.symbols = 8, k.offsets = {1, 5};
    const int B = 4, T = 16;
    std::vector<int> x1(B * T), y1(B * T), x2(B * T), y2(B * T), x3(B * T), y3(B * T);
    Rng a(11), b(11), c(12);
    fill_offset_batch(a, k, B, T, x1.data(), y1.data());
    fill_offset_batch(b, k, B, T, x2.data(), y2.data());
    fill_offset_batch(c, k, B, T, x3.data(), y3.data());
    CHECK(x1 == x2);
    CHECK(y1 == y2);
    CHECK(x1 != x3);
}

TEST_CASE("offsets task arguments that cannot work are clear sentences", "[data]") {
    OffsetTaskConfig k;
    CHECK(validate_offset_task(k, 32).empty());  // the default: 3 symbols at 1,3,5,7
    CHECK(offset_task_classes(k, 4096) == 81);
    CHECK(max_offset(k) == 7);
    CHECK(says(validate_offset_task(k, 7), "offset 7 is outside 1 to T-1 = 6"));
    k.offsets = {1, 3, 3};
    CHECK(says(validate_offset_task(k, 32), "offset 3 is listed twice"));
    k.offsets = {0, 2};
    CHECK(says(validate_offset_task(k, 32), "offset 0 is outside"));
    k.offsets = {};
    CHECK(says(validate_offset_task(k, 32), "needs 1 to 8 offsets"));
    k.offsets = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(says(validate_offset_task(k, 32), "3^8 classes, more than the largest vocabulary, 4096"));
    k.offsets = {1, 2};
    k.symbols = 1;
    CHECK(says(validate_offset_task(k, 32), "at least 2 symbols"));
    k.symbols = 64;  // 4096 classes: just fits
    CHECK(validate_offset_task(k, 32).empty());
    k.symbols = 65;
    CHECK_FALSE(validate_offset_task(k, 32).empty());
    std::vector<int> x(32), y(32);
    Rng rng(1);
    CHECK_THROWS(fill_offset_batch(rng, k, 1, 32, x.data(), y.data()));
}

TEST_CASE("offsets settings: the list is parsed, bad lists get a sentence", "[run]") {
    std::vector<int> o;
    CHECK(to_offsets("1,3,5,7", o).empty());
    CHECK(o == std::vector<int>{1, 3, 5, 7});
    CHECK(to_offsets(" 2 , 9", o).empty());
    CHECK(o == std::vector<int>{2, 9});
    for (const char* bad : {"", "1,,3", "1,a", "-1,2", "1.5", "0,1", "1,"}) {
        o = {42};
        CHECK(says(to_offsets(bad, o), "The offsets must be whole numbers"));
        CHECK(o == std::vector<int>{42});  // untouched
    }
    RunSettings s;
    s.task = "offsets", s.symbols = 8, s.offsets = "1,5", s.context = 32;
    RunSpec spec;
    REQUIRE(to_run_spec(s, spec).empty());
    CHECK(spec.task == Task::offsets);
    CHECK(spec.offsets.symbols == 8);
    CHECK(spec.offsets.offsets == std::vector<int>{1, 5});
    s.symbols = 2.5;
    CHECK(says(to_run_spec(s, spec), "The number of symbols must be a whole number"));
    s.symbols = 3, s.offsets = "1,40", s.context = 32;
    REQUIRE(to_run_spec(s, spec).empty());
    CHECK(says(validate_setup(spec), "offset 40 is outside 1 to T-1 = 31"));
}

TEST_CASE("an offsets run: vocabulary S^K, baseline ln S^K, masked fixed validation batches", "[run]") {
    RunSpec spec;
    spec.task = Task::offsets;
    spec.offsets.symbols = 3, spec.offsets.offsets = {1, 3, 5, 7};
    spec.model.d_model = 16, spec.model.n_heads = 4, spec.model.n_layers = 1, spec.model.mlp = false;
    spec.model.max_seq_len = 12;
    spec.train.batch = 4, spec.train.steps = 3, spec.train.warmup = 0, spec.train.seed = 5;
    spec.eval_batches = 2;
    std::unique_ptr<Run> run;
    REQUIRE(make_run(spec, run).empty());
    const RunFacts f = run->facts();
    CHECK(f.model.vocab_size == 81);
    CHECK(f.baseline_loss == Approx(std::log(81.0)));
    CHECK(f.task == Task::offsets);
    CHECK(std::string(task_name(f.task)) == "offsets");
    const EvalBatches& e = run->eval_batches();
    REQUIRE(e.n_batches == 2);
    for (int r = 0; r < e.n_batches * e.B; ++r)
        for (int t = 0; t < e.T; ++t) {
            const int* x = &e.x[static_cast<std::size_t>(r) * e.T];
            const int y = e.y[static_cast<std::size_t>(r) * e.T + t];
            REQUIRE((x[t] >= 0 && x[t] < 3));
            if (t < 7) REQUIRE(y == -1);
            else REQUIRE(y == x[t - 1] + 3 * x[t - 3] + 9 * x[t - 5] + 27 * x[t - 7]);
        }
    // an untrained model is near the uniform guess on the counted targets
    CHECK(std::fabs(run->evaluate() - std::log(81.0)) < 0.5);
    CHECK(run->train_to_end() == 3);
    Task parsed = Task::text;
    CHECK(parse_task("offsets", parsed));
    CHECK(parsed == Task::offsets);
}

// The shipped setting (kOffsetsSetting: D = 64, one attention-only layer, offsets 1,3,5,7 over 3 symbols, a constant
// rate), seed 1, H = 1 against H = 4 at equal parameters, compared over time: four heads reach 0.2 nats about ten
// times sooner than one head, which gets there too. Over seeds 1..3 and 101..108 (scripts/offsets_seeds,
// docs/experiments.md) H = 4 first reached 0.2 at steps 175-300 and H = 1 at 2,250-2,600; the bounds 500 and 1,500
// lie well between. Each run ends at its first measurement at 0.2 nats, as the page's runs do (the steps after it
// decide nothing here; over the whole budget the case took 103 s in WebAssembly, the suite's critical path). [longest]:
// still the suite's longest case in WebAssembly; ctest starts it first.
TEST_CASE("offsets task, shipped setting, seed 1: H = 4 reaches 0.2 nats long before H = 1, which gets there too",
          "[offsets][slow][longest]") {
    int first[2] = {-1, -1};
    std::size_t params[2] = {0, 0};
    const int heads[2] = {1, 4};
    for (int i = 0; i < 2; ++i) {
        RunSpec spec;
        REQUIRE(to_run_spec(offsets_settings(64, heads[i], 1), spec).empty());
        std::unique_ptr<Run> run;
        REQUIRE(make_run(spec, run).empty());
        std::vector<double> steps, losses;
        while (!run->finished() && (losses.empty() || losses.back() > kOffsetsSetting.threshold)) {
            run->train(kOffsetsSetting.eval_every);
            steps.push_back(run->steps_done()), losses.push_back(run->evaluate());
        }
        first[i] = first_step_at_or_below(steps, losses, kOffsetsSetting.threshold);
        params[i] = run->facts().params;
    }
    INFO("first step at or below 0.2 nats: H = 1 " << first[0] << ", H = 4 " << first[1]);
    CHECK(params[0] == params[1]);
    CHECK(first[1] > 0);
    CHECK(first[1] < 500);
    CHECK(first[0] > 1500);  // -1 (never) fails here too: one head gets there within the budget
}
