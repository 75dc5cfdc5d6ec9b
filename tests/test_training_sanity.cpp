// Training sanity: the reference workload "tiny-char" (V=62, D=64, H=4, L=2, T=64, B=16, MLP 4D, AdamW) trained on
// the shipped corpus for 250 steps ends with a validation loss clearly below the unigram baseline of the corpus
// (the loss of predicting each character by its frequency alone). Both numbers are printed.
#include <catch2/catch.hpp>

#include <iostream>

#include "dataset.hpp"
#include "test_util.hpp"
#include "tokenizer.hpp"
#include "train.hpp"

using namespace mha;

TEST_CASE("tiny-char trained for 250 steps ends clearly below the unigram baseline", "[train][slow]") {
    const std::string text = test::read_text_file(test::corpus_path());
    REQUIRE(text.size() > 200000);
    CharTokenizer tok;
    REQUIRE(CharTokenizer::from_text(text, tok) == "");
    Dataset data;
    REQUIRE(make_text_dataset(text, tok, 64, data) == "");

    ModelConfig cfg;
    cfg.vocab_size = tok.vocab_size(), cfg.d_model = 64, cfg.n_heads = 4, cfg.n_layers = 2, cfg.max_seq_len = 64;
    TrainConfig tc;
    tc.batch = 16, tc.seq_len = 64, tc.steps = 250, tc.warmup = 25, tc.lr = 3e-3, tc.min_lr = 3e-4, tc.seed = 1;
    Trainer trainer(cfg, tc, [&](Rng& rng, int B, int T, int* x, int* y) { data.sample_batch(rng, B, T, x, y); });
    const EvalBatches eval = data.eval_batches(8, 16, 64, 99);
    const double before = trainer.evaluate(eval);
    for (int s = 0; s < tc.steps; ++s) REQUIRE_FALSE(trainer.step().skipped);
    const double after = trainer.evaluate(eval);
    const double baseline = unigram_baseline_loss(data.train, data.val, cfg.vocab_size);
    std::cout << "  tiny-char: val loss " << before << " at init, " << after << " after 250 steps; unigram baseline "
              << baseline << " nats\n";
    CHECK(before > baseline);          // an untrained model knows less than character frequencies
    CHECK(after < baseline - 0.4);     // and a trained one clearly more
}
