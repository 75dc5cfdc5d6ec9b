// Induction heads (Olsson et al. 2022): a 2-layer attention-only model trained on sequences with a repeated
// random segment at a random offset (fill_shifted_batch) forms a layer-1 head that attends from each token of
// the repeat to the token after its earlier occurrence, and its loss on the repeated copy falls far below the
// first copy's; a 1-layer control, same budget, cannot (one layer can only guess how far back the earlier copy is).
// Scores and losses are measured on the task's own sequences (induction_study.hpp says why not only on [BOS, r, r]).
// Native only (minutes of training), the control on a second core. Measured scores, timings, the budgets across
// seeds and the settings tried on the way: docs/experiments.md, "Induction heads".
#include <catch2/catch.hpp>

#include <functional>
#include <future>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "induction_study.hpp"
#include "run.hpp"
#include "run_settings.hpp"

using namespace mha;

#if !defined(__EMSCRIPTEN__)  // native only: minutes of training in wasm
namespace {

// The budget: D=64, H=4, T=32, V=64, segments 4..10 at a random offset, batch 32, constant learning rate 2e-3,
// no weight decay, 16,000 steps (16M tokens). The segment sits at a random offset because right after BOS 2-layer
// models solve the task by position instead; other learning rates, schedules, sizes and tasks formed heads later
// or not at all (docs/experiments.md). Shorter contexts form heads sooner: the short setting below.
// the page's two settings of the task (core/app/run_settings.hpp, kInductionSettings)
constexpr const InductionSetting& kLong = kInductionSettings[1];   // the budget above
constexpr const InductionSetting& kShort = kInductionSettings[0];  // the page's default

// a trained model measured as it is and with every layer-0 head switched off (2 layers only): an induction head
// built on layer 0 loses its target without it
struct Measured {
    InductionMeasurement full, without_layer0;
};

Measured train_and_measure(const InductionSetting& k, int layers, std::uint64_t seed) {
    std::unique_ptr<Run> run;
    const std::string err = make_run(induction_lab_spec(k, layers, seed), run);
    if (!err.empty()) throw std::runtime_error(err);  // not REQUIRE: the control runs on another thread
    run->train_to_end();
    Measured r;
    r.full = run->measure_induction();
    if (layers == 2) {  // what the page's "switch layer 0 off" asks the core for
        std::vector<std::pair<int, int>> layer0;
        for (int h = 0; h < run->model().config().n_heads; ++h) layer0.emplace_back(0, h);
        r.without_layer0 = run->measure_induction_without(layer0);
    }
    return r;
}

// The 2-layer model and (on a second thread: models share nothing, the packing scratch is thread_local) the control.
// What both settings must show, on the task's own sequences: a last-layer head of the 2-layer model past the
// threshold, its repeated-copy loss under a quarter of the first copy's, and no last-layer head past it with
// layer 0 switched off; the control's best head under the threshold and its repeated-copy loss above
// 0.35 of the first copy's (one layer can only guess how far back the earlier copy is: a guess spread over the 5 or 7
// possible distances costs ln 5 = 1.6 or ln 7 = 1.9 nats, against ln 63 = 4.1, less where the position rules some out).
// 0.4 is the induction threshold the page states; a quarter and 0.35 lie between where the 2-layer models and the
// controls end up across seeds (docs/experiments.md).
void check_phase_change(const InductionSetting& k, std::uint64_t seed) {
    std::future<Measured> control = std::async(std::launch::async, train_and_measure, std::cref(k), 1, seed);
    const Measured two = train_and_measure(k, 2, seed);
    const InductionMeasurement one = control.get().full;
    std::cout << "  induction, T = " << k.context << ", " << k.steps << " steps: 2 layers: layer-1 head "
              << two.full.best_head << " induction score " << two.full.best_induction << " ("
              << two.without_layer0.best_induction << " with layer 0 off), loss first copy " << two.full.loss_first
              << ", repeated copy " << two.full.loss_repeat << " | 1 layer: best induction score " << one.best_induction
              << ", first " << one.loss_first << ", repeated " << one.loss_repeat << "\n";
    CHECK(two.full.best_induction > 0.4);
    CHECK(two.full.loss_repeat < 0.25 * two.full.loss_first);
    CHECK(two.without_layer0.best_induction < 0.4);
    CHECK(one.best_induction < 0.4);
    CHECK(one.loss_repeat > 0.35 * one.loss_first);
}

}  // namespace

// The page's default, seed 1, 3,500 steps at the rate 1.5e-3: the page's budget, which 31 of 32 seeds meet by 3,250
// (seed 1 by 2,500; the figures and the budget across seeds are in docs/experiments.md).
TEST_CASE("the page's short setting forms an induction head within 3,500 steps, and the 1-layer control does not",
          "[induction][slow]") {
    check_phase_change(kShort, 1);
}

// The long setting, seed 1, 16,000 steps (measured figures: docs/experiments.md). [longest]: ctest starts it first.
TEST_CASE("the long setting forms an induction head within 16,000 steps, and the 1-layer control does not",
          "[induction][slow][longest]") {
    check_phase_change(kLong, 1);
}
#endif
