// Checkpoints: round trip, bit-identical continuation from a saved step, and every kind of bad file a user
// could upload giving a sentence, not a crash.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "checkpoint.hpp"
#include "error.hpp"
#include "safetensors.hpp"
#include "train.hpp"

using namespace mha;

namespace {
ModelConfig small_config() {
    ModelConfig c;
    c.vocab_size = 10, c.d_model = 16, c.n_heads = 4, c.n_kv_heads = 2, c.n_layers = 2, c.max_seq_len = 12;
    return c;
}
TrainConfig small_train() {
    TrainConfig t;
    t.batch = 3, t.seq_len = 12, t.steps = 30, t.warmup = 3, t.lr = 5e-3, t.min_lr = 5e-4;
    return t;
}
void sampler(Rng& rng, int B, int T, int* x, int* y) {
    for (int i = 0; i < B * T; ++i) x[i] = int(rng.below(10));
    for (int i = 0; i < B * T; ++i) y[i] = (x[i] * 3 + 1) % 10;
}
std::string load_error(const std::vector<std::uint8_t>& bytes) {
    Checkpoint c;
    return load_checkpoint(bytes.data(), bytes.size(), c);
}
// a checkpoint file whose tensors are chosen by the caller (to build broken ones)
std::vector<std::uint8_t> custom_file(const ModelConfig& cfg, const std::vector<float>& params,
                                      const std::function<void(std::vector<st::NamedTensor>&)>& edit,
                                      const std::string& config_json = "") {
    std::vector<st::NamedTensor> tensors;
    for (const TensorSpec& s : parameter_table(cfg))
        tensors.push_back({s.name, st::DType::F32, std::vector<std::int64_t>(s.shape.begin(), s.shape.end()),
                           params.data() + s.offset});
    edit(tensors);
    return st::write({{"format", kCheckpointFormat}, {"config", config_json.empty() ? config_to_json(cfg) : config_json}},
                     tensors);
}
}  // namespace

TEST_CASE("checkpoint round trip keeps weights, config and vocabulary exactly", "[checkpoint]") {
    Gpt<float> m(small_config());
    m.init_weights(3);
    const auto bytes = save_checkpoint(m.config(), m.params(), "abc\xc3\xa9", nullptr);
    Checkpoint c;
    REQUIRE(load_checkpoint(bytes.data(), bytes.size(), c) == "");
    CHECK(config_to_json(c.config) == config_to_json(m.config()));
    CHECK(c.vocab == "abc\xc3\xa9");
    CHECK_FALSE(c.has_optimizer);
    REQUIRE(c.params.size() == m.num_params());
    CHECK(std::memcmp(c.params.data(), m.params(), c.params.size() * sizeof(float)) == 0);
}

TEST_CASE("save at step k, load, continue: bit-identical to an uninterrupted run", "[checkpoint][determinism]") {
    Trainer straight(small_config(), small_train(), sampler);
    for (int i = 0; i < 20; ++i) straight.step();

    Trainer first(small_config(), small_train(), sampler);
    for (int i = 0; i < 8; ++i) first.step();
    const CheckpointOptimizer opt = first.optimizer_state();
    const auto bytes = save_checkpoint(first.model().config(), first.model().params(), "", &opt);
    Checkpoint c;
    REQUIRE(load_checkpoint(bytes.data(), bytes.size(), c) == "");
    REQUIRE(c.has_optimizer);
    CHECK(c.optimizer.step == 8);

    TrainConfig other_seed = small_train();
    other_seed.seed = 99;  // the restored state must override whatever this trainer started with
    Trainer resumed(small_config(), other_seed, sampler);
    resumed.restore(c);
    for (int i = 8; i < 20; ++i) resumed.step();
    CHECK(resumed.steps_done() == 20);
    CHECK(std::memcmp(resumed.model().params(), straight.model().params(),
                      straight.model().num_params() * sizeof(float)) == 0);
}

TEST_CASE("a checkpoint from another config is refused by restore", "[checkpoint]") {
    Gpt<float> m(small_config());
    const auto bytes = save_checkpoint(m.config(), m.params(), "", nullptr);
    Checkpoint c;
    REQUIRE(load_checkpoint(bytes.data(), bytes.size(), c) == "");
    ModelConfig other = small_config();
    other.n_heads = 8;
    other.n_kv_heads = 8;
    Trainer t(other, small_train(), sampler);
    REQUIRE_THROWS_AS(t.restore(c), Error);
}

TEST_CASE("corrupt, truncated and hostile checkpoints give clear errors", "[checkpoint]") {
    const ModelConfig cfg = small_config();
    Gpt<float> m(cfg);
    m.init_weights(4);
    const std::vector<float> params(m.params(), m.params() + m.num_params());
    const auto good = save_checkpoint(cfg, params.data(), "", nullptr);
    REQUIRE(load_error(good) == "");

    SECTION("empty and truncated files") {
        CHECK(load_error({}).find("not a valid safetensors file") == 0);
        for (std::size_t cut : {std::size_t(4), std::size_t(100), good.size() / 2, good.size() - 1}) {
            std::vector<std::uint8_t> t(good.begin(), good.begin() + cut);
            CHECK_FALSE(load_error(t).empty());
        }
    }
    SECTION("a file of another kind is named by its first bytes, not by a header length") {
        const auto bytes = [](const std::string& s) { return std::vector<std::uint8_t>(s.begin(), s.end()); };
        // the first bytes of a real PNG: its signature, then the IHDR chunk (read as a header length: 727905341920923785)
        const std::string png("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10", 20);
        CHECK(load_error(bytes(png)) == "this file is a PNG image, not a .safetensors model");
        CHECK(load_error(bytes(std::string("PK\x03\x04\x14\0\0\0\0\0archive/data.pkl", 26))) ==
              "this file is a zip archive (PyTorch's torch.save writes .pt and .pth files this way; save the state dict "
              "with safetensors.torch.save_file instead), not a .safetensors model");
        CHECK(load_error(bytes(std::string("\x80\x02}q\0(X\x06\0\0\0weight", 17))).find("a Python pickle") != std::string::npos);
        CHECK(load_error(bytes("{\"d_model\": 64, \"n_heads\": 4}")).find("this file is a JSON text") == 0);
        CHECK(load_error(bytes("In the beginning God created the heaven and the earth.")) ==
              "this file is a text file, not a .safetensors model");
        // a safetensors file whose 8-byte header length is damaged (here overwritten with text) is not "a text file":
        // the parser's sentence about its header length says what is wrong
        std::vector<std::uint8_t> damaged = good;
        std::memcpy(damaged.data(), "ABCDEFGH", 8);
        CHECK(load_error(damaged).find("not a valid safetensors file: header length ") == 0);
        // bytes that match nothing known keep the parser's own sentence
        const std::vector<std::uint8_t> noise = {0x01, 0xff, 0x02, 0xfe, 0x03, 0xfd, 0x04, 0xfc, 0x05, 0x06};
        CHECK(load_error(noise).find("not a valid safetensors file: header length") == 0);
    }
    SECTION("a safetensors file from somewhere else") {
        float x = 1;
        CHECK(load_error(st::write({}, {{"w", st::DType::F32, {1}, &x}})).find("not written by mha-sandbox") !=
              std::string::npos);
    }
    SECTION("a config with D not divisible by H") {
        const auto bad = custom_file(cfg, params, [](auto&) {},
                                     R"({"vocab_size":10,"d_model":16,"n_heads":3,"n_kv_heads":3,"n_layers":2,"max_seq_len":12,"mlp":true})");
        CHECK(load_error(bad).find("not divisible") != std::string::npos);
    }
    SECTION("a config that is not JSON") {
        CHECK(load_error(custom_file(cfg, params, [](auto&) {}, "{d_model: 16")).find("not valid JSON") !=
              std::string::npos);
    }
    SECTION("a missing tensor") {
        const auto bad = custom_file(cfg, params, [](auto& t) { t.erase(t.begin() + 3); });
        CHECK(load_error(bad).find("has no tensor 'blocks.0.ln1.bias'") != std::string::npos);
    }
    SECTION("a tensor with the wrong shape") {
        const auto bad = custom_file(cfg, params, [](auto& t) { t[0].shape = {16, 10}; });
        CHECK(load_error(bad).find("tensor 'wte' has shape [16, 10] but the config needs [10, 16]") !=
              std::string::npos);
    }
    SECTION("an extra tensor") {
        float extra = 0;
        const auto bad = custom_file(cfg, params, [&](auto& t) { t.push_back({"evil", st::DType::F32, {1}, &extra}); });
        CHECK(load_error(bad).find("unexpected tensor 'evil'") != std::string::npos);
    }
    SECTION("NaN and infinity in the weights") {
        std::vector<float> nan_params = params;
        nan_params[parameter_table(cfg)[4].offset + 5] = std::numeric_limits<float>::quiet_NaN();
        CHECK(load_error(custom_file(cfg, nan_params, [](auto&) {})).find("NaN or infinite") != std::string::npos);
    }
    SECTION("random byte flips never crash the loader") {
        Rng rng(7);
        int rejected = 0;
        for (int trial = 0; trial < 300; ++trial) {
            std::vector<std::uint8_t> bad = good;
            for (int k = 0; k < 3; ++k) bad[rng.below(std::uint32_t(std::min<std::size_t>(bad.size(), 600)))] ^= 1u << rng.below(8);
            rejected += !load_error(bad).empty();
        }
        CHECK(rejected > 0);
    }
}

// Found by fuzzing (issue 12; input: tests/fuzz/corpus/checkpoint/crash-largest-model-no-tensors): a header of a
// few hundred bytes whose config is the largest model the limits allow made load_checkpoint allocate all of its
// parameters (844 MB) before it looked for a single tensor, so an upload of that size could take a tab's memory.
// The loader now checks every tensor before it allocates. The scripts/test ASan pass refuses any allocation
// above 256 MB (max_allocation_size_mb), so there the old order is a report, not just a slow test.
TEST_CASE("a tiny file that claims the largest model is refused before its parameters are allocated", "[checkpoint]") {
    ModelConfig big;
    big.vocab_size = Limits::max_vocab, big.d_model = Limits::max_d_model, big.n_heads = Limits::max_heads;
    big.n_layers = Limits::max_layers, big.max_seq_len = Limits::max_seq_len, big.mlp = true;
    REQUIRE(validate(big) == "");
    const std::vector<TensorSpec> specs = parameter_table(big);
    CHECK((specs.back().offset + specs.back().size) * sizeof(float) > (800u << 20));
    const auto bytes = st::write({{"format", kCheckpointFormat}, {"config", config_to_json(big)}}, {});
    CHECK(bytes.size() < 300);
    CHECK(load_error(bytes) == "the checkpoint has no tensor '" + specs.front().name + "'");

    // the same with AdamW state announced by its first tensor only: the moments are not allocated either
    const ModelConfig cfg = small_config();
    Gpt<float> m(cfg);
    m.init_weights(5);
    const auto with_m0 = custom_file(cfg, std::vector<float>(m.params(), m.params() + m.num_params()), [&](auto& t) {
        const st::NamedTensor first = t.front();
        t.push_back({"adamw.m." + first.name, st::DType::F32, first.shape, first.data});
    });
    CHECK(load_error(with_m0) == "the checkpoint has no tensor 'adamw.m." + parameter_table(cfg)[1].name + "'");
}
