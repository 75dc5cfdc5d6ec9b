// Induction heads (Olsson et al. 2022): a 2-layer attention-only model trained on sequences with a repeated
// random segment at a random offset (fill_shifted_batch) forms a layer-1 head that attends from each token of
// the repeat to the token after its earlier occurrence, and its loss on the repeated copy falls far below the
// first copy's; a 1-layer control, same budget, cannot (one layer can only guess how far back the earlier copy is).
// Scores and losses are measured on the task's own sequences (induction_study.hpp says why not only on [BOS, r, r]).
// Native only: 18 s for the page's short setting and 100 s for the long one, with the control on a second core
// (3x that in wasm). scripts/induction_budget measures the budgets across seeds.
#include <catch2/catch.hpp>

#include <future>
#include <iostream>
#include <vector>

#include "induction_study.hpp"
#include "induction_task.hpp"
#include "train.hpp"

using namespace mha;

#if !defined(__EMSCRIPTEN__)  // native only: minutes of training in wasm
namespace {

// The budget: D=64, H=4, T=32, V=64, segments 4..10 at a random offset, batch 32, constant learning rate 2e-3,
// no weight decay, 16,000 steps (16M tokens). With lr 1e-3 they form later (about step 15,000); with 3e-3 (batch
// 16) or 4e-3, with decaying schedules, with D = 32, or with the segment always right after BOS (which 2-layer models
// solve by position instead), none formed within 12,000 to 16,000 steps.
// Also tried at T = 32 (seed 1, runs of 5,000 to 16,000 steps), none forming heads sooner: batch 8 or 16 (none by
// 16,000), batch 64 (8,000 steps: more tokens, not fewer), lr 1e-2, no loss on the unpredictable targets, weights
// initialised 0.5x or 4x, W_O 4x, lm_head started equal to wte, sinusoidal (learned or frozen) positions, H = 2,
// 8 or 16, V = 16, 32 or 128. Shorter contexts do
// form heads sooner: T = 16, segments 3..7, batch 64 is the short setting below. (On the probe [BOS, r, r] with
// the longest segment its 1-layer control seemed to reach induction scores of 0.29 to 0.47: that probe's positions
// tell a fixed-offset head the distance. On the task's own sequences it scores 0.22 to 0.26.)
// A segment repeated to the end of the context, right after BOS, passes 0.4 by step 500, but by position: on probes
// at a random offset its repeated-copy loss is 5.3 nats. After a random prefix: 4,500 steps (3,750 at lr 4e-3).
// A filler with a skip-bigram rule (x[t] = f(x[t-2]) half the time) grows a previous-token head (score 0.99) by step
// 1,000, yet the induction head still took 5,000 steps, and other runs of it built a circuit that attends one
// position after the induction target (copying what a previous-token head moved there), which the score misses.
// Curricula do not help either (seed 1): segments placed early first, the offset range widening over 3,000 steps
// (none by 6,000); the periodic task first, then random offsets (the positional solution it learned was unlearned
// and nothing replaced it by 1,500). A random gap between the copies (so no fixed offset pays) grows, at T = 16 and
// T = 24, a circuit of fixed-offset "window" heads in layer 0 whose repeated-copy loss falls to 0.5 to 0.7 nats
// with an induction score below 0.1 (not the circuit this test is about), and nothing by 10,000 steps at T = 32.
// D = 32 (half the time per step), frozen random token embeddings and unembedding (with or without frozen
// positions), and the segment repeated to the end after a random prefix with seed 2: none by 6,000 to 14,000.
constexpr double kLr = 2e-3;

// one setting of the task: context, segment lengths, batch, steps (the page's two settings, INDUCTION_TASKS in
// web/js/state.js)
struct Setting {
    int T, seg_min, seg_max, batch, steps;
};
constexpr Setting kLong{32, 4, 10, 32, 16000};  // the budget above: 10 to 20 minutes in a tab, 100 s here
constexpr Setting kShort{16, 3, 7, 64, 3000};   // the page's default: about a minute in a tab, 18 s here

// a trained model measured as it is and with every layer-0 head switched off (2 layers only): an induction head
// built on layer 0 loses its target without it
struct Measured {
    InductionMeasurement full, without_layer0;
};

Measured train_and_measure(Setting k, int layers, std::uint64_t seed) {
    ModelConfig cfg;
    cfg.vocab_size = 64, cfg.d_model = 64, cfg.n_heads = 4, cfg.n_layers = layers, cfg.max_seq_len = k.T, cfg.mlp = false;
    TrainConfig tc;
    tc.batch = k.batch, tc.seq_len = k.T, tc.steps = k.steps, tc.warmup = 100, tc.lr = kLr, tc.min_lr = kLr;
    tc.seed = seed, tc.adamw.weight_decay = 0;
    std::vector<int> seg(tc.batch), start(tc.batch);
    Trainer trainer(cfg, tc, [&](Rng& rng, int B, int T, int* x, int* y) {
        fill_shifted_batch(rng, B, T, cfg.vocab_size, k.seg_min, k.seg_max, x, y, seg.data(), start.data());
    });
    for (int s = 0; s < k.steps; ++s) trainer.step();
    const InductionTaskConfig task{cfg.vocab_size, k.seg_min, k.seg_max};
    Gpt<float>& model = trainer.model();
    Measured r;
    r.full = measure_induction(model, task, k.T, 128, 4242);
    if (layers == 2) {
        for (int h = 0; h < cfg.n_heads; ++h) model.set_head_enabled(0, h, false);
        r.without_layer0 = measure_induction(model, task, k.T, 128, 4242);
    }
    return r;
}

// The 2-layer model and (on a second thread: models share nothing, the packing scratch is thread_local) the control.
// What both settings must show, on the task's own sequences: a last-layer head of the 2-layer model past the
// threshold, its repeated-copy loss under a quarter of the first copy's, and no last-layer head past it with
// layer 0 switched off; the control's best head under the threshold and its repeated-copy loss above
// 0.35 of the first copy's (one layer can only guess how far back the earlier copy is: a guess spread over the 5 or 7
// possible distances costs ln 5 = 1.6 or ln 7 = 1.9 nats, against ln 63 = 4.1, less where the position rules some out)
void check_phase_change(Setting k, std::uint64_t seed) {
    std::future<Measured> control = std::async(std::launch::async, train_and_measure, k, 1, seed);
    const Measured two = train_and_measure(k, 2, seed);
    const InductionMeasurement one = control.get().full;
    std::cout << "  induction, T = " << k.T << ", " << k.steps << " steps: 2 layers: layer-1 head " << two.full.best_head
              << " induction score " << two.full.best_induction << " (" << two.without_layer0.best_induction
              << " with layer 0 off), loss first copy " << two.full.loss_first << ", repeated copy "
              << two.full.loss_repeat << " | 1 layer: best induction score " << one.best_induction << ", first "
              << one.loss_first << ", repeated " << one.loss_repeat << "\n";
    CHECK(two.full.best_induction > 0.4);
    CHECK(two.full.loss_repeat < 0.25 * two.full.loss_first);
    CHECK(two.without_layer0.best_induction < 0.4);
    CHECK(one.best_induction < 0.4);
    CHECK(one.loss_repeat > 0.35 * one.loss_first);
}

}  // namespace

// The page's default, seed 1, 3,000 steps (measured: score 0.71, 0.23 with layer 0 off, repeated copy 0.63 against
// 4.30 on the first; control 0.23, 2.11 against 4.29). scripts/induction_budget: of 16 seeds, 14 crossed 0.4 by step 2,750 and all 16
// by 4,750; the controls scored 0.21 to 0.26 at step 3,000 (0.39 at 5,000 for seed 14, whose repeat loss came down
// to 0.40 of the first copy's: given time, one layer guesses better).
TEST_CASE("the page's short setting forms an induction head within 3,000 steps, and the 1-layer control does not",
          "[induction][slow]") {
    check_phase_change(kShort, 1);
}

// The long setting, seed 1, 16,000 steps (measured: score 0.78, 0.06 with layer 0 off, repeated copy 0.50 against
// 4.22; control 0.16, 2.33 against 4.21). scripts/induction_budget long 4: crossed 0.4 at steps 11,750 to 13,750,
// with the repeat under a quarter of the first copy by 12,000 to 14,250; the controls never above 0.17.
TEST_CASE("the long setting forms an induction head within 16,000 steps, and the 1-layer control does not",
          "[induction][slow]") {
    check_phase_change(kLong, 1);
}
#endif
