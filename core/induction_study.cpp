#include "induction_study.hpp"

#include "error.hpp"
#include "induction_task.hpp"
#include "metrics.hpp"

namespace mha {

InductionMeasurement measure_induction(Gpt<float>& model, int L, int n_probes, std::uint64_t seed) {
    const ModelConfig& c = model.config();
    const int T = 2 * L + 1, H = c.n_heads, NL = c.n_layers, V = c.vocab_size;
    MHA_CHECK(L >= 2 && T <= c.max_seq_len && n_probes >= 1, "probe segment does not fit the model's context");
    InductionMeasurement m;
    m.layers = NL, m.heads = H, m.segment = L;
    m.previous.assign(std::size_t(NL) * H, 0.0);
    m.induction.assign(std::size_t(NL) * H, 0.0);
    std::vector<int> targets(T);
    int n_first = 0, n_repeat = 0;
    for (int p = 0; p < n_probes; ++p) {
        const std::vector<int> x = induction_probe(L, V, seed + p);  // (2L+1) = [BOS, r, r]
        // targets: the next token; positions 1..L-1 predict inside the first copy, L+1..2L-1 inside the repeat
        for (int t = 0; t < T; ++t) targets[t] = t + 1 < T ? x[t + 1] : -1;
        model.forward(x.data(), targets.data(), 1, T);
        for (int t = 1; t < T - 1; ++t) {
            if (t < L) m.loss_first += model.losses()[t], ++n_first;
            else if (t > L) m.loss_repeat += model.losses()[t], ++n_repeat;
        }
        for (int l = 0; l < NL; ++l)
            for (int h = 0; h < H; ++h) {
                const float* att = model.attention(l) + std::size_t(h) * T * T;  // (T,T) of head h
                m.previous[l * H + h] += previous_token_score(att, T) / n_probes;
                m.induction[l * H + h] += induction_score(att, T, L) / n_probes;
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
