#include "head_trace.hpp"

#include "error.hpp"
#include "metrics.hpp"

namespace mha {

HeadTrace head_trace(Gpt<float>& model, const std::vector<int>& ids, std::vector<std::string> tokens) {
    const ModelConfig& c = model.config();
    const int T = static_cast<int>(ids.size());
    MHA_CHECK(T >= 1 && T <= c.max_seq_len, "head_trace: 1 to T_max tokens");
    MHA_CHECK(tokens.size() == ids.size(), "head_trace: one text per token");
    for (int id : ids) MHA_CHECK(id >= 0 && id < c.vocab_size, "head_trace: token ids in [0, V)");
    model.forward(ids.data(), nullptr, 1, T);

    HeadTrace r;
    r.L = c.n_layers, r.H = c.n_heads, r.T = T, r.K = profile_offsets(T);
    r.ids = ids;
    r.tokens = std::move(tokens);
    const std::size_t heads = std::size_t(r.L) * r.H;
    r.previous.resize(heads), r.first.resize(heads), r.entropy.resize(heads), r.max_entropy.resize(heads);
    r.distance.resize(heads), r.profile.resize(heads * r.K);
    const double max_entropy = uniform_row_entropy(T);
    for (int l = 0; l < r.L; ++l)
        for (int h = 0; h < r.H; ++h) {
            // att of layer l (B=1,H,T,T): head h's (T,T) block
            const float* a = model.attention(l) + std::size_t(h) * T * T;
            const std::size_t i = std::size_t(l) * r.H + h;
            r.previous[i] = previous_token_score(a, T);
            r.first[i] = first_token_score(a, T);
            r.entropy[i] = mean_row_entropy(a, T);
            r.max_entropy[i] = max_entropy;
            r.distance[i] = mean_attention_distance(a, T);
            offset_profile(a, T, r.K, r.profile.data() + i * r.K);
        }
    return r;
}

}  // namespace mha
