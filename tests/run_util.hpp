// Building a Run in a test: make_run, and a failed test (with the sentence) when it does not build; and the small
// text run several test files train (D = 16, L = 2 of H = 4, T = 16, B = 4, 60 steps on about 3,000 characters).
#pragma once
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "run.hpp"

namespace mha::test {

inline std::unique_ptr<Run> built(const RunSpec& spec) {
    std::unique_ptr<Run> r;
    const std::string err = make_run(spec, r);
    INFO(err);
    REQUIRE(err.empty());
    return r;
}

// a small learnable text: a few sentences repeated with variations, about 3,000 characters
inline std::string small_text() {
    const char* lines[] = {"the cat sat on the mat. ", "a dog ran in the park. ", "we saw the cat and the dog. ",
                           "it was a warm day in may. ", "the sun is out and so are we. "};
    std::string s;
    for (int i = 0; i < 24; ++i) s += lines[(i * 3) % 5], s += lines[i % 5];
    return s;
}
inline ModelConfig small_model(int H = 4) {
    ModelConfig m;
    m.d_model = 16, m.n_heads = H, m.n_layers = 2, m.max_seq_len = 16;
    return m;
}
inline TrainConfig small_train() {
    TrainConfig t;
    t.batch = 4, t.steps = 60, t.warmup = 5, t.lr = 1e-2, t.min_lr = 1e-3, t.seed = 3;
    return t;
}
inline RunSpec text_spec(const ModelConfig& m = small_model(), const TrainConfig& t = small_train(),
                         const std::string& text = small_text()) {
    RunSpec s;
    s.model = m, s.train = t, s.text = text;
    return s;
}

}  // namespace mha::test
