// Config validation: bad sizes are a readable message, never a crash; parameter count independent of H.
#include <catch2/catch.hpp>

#include "attention.hpp"
#include "config.hpp"

using namespace mha;

TEST_CASE("D not divisible by H is a clear error naming both numbers", "[config]") {
    const std::string err = validate_heads(10, 4);
    REQUIRE_FALSE(err.empty());
    CHECK(err.find("D = 10") != std::string::npos);
    CHECK(err.find("H = 4") != std::string::npos);
    CHECK(err.find("divisible") != std::string::npos);
    CHECK(validate_heads(64, 8).empty());
    CHECK(validate_heads(8, 4).empty());
}

TEST_CASE("D not divisible by H names the nearest H that divide D, both on a tie, and all of them", "[config]") {
    // 10 = 2·5: its divisors 1, 2, 5, 10; the nearest to 4 is 5 alone
    CHECK(validate_heads(10, 4) == "D = 10 is not divisible by H = 4: each head needs d_h = D / H whole channels. "
                                   "The nearest H that divides D is 5 (every H that does, up to 64: 1, 2, 5, 10).");
    // 256 = 2^8: 2 and 4 are both one away from 3 (the old sentence offered only 2)
    CHECK(validate_heads(256, 3) == "D = 256 is not divisible by H = 3: each head needs d_h = D / H whole channels. "
                                    "The nearest H that divide D are 2 and 4 (every H that does, up to 64: 1, 2, 4, 8, 16, "
                                    "32, 64).");
    // 1000 = 2^3·5^3: the divisors above max_heads (100, 125, ...) are not offered
    CHECK(validate_heads(1000, 63).find("is 50 (every H that does, up to 64: 1, 2, 4, 5, 8, 10, 20, 25, 40, 50)") !=
          std::string::npos);
    CHECK(head_counts_dividing(1) == std::vector<int>{1});
    CHECK(head_counts_dividing(64) == std::vector<int>{1, 2, 4, 8, 16, 32, 64});
    CHECK(head_counts_dividing(7) == std::vector<int>{1, 7});
}

TEST_CASE("sizes outside the limits are rejected", "[config]") {
    // the sentence the page shows, in the user's terms: what the value must be, then what was given
    CHECK(validate_heads(8, -3) == "H (number of heads) must be a whole number from 1 to " + std::to_string(Limits::max_heads) +
                                   ", not -3.");
    CHECK(validate_heads(0, 1) == "D (embedding size) must be a whole number from 1 to " + std::to_string(Limits::max_d_model) +
                                  ", not 0.");
    CHECK_FALSE(validate_heads(0, 1).empty());
    CHECK_FALSE(validate_heads(-8, 2).empty());
    CHECK_FALSE(validate_heads(8, 0).empty());
    CHECK_FALSE(validate_heads(Limits::max_d_model + 1, 1).empty());
    ModelConfig c;
    CHECK(validate(c).empty());
    c.n_layers = 0;
    CHECK_FALSE(validate(c).empty());
    c = ModelConfig{};
    c.max_seq_len = Limits::max_seq_len + 1;
    CHECK_FALSE(validate(c).empty());
    c = ModelConfig{};
    c.vocab_size = 1;
    CHECK_FALSE(validate(c).empty());
}

TEST_CASE("key/value heads must divide the query heads", "[config]") {
    ModelConfig c;
    c.d_model = 64;
    c.n_heads = 8;
    for (int kv : {1, 2, 4, 8}) {
        c.n_kv_heads = kv;
        CHECK(validate(c).empty());
    }
    c.n_kv_heads = 3;
    CHECK(validate(c).find("H_kv = 3") != std::string::npos);
    c.n_kv_heads = 16;
    CHECK_FALSE(validate(c).empty());
}

TEST_CASE("an attention layer has 4D^2 + 4D parameters whatever H is", "[config]") {
    for (int D : {4, 8, 64, 96}) {
        // count the tensors an attention layer really holds, for every H that divides D
        for (int H = 1; H <= D; ++H) {
            if (D % H) continue;
            const MhaWeights<float> w = mha_zero_weights<float>(D);
            const std::size_t held = w.wq.size() + w.wk.size() + w.wv.size() + w.wo.size() + w.bq.size() +
                                     w.bk.size() + w.bv.size() + w.bo.size();
            CHECK(held == static_cast<std::size_t>(4 * D * D + 4 * D));
            CHECK(attention_param_count(D) == 4 * D * D + 4 * D);
        }
    }
}
