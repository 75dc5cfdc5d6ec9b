#include "induction_study.hpp"

#include <algorithm>
#include <string>

#include "error.hpp"
#include "metrics.hpp"

namespace mha {

InductionMeasurement measure_induction(Gpt<float>& model, const InductionTaskConfig& task, int T, int n_probes,
                                       std::uint64_t seed) {
    const ModelConfig& c = model.config();
    const int H = c.n_heads, NL = c.n_layers, seg_min = std::max(2, task.seg_min);
    MHA_CHECK(n_probes >= 1 && T <= c.max_seq_len && task.vocab <= c.vocab_size, "induction probes do not fit the model");
    const std::string err = validate_induction_task(T, task.vocab, seg_min, task.seg_max);
    MHA_CHECK(err.empty(), "measure_induction: " + err);
    InductionMeasurement m;
    m.layers = NL, m.heads = H;
    m.previous.assign(std::size_t(NL) * H, 0.0);
    m.induction.assign(std::size_t(NL) * H, 0.0);
    std::vector<int> x(T), y(T);
    Rng rng(seed);
    int n_first = 0, n_repeat = 0;
    for (int p = 0; p < n_probes; ++p) {
        int L = 0, start = 0;  // r_1 of the first copy at `start`, of the repeat at start + L
        fill_shifted_batch(rng, 1, T, task.vocab, seg_min, task.seg_max, x.data(), y.data(), &L, &start);
        model.forward(x.data(), y.data(), 1, T);
        // y[t] = x[t+1]: t = start .. start+L-2 predict r_2..r_L of the first copy, t = start+L .. start+2L-2 the
        // same tokens of the repeat (r_1 of either copy follows a random token and is not counted)
        for (int t = start; t <= start + L - 2; ++t) m.loss_first += model.losses()[t], ++n_first;
        for (int t = start + L; t <= start + 2 * L - 2; ++t) m.loss_repeat += model.losses()[t], ++n_repeat;
        for (int l = 0; l < NL; ++l)
            for (int h = 0; h < H; ++h) {
                const float* att = model.attention(l) + std::size_t(h) * T * T;  // (T,T) of head h
                m.previous[l * H + h] += previous_token_score(att, T) / n_probes;
                m.induction[l * H + h] += induction_score(att, T, L, start) / n_probes;
            }
    }
    m.loss_first /= n_first;
    m.loss_repeat /= n_repeat;
    for (int h = 0; h < H; ++h)
        if (m.induction[(NL - 1) * H + h] > m.best_induction) {
            m.best_induction = m.induction[(NL - 1) * H + h];
            m.best_head = h;
        }
    return m;
}

}  // namespace mha
