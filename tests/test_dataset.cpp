// The dataset: bad text is a message, never a crash; training windows come from the train part and
// evaluation batches from the validation part, fixed by their seed; the unigram baseline of the corpus.
#include <catch2/catch.hpp>

#include "test_util.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "dataset.hpp"
#include "prng.hpp"
#include "tokenizer.hpp"

using namespace mha;

namespace {
using test::corpus_path;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ids[i] = i, so a token tells where in the text it came from
std::vector<int> positions(int n) {
    std::vector<int> ids(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = i;
    return ids;
}
}  // namespace

TEST_CASE("empty, too short and too large text are clear messages", "[data]") {
    CharTokenizer tok;
    REQUIRE(CharTokenizer::from_text("abc", tok).empty());
    Dataset data;
    data.vocab_size = 77;  // a marker: out must be untouched on every error

    SECTION("empty") {
        const std::string err = make_text_dataset("", tok, 8, data);
        CHECK(contains(err, "empty"));
        CHECK(contains(make_dataset({}, 4, 8, data), "empty"));
    }
    SECTION("shorter than the context needs") {
        // T = 64 and 10% validation: the validation part needs 65 tokens, so 650 in all
        const std::string err = make_dataset(std::vector<int>(649, 1), 4, 64, data);
        INFO(err);
        CHECK(contains(err, "649 characters"));
        CHECK(contains(err, "T = 64"));
        CHECK(contains(err, "at least 650"));
        Dataset ok;
        CHECK(make_dataset(std::vector<int>(650, 1), 4, 64, ok).empty());
        CHECK(ok.train.size() == 585u);
        CHECK(ok.val.size() == 65u);
        const std::string text_err = make_text_dataset(std::string(100, 'a'), tok, 64, data);
        CHECK(contains(text_err, "100 characters"));
    }
    SECTION("larger than 8 MiB") {
        const std::string huge(DataLimits::max_text_bytes + 1, 'a');
        const std::string err = make_text_dataset(huge, tok, 8, data);
        INFO(err);
        CHECK(contains(err, "8 MiB"));
        const std::string ids_err = make_dataset(std::vector<int>(DataLimits::max_tokens + 1, 1), 4, 8, data);
        CHECK(contains(ids_err, "8 MiB"));
    }
    SECTION("other bad arguments") {
        const std::vector<int> ids(1000, 1);
        CHECK(contains(make_dataset(ids, 4, 0, data), "context length"));
        CHECK(contains(make_dataset(ids, 4, 8, data, 0.0), "validation fraction"));
        CHECK(contains(make_dataset(ids, 4, 8, data, 0.9), "validation fraction"));
        CHECK(contains(make_dataset(ids, 4, 8, data, std::nan("")), "validation fraction"));
        CHECK(contains(make_dataset(ids, 0, 8, data), "vocabulary size"));
        std::vector<int> bad = ids;
        bad[500] = 4;
        CHECK(contains(make_dataset(bad, 4, 8, data), "id 4"));
    }
    CHECK(data.vocab_size == 77);
    CHECK(data.train.empty());
}

TEST_CASE("the split keeps the last tenth for validation, or the fraction asked for", "[data]") {
    Dataset data;
    REQUIRE(make_dataset(positions(1000), 1000, 16, data).empty());
    CHECK(data.train == std::vector<int>(positions(900)));
    REQUIRE(data.val.size() == 100u);
    CHECK(data.val.front() == 900);
    CHECK(data.val.back() == 999);
    CHECK(data.context == 16);
    REQUIRE(make_dataset(positions(1000), 1000, 16, data, 0.25).empty());
    CHECK(data.train.size() == 750u);
    CHECK(data.val.size() == 250u);
}

TEST_CASE("training batches are windows of the train part with y the next token", "[data]") {
    const int N = 3000, B = 8, T = 32;
    Dataset data;
    REQUIRE(make_dataset(positions(N), N, T, data).empty());
    const int n_train = static_cast<int>(data.train.size());
    std::vector<int> x(B * T), y(B * T);
    Rng rng(7);
    int lowest = N, highest = -1, not_shifted = 0, not_contiguous = 0, outside_train = 0;
    for (int step = 0; step < 2000; ++step) {
        data.sample_batch(rng, B, T, x.data(), y.data());
        for (int b = 0; b < B; ++b) {
            const int* x_b = &x[b * T];
            const int* y_b = &y[b * T];
            lowest = std::min(lowest, x_b[0]);
            highest = std::max(highest, y_b[T - 1]);
            for (int t = 0; t < T; ++t) {
                not_shifted += y_b[t] != x_b[t] + 1;                  // y is x shifted by one
                not_contiguous += t > 0 && x_b[t] != x_b[t - 1] + 1;  // one window of the text
                outside_train += x_b[t] < 0 || y_b[t] >= n_train;     // never a validation token
            }
        }
    }
    CHECK(not_shifted == 0);
    CHECK(not_contiguous == 0);
    CHECK(outside_train == 0);
    // every start is reachable: the first window and the last one of the train part both occur
    CHECK(lowest == 0);
    CHECK(highest == n_train - 1);

    // same seed, same batches
    Rng a(123), b(123);
    std::vector<int> xa(B * T), ya(B * T), xb(B * T), yb(B * T);
    for (int step = 0; step < 10; ++step) {
        data.sample_batch(a, B, T, xa.data(), ya.data());
        data.sample_batch(b, B, T, xb.data(), yb.data());
        REQUIRE(xa == xb);
        REQUIRE(ya == yb);
    }
    // a shorter T than the dataset was checked for is fine; a longer one than the text is an error, not UB
    data.sample_batch(a, 2, 4, xa.data(), ya.data());
    Dataset tiny;
    REQUIRE(make_dataset(positions(40), 40, 3, tiny).empty());
    CHECK_THROWS(tiny.sample_batch(a, 1, 36, xa.data(), ya.data()));
}

TEST_CASE("evaluation batches are fixed by their seed and come only from the validation part", "[data]") {
    const int N = 4000, B = 4, T = 16, n = 6;
    Dataset data;
    REQUIRE(make_dataset(positions(N), N, T, data).empty());
    const int n_train = static_cast<int>(data.train.size());
    const EvalBatches e1 = data.eval_batches(n, B, T, 42);
    const EvalBatches e2 = data.eval_batches(n, B, T, 42);
    const EvalBatches e3 = data.eval_batches(n, B, T, 43);
    REQUIRE(e1.x.size() == static_cast<std::size_t>(n * B * T));
    REQUIRE(e1.y.size() == e1.x.size());
    CHECK(e1.n_batches == n);
    CHECK(e1.B == B);
    CHECK(e1.T == T);
    CHECK(e1.x == e2.x);
    CHECK(e1.y == e2.y);
    CHECK(e1.x != e3.x);
    for (std::size_t i = 0; i < e1.x.size(); ++i) {
        REQUIRE(e1.x[i] >= n_train);
        REQUIRE(e1.y[i] == e1.x[i] + 1);
        REQUIRE(e1.y[i] < N);
    }
    // batch views point at the right slices
    CHECK(e1.x_batch(2) == e1.x.data() + 2 * B * T);
    CHECK(e1.y_batch(n - 1)[B * T - 1] == e1.y.back());
    // and drawing evaluation batches leaves training sampling alone (they use their own Rng)
    Rng r1(9), r2(9);
    std::vector<int> x1(B * T), y1(B * T), x2(B * T), y2(B * T);
    data.sample_batch(r1, B, T, x1.data(), y1.data());
    (void)data.eval_batches(n, B, T, 9);
    data.sample_batch(r2, B, T, x2.data(), y2.data());
    CHECK(x1 == x2);
}

TEST_CASE("the unigram baseline matches a hand computation", "[data]") {
    // train counts: 0 twice, 1 once; add-one: p(1) = (1+1)/(3+2) = 0.4
    CHECK(unigram_baseline_loss({0, 0, 1}, {1}, 2) == Approx(-std::log(0.4)).epsilon(1e-12));
    // val [0, 1]: p(0) = 3/5, p(1) = 2/5
    CHECK(unigram_baseline_loss({0, 0, 1}, {0, 1}, 2) ==
          Approx(-(std::log(0.6) + std::log(0.4)) / 2).epsilon(1e-12));
    // no training data: uniform, ln V
    CHECK(unigram_baseline_loss({}, {3, 1, 4, 1, 5}, 65) == Approx(std::log(65.0)).epsilon(1e-12));
    CHECK(unigram_baseline_loss({1, 2}, {}, 4) == 0.0);
}

TEST_CASE("the shipped corpus makes a dataset and its unigram baseline is printed", "[data]") {
    const std::string text = test::read_text_file(corpus_path());
    REQUIRE(text.size() >= 200u * 1024u);
    CharTokenizer tok;
    REQUIRE(CharTokenizer::from_text(text, tok).empty());
    Dataset data;
    int unknown = -1;
    REQUIRE(make_text_dataset(text, tok, 64, data, DataLimits::default_val_fraction, &unknown).empty());
    CHECK(unknown == 0);
    CHECK(data.vocab_size == tok.vocab_size());
    CHECK(data.train.size() + data.val.size() == tok.encode(text).size());
    const double baseline = unigram_baseline_loss(data.train, data.val, data.vocab_size);
    std::cout << "shipped corpus: " << data.train.size() << " train / " << data.val.size()
              << " validation tokens, unigram baseline loss " << baseline << " nats (uniform would be "
              << std::log(static_cast<double>(data.vocab_size)) << ")\n";
    CHECK(baseline > 2.0);
    CHECK(baseline < 4.0);
}
