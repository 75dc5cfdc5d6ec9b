// Induction heads (Olsson et al. 2022): a 2-layer attention-only model trained on sequences with a repeated
// random segment at a random offset (fill_shifted_batch) forms a layer-1 head that attends from each token of
// the repeat to the token after its earlier occurrence, and its loss on the repeated copy falls far below the
// first copy's; a 1-layer control, same budget, cannot (one layer can only guess among earlier tokens).
// Native only: 100 s, and 18 s for the page's short setting, with the control on a second core (3x that in wasm).
// The phase change comes after a long plateau: at the T = 32 budget the layer-1 induction score crossed 0.4 between
// steps 12,000 and 14,000 for every seed we ran.
#include <catch2/catch.hpp>

#include <future>
#include <utility>
#include <iostream>
#include <vector>

#include "induction_study.hpp"
#include "induction_task.hpp"
#include "train.hpp"

using namespace mha;

namespace {

// The budget: D=64, H=4, T=32, V=64, segments 4..10 at a random offset, batch 32, constant learning rate 2e-3,
// no weight decay, 16,000 steps (16M tokens). With lr 1e-3 they form later (about step 15,000); with 3e-3 (batch
// 16) or 4e-3, with decaying schedules, with D = 32, or with the segment always right after BOS (which 2-layer models
// solve by position instead), none formed within 12,000 to 16,000 steps.
// Also tried at T = 32 (seed 1, runs of 5,000 to 16,000 steps), none forming heads sooner: batch 8 or 16 (none by
// 16,000), batch 64 (8,000 steps: more tokens, not fewer), lr 1e-2, no loss on the unpredictable targets, weights
// initialised 0.5x or 4x, W_O 4x, lm_head started equal to wte, sinusoidal (learned or frozen) positions, H = 2,
// V = 16, 32 or 128. Shorter contexts do
// form heads sooner (T = 16, segments 3..7, batch 64: 2,000 to 2,750 steps for 7 of 8 seeds, 5,000 for the
// eighth), but there the segment lengths span so little that a 1-layer control reaches induction scores of
// 0.29 to 0.43 and a repeated-copy loss of 0.7 to 1.7 nats (first copy 4.2) by attending to fixed offsets: no
// longer a control.
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

// one setting of the task: context, segment lengths, batch, steps (the page's two settings, web/js/panels/induction.js)
struct Setting {
    int T, seg_min, seg_max, batch, steps;
};
constexpr Setting kLong{32, 4, 10, 32, 16000};  // the budget above: a clean control, 100 s
constexpr Setting kShort{16, 3, 7, 64, 3000};   // the page's default: about a minute in a tab, 20 s here

InductionMeasurement train_and_measure(Setting k, int layers, std::uint64_t seed) {
    ModelConfig cfg;
    cfg.vocab_size = 64, cfg.d_model = 64, cfg.n_heads = 4, cfg.n_layers = layers, cfg.max_seq_len = k.T, cfg.mlp = false;
    TrainConfig tc;
    tc.batch = k.batch, tc.seq_len = k.T, tc.steps = k.steps, tc.warmup = 100, tc.lr = kLr, tc.min_lr = kLr;
    tc.seed = seed, tc.adamw.weight_decay = 0;
    std::vector<int> seg(tc.batch), start(tc.batch);
    Trainer trainer(cfg, tc, [&](Rng& rng, int B, int T, int* x, int* y) {
        fill_shifted_batch(rng, B, T, 64, k.seg_min, k.seg_max, x, y, seg.data(), start.data());
    });
    for (int s = 0; s < k.steps; ++s) trainer.step();
    return measure_induction(trainer.model(), k.seg_max, 32, 4242);
}

// the 2-layer model and (on a second thread: models share nothing, the packing scratch is thread_local) the control
std::pair<InductionMeasurement, InductionMeasurement> train_both(Setting k, std::uint64_t seed) {
    std::future<InductionMeasurement> control = std::async(std::launch::async, train_and_measure, k, 1, seed);
    const InductionMeasurement two = train_and_measure(k, 2, seed);
    const InductionMeasurement one = control.get();
    std::cout << "  induction, T = " << k.T << ", " << k.steps << " steps: 2 layers: layer-1 head " << two.best_head
              << " induction score " << two.best_induction << ", loss first copy " << two.loss_first
              << ", repeated copy " << two.loss_repeat << " | 1 layer: best induction score " << one.best_induction
              << ", first " << one.loss_first << ", repeated " << one.loss_repeat << "\n";
    return {two, one};
}

}  // namespace

#if !defined(__EMSCRIPTEN__)
TEST_CASE("induction heads form in a 2-layer attention-only model and not in a 1-layer control", "[induction][slow]") {
    const auto [two, one] = train_both(kLong, 1);
    CHECK(two.best_induction > 0.4);
    CHECK(two.loss_repeat < 0.3 * two.loss_first);
    CHECK(one.best_induction < 0.4);
    CHECK(one.loss_repeat > 0.4 * one.loss_first);
}

// The page's default. Segments of 3..7 are short enough that a 1-layer model gets the repeat partly right with heads
// that look a fixed distance back (repeated-copy loss 1.0 to 1.7 nats over 8 seeds, against 4.2), so here the control
// is only checked to stay far behind. Seed 1 (measured: score 0.78, repeated copy 0.34 against 4.17; control 0.35 and
// 1.72); of 8 seeds, 7 crossed 0.4 by step 2,750 and one took 5,000, so this budget is not one for every seed.
TEST_CASE("the page's short setting forms an induction head within 3,000 steps, the control far behind", "[induction][slow]") {
    const auto [two, one] = train_both(kShort, 1);
    CHECK(two.best_induction > 0.4);
    CHECK(two.loss_repeat < 0.15 * two.loss_first);
    CHECK(two.best_induction > one.best_induction + 0.3);
    CHECK(one.loss_repeat > 4 * two.loss_repeat);
}
#endif
