// Training sanity: the reference workload "tiny-char" (V=62, D=64, H=4, L=2, T=64, B=16, MLP 4D, AdamW) trained on
// the shipped corpus for 250 steps ends with a validation loss clearly below the unigram baseline of the corpus
// (the loss of predicting each character by its frequency alone). Both numbers are printed.
#include <catch2/catch.hpp>

#include <iostream>

#include "run.hpp"
#include "test_util.hpp"

using namespace mha;

TEST_CASE("tiny-char trained for 250 steps ends clearly below the unigram baseline", "[train][slow]") {
    RunSpec spec;  // the page's heads panel at H = 4, built as the page and mha-train build it
    spec.text = test::read_text_file(test::corpus_path());
    REQUIRE(spec.text.size() > 200000);
    spec.model.d_model = 64, spec.model.n_heads = 4, spec.model.n_layers = 2, spec.model.max_seq_len = 64;
    TrainConfig& tc = spec.train;
    tc.batch = 16, tc.steps = 250, tc.warmup = 25, tc.lr = 3e-3, tc.min_lr = 3e-4, tc.seed = 1;
    spec.eval_batches = 8;
    std::unique_ptr<Run> run;
    REQUIRE(make_run(spec, run) == "");
    const double before = run->evaluate();
    const TrainChunk chunk = run->train(tc.steps);
    REQUIRE(chunk.steps.size() == 250u);
    for (const StepResult& r : chunk.steps) REQUIRE_FALSE(r.skipped);
    const double after = run->evaluate();
    const double baseline = run->facts().baseline_loss;
    std::cout << "  tiny-char: val loss " << before << " at init, " << after << " after 250 steps; unigram baseline "
              << baseline << " nats\n";
    CHECK(before > baseline);          // an untrained model knows less than character frequencies
    CHECK(after < baseline - 0.4);     // and a trained one clearly more
}
