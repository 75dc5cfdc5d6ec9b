// The per-op profiler (core/base/profile.hpp) and the profiled training step of scripts/bench: laps nest into
// paths, exclusive times add up to the laps' total, turning profiling on changes no bit of the training, and the
// call counts of a step match the model's structure. No assertion here depends on how long anything takes.
#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <string>

#include "benchmark.hpp"
#include "profile.hpp"
#include "train.hpp"

using namespace mha;

namespace {

// exclusive times and counts by path
std::map<std::string, Profile::Row> by_path(const Profile& p) {
    std::map<std::string, Profile::Row> m;
    for (const Profile::Row& r : p.rows()) m.emplace(r.path, r);
    return m;
}

void busy(int n) {
    volatile double x = 0;
    for (int i = 0; i < n; ++i) x = x + 1e-9 * i;
}

// a small model, fast enough for the wasm suite: V=16, D=16, H=2, L=2, T=8, B=2
Trainer small_trainer() {
    ModelConfig m;
    m.vocab_size = 16, m.d_model = 16, m.n_heads = 2, m.n_layers = 2, m.max_seq_len = 8;
    TrainConfig t;
    t.batch = 2, t.seq_len = 8, t.steps = 20, t.warmup = 2, t.seed = 3;
    return Trainer(m, t, [](Rng& rng, int B, int T, int* x, int* y) {
        for (int i = 0; i < B * T; ++i) x[i] = int(rng.below(16)), y[i] = int(rng.below(16));
    });
}

}  // namespace

TEST_CASE("profile: laps nest into paths and exclusive times add up to the total", "[profile]") {
    Profile p;
    {
        ProfileSession on(p);
        for (int rep = 0; rep < 3; ++rep) {
            ProfileLap outer("outer");
            busy(1000);
            {
                ProfileLap inner("a");
                busy(1000);
                inner("b");  // ends "a", starts "b"
                busy(1000);
            }
            outer("second");
            busy(1000);
        }
    }
    const auto rows = by_path(p);
    REQUIRE(rows.size() == 4u);
    REQUIRE(rows.count("outer") == 1);
    REQUIRE(rows.count("outer/a") == 1);
    REQUIRE(rows.count("outer/b") == 1);
    REQUIRE(rows.count("second") == 1);
    for (const auto& kv : rows) {
        CHECK(kv.second.calls == 3);
        CHECK(kv.second.seconds >= 0);
    }
    double sum = 0;
    for (const Profile::Row& r : p.rows()) sum += r.seconds;
    CHECK(sum == Approx(p.total_seconds()).epsilon(1e-9));
    // the session is over: profiling is off again, and a lap records nothing
    REQUIRE(profile_sink() == nullptr);
    { ProfileLap off("ignored"); }
    CHECK(by_path(p).count("ignored") == 0);
}

TEST_CASE("profile: a label is matched by content, and clear() empties the profile", "[profile]") {
    Profile p;
    const std::string a = "same", b = "same";  // two buffers, one label
    {
        ProfileSession on(p);
        { ProfileLap lap(a.c_str()); }
        { ProfileLap lap(b.c_str()); }
    }
    REQUIRE(p.rows().size() == 1u);
    CHECK(p.rows()[0].calls == 2);
    p.clear();
    CHECK(p.rows().empty());
    CHECK(p.total_seconds() == 0);
}

TEST_CASE("profile: a profiled training step computes bit for bit what an unprofiled one does", "[profile][train]") {
    Trainer plain = small_trainer(), profiled = small_trainer();
    for (int i = 0; i < 6; ++i) plain.step();
    const StepProfile prof = profile_training_steps(profiled, 3);  // 3 pairs: 6 steps, 3 of them profiled
    REQUIRE(prof.steps == 1);  // the faster half of 3
    const std::size_t n = plain.model().num_params();
    REQUIRE(n == profiled.model().num_params());
    CHECK(std::memcmp(plain.model().params(), profiled.model().params(), n * sizeof(float)) == 0);
    // and the next step's loss is the same float
    const StepResult a = plain.step(), b = profiled.step();
    CHECK(std::memcmp(&a.loss, &b.loss, sizeof a.loss) == 0);
}

TEST_CASE("profile: the rows of a training step add up to the step and count the model's calls", "[profile][train]") {
    Trainer trainer = small_trainer();
    trainer.step();
    const StepProfile prof = profile_training_steps(trainer, 4);
    REQUIRE(prof.steps == 2);
    double sum = 0;
    std::map<std::string, double> calls;
    for (const StepProfile::Row& r : prof.rows) {
        CHECK(r.ms >= -1e-9);
        sum += r.ms;
        calls[r.op] = r.calls;
    }
    // unattributed = step - Σ rows, and it is not negative: every lap lies inside the timed step
    CHECK(sum + prof.unattributed_ms == Approx(prof.step_ms).epsilon(1e-9));
    CHECK(prof.unattributed_ms >= -1e-9);
    // per step, with B=2, H=2, L=2, in two halves of one sequence (Trainer::step): the per-head attention laps run
    // B·H·L = 8 times; per half, the q, k, v projections 3·L = 6 times, out-proj, mlp.fc, mlp.proj L = 2 times,
    // lm_head once; the halves' sum, clipping and AdamW once
    for (const auto& kv : calls) UNSCOPED_INFO(kv.first << " " << kv.second);  // on a failure: every path
    CHECK(calls["forward/attention/q kT"] == 8);
    CHECK(calls["forward/attention/softmax+mask"] == 8);
    CHECK(calls["backward/attention/dk += dpreT q"] == 8);
    CHECK(calls["forward/qkv/matmul"] == 12);
    // a Linear's weight gradient is "dweight", or "dweight+dbias" where the build sums its bias in the same pass
    CHECK(calls["backward/qkv/dweight"] + calls["backward/qkv/dweight+dbias"] == 12);
    CHECK(calls["forward/out-proj/matmul"] == 4);
    CHECK(calls["backward/mlp.fc/dinp"] == 4);
    CHECK(calls["backward/mlp.proj/dinp*gelu'"] == 4);  // GELU's backward inside mlp.proj's dinp pass
    CHECK(calls.count("backward/gelu") == 0);
    CHECK(calls["forward/lm_head/matmul"] == 2);
    CHECK(calls["sum halves"] == 1);
    CHECK(calls["adamw"] == 1);
    CHECK(calls["forward/layernorm"] == 10);  // ln1, ln2 per layer and the final one, per half
    CHECK(prof.step_ms_on > 0);
    CHECK(prof.step_ms_off > 0);
}
