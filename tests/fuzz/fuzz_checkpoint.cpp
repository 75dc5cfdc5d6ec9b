// libFuzzer target: a checkpoint file from a stranger, end to end, the way the page loads an upload.
//   the bytes -> st::parse and every tensor decoded (the safetensors layer alone)
//             -> load_checkpoint (format, JSON config, vocabulary, parameters, AdamW state)
//             -> make_run with RunSpec::checkpoint and a text task (RunHandle::init in web/bindings.cpp)
//             -> one evaluation, one training step, a short sample, and a snapshot that must load again.
// Inputs: tests/fuzz/corpus/checkpoint/ (tiny checkpoints written by make_seeds.cpp). Run: scripts/fuzz.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "fuzz_check.hpp"
#include "run.hpp"
#include "safetensors.hpp"
#include "utf8.hpp"

using namespace mha;

namespace {

// models past these sizes still load (above), but are not trained here: one execution stays in milliseconds
constexpr int kMaxRunSeqLen = 64;
constexpr std::size_t kMaxRunParams = 1u << 16;

// A training text the checkpoint's model can take: every symbol of its vocabulary (or, without one, V - 1
// distinct characters, as many as the model has symbols besides the unknown one), cycled to a length whose
// 90/10 split leaves T+1 tokens on both sides.
std::string text_for(const Checkpoint& c) {
    const int V = c.config.vocab_size, T = c.config.max_seq_len;
    std::vector<char32_t> symbols;
    CharTokenizer tok;
    if (!c.vocab.empty() && CharTokenizer::from_string(c.vocab, tok).empty()) {
        symbols.assign(tok.symbols().begin() + 1, tok.symbols().end());
    } else {
        for (int i = 0; i < V - 1; ++i) symbols.push_back(i < 94 ? char32_t(0x21 + i) : char32_t(0x100 + i));
    }
    if (symbols.empty()) symbols.push_back(U'a');
    const std::size_t n = std::max<std::size_t>(10 * (std::size_t(T) + 2), symbols.size());
    std::string text;
    for (std::size_t i = 0; i < n; ++i) utf8_append(text, symbols[i % symbols.size()]);
    return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // ---------------------------------------------------------------- the safetensors layer alone
    st::File f;
    if (st::parse(data, size, f).empty()) {
        std::size_t total = 0;
        for (const st::TensorView& t : f.tensors) {
            FUZZ_CHECK(t.offset + t.nbytes <= size, "tensor '" + t.name + "' reaches past the buffer");
            total += t.dtype == st::DType::F32 ? st::read_f32(data, t).size() : st::read_i32(data, t).size();
        }
        FUZZ_CHECK(total * 4 <= size, "the tensors hold more bytes than the file");
    }

    // ---------------------------------------------------------------- the checkpoint
    Checkpoint c;
    if (!load_checkpoint(data, size, c).empty()) return 0;
    FUZZ_CHECK(validate(c.config).empty(), "load_checkpoint accepted an invalid config");
    Gpt<float> probe(c.config);
    FUZZ_CHECK(c.params.size() == probe.num_params(), "parameter count does not match the config");
    if (c.has_optimizer)
        FUZZ_CHECK(c.optimizer.m.size() == c.params.size() && c.optimizer.v.size() == c.params.size(),
                   "AdamW moments of the wrong size");
    if (c.config.max_seq_len > kMaxRunSeqLen || c.params.size() > kMaxRunParams) return 0;

    // ---------------------------------------------------------------- a run from it, as the page builds one
    RunSpec spec;
    FUZZ_CHECK(to_run_spec(fuzz::tiny_settings(), spec).empty(), "the fixed settings are refused");
    spec.text = text_for(c);
    spec.checkpoint.assign(data, data + size);
    std::unique_ptr<Run> run;
    const std::string err = make_run(spec, run);
    if (!err.empty()) return 0;  // a sentence for the user (say, a vocabulary that does not fit the model)
    FUZZ_CHECK(run->model().config().max_seq_len == c.config.max_seq_len, "the run's model is not the file's");
    FUZZ_CHECK(std::memcmp(run->model().params(), c.params.data(), c.params.size() * sizeof(float)) == 0,
               "the run's weights are not the file's");

    run->evaluate();  // the loss may be anything (weights from a file); it must only be computed safely
    run->train(1);
    run->sample("", 4, 0.8, 1);

    // what this run saves, this run loads
    const std::vector<std::uint8_t> snap = run->snapshot(true);
    Checkpoint back;
    const std::string back_err = load_checkpoint(snap.data(), snap.size(), back);
    // a step may take the weights or the moments past float's range (huge values from the file): then the
    // snapshot holds infinities and load_checkpoint must say so; anything else must load
    const CheckpointOptimizer opt = run->trainer().optimizer_state();
    const float* w = run->model().params();
    bool finite = std::all_of(w, w + run->model().num_params(), [](float x) { return std::isfinite(x); });
    for (const std::vector<float>* m : {&opt.m, &opt.v})
        finite = finite && std::all_of(m->begin(), m->end(), [](float x) { return std::isfinite(x); });
    if (finite) {
        FUZZ_CHECK(back_err.empty(), "a snapshot of a loaded run does not load: " + back_err);
        FUZZ_CHECK(run->restore(snap.data(), snap.size()).empty(), "a run refuses its own snapshot");
    } else {
        FUZZ_CHECK(!back_err.empty(), "a snapshot with non-finite weights loaded");
    }
    return 0;
}
