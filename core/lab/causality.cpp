#include "causality.hpp"

#include <cmath>

#include "error.hpp"

namespace mha {

template <class S>
CausalityReport check_causality(Gpt<S>& model, const std::vector<int>& idx, double tolerance) {
    const int T = static_cast<int>(idx.size()), V = model.config().vocab_size;
    MHA_CHECK(T >= 1 && T <= model.config().max_seq_len, "sequence length outside the model's context");
    model.forward(idx.data(), nullptr, 1, T);
    const std::vector<S> base(model.logits(), model.logits() + std::size_t(T) * V);  // (T,V)
    CausalityReport r;
    r.T = T;
    r.depends.assign(std::size_t(T) * T, 0);
    std::vector<int> perturbed = idx;
    for (int s = 0; s < T; ++s) {
        perturbed[s] = (idx[s] + 1) % V;  // another token at position s only
        model.forward(perturbed.data(), nullptr, 1, T);
        for (int t = 0; t < T; ++t) {
            double change = 0;
            for (int v = 0; v < V; ++v)
                change = std::max(change, std::abs(double(model.logits()[t * V + v]) - double(base[t * V + v])));
            if (change > tolerance) {
                r.depends[std::size_t(t) * T + s] = 1;
                if (s > t) r.leaks.emplace_back(t, s);
            }
        }
        perturbed[s] = idx[s];
    }
    return r;
}

template CausalityReport check_causality(Gpt<float>&, const std::vector<int>&, double);
template CausalityReport check_causality(Gpt<double>&, const std::vector<int>&, double);

}  // namespace mha
