#include "probes.hpp"

#include <algorithm>
#include <cstdlib>

#include "error.hpp"
#include "induction_task.hpp"
#include "train.hpp"

namespace mha {

// ---------------------------------------------------------------- attention maps and scores
namespace {
// the attention of every layer of the last forward, (L,H,T,T), for one sequence of length T
std::vector<float> copy_attention(const Gpt<float>& model, int T) {
    const ModelConfig& c = model.config();
    const std::size_t per_layer = std::size_t(c.n_heads) * T * T;
    std::vector<float> att(per_layer * c.n_layers);
    for (int l = 0; l < c.n_layers; ++l)
        std::copy(model.attention(l), model.attention(l) + per_layer, att.begin() + l * per_layer);
    return att;
}
}  // namespace

AttentionMaps attention_maps(Gpt<float>& model, const std::vector<int>& ids, std::vector<std::string> tokens) {
    const ModelConfig& c = model.config();
    const int T = static_cast<int>(ids.size());
    MHA_CHECK(T >= 1 && T <= c.max_seq_len, "attention_maps: 1 to T_max tokens");
    MHA_CHECK(tokens.size() == ids.size(), "attention_maps: one text per token");
    model.forward(ids.data(), nullptr, 1, T);
    AttentionMaps r;
    r.tokens = std::move(tokens);
    r.L = c.n_layers, r.H = c.n_heads, r.T = T;
    r.att = copy_attention(model, T);
    return r;
}

HeadScoreTable head_scores(Gpt<float>& model, const AttentionMaps& maps) {
    const ModelConfig& c = model.config();
    HeadScoreTable r;
    r.L = c.n_layers, r.H = c.n_heads;
    // the probe [BOS, r, r]: as long as the context allows, at most 2·24+1
    const int probe_len = std::min(24, (c.max_seq_len - 1) / 2);
    const bool can_probe = probe_len >= 2 && c.vocab_size >= 2;
    r.probe_len = can_probe ? probe_len : 0;
    const int Tp = 2 * probe_len + 1;
    if (can_probe) {
        const std::vector<int> probe = induction_probe(probe_len, c.vocab_size, kProbeSeed);
        model.forward(probe.data(), nullptr, 1, Tp);
    }
    const int T = maps.T;
    const double max_entropy = uniform_row_entropy(T);
    for (int l = 0; l < r.L; ++l)
        for (int h = 0; h < r.H; ++h) {
            const float* a = maps.att.data() + (std::size_t(l) * r.H + h) * T * T;
            HeadScores s;
            s.previous = previous_token_score(a, T);
            s.first = first_token_score(a, T);
            s.entropy = mean_row_entropy(a, T);
            s.max_entropy = max_entropy;
            if (can_probe) s.induction = induction_score(model.attention(l) + std::size_t(h) * Tp * Tp, Tp, probe_len);
            r.heads.push_back(s);
            r.labels.push_back(head_label(s));
        }
    return r;
}

AttentionMaps induction_probe_maps(Gpt<float>& model, int seg_len) {
    const ModelConfig& c = model.config();
    MHA_CHECK(seg_len >= 1 && 2 * seg_len + 1 <= c.max_seq_len, "induction_probe_maps: the probe does not fit T");
    const std::vector<int> probe = induction_probe(seg_len, c.vocab_size, kProbeSeed);
    std::vector<std::string> tokens;
    for (int id : probe) tokens.push_back(id == INDUCTION_BOS ? "BOS" : std::to_string(id));
    return attention_maps(model, probe, std::move(tokens));
}

// ---------------------------------------------------------------- edits that undo themselves
HeadEdit::HeadEdit(Gpt<float>& model, const std::vector<std::pair<int, int>>& ablate, bool tie, int tie_source)
    : model_(model) {
    const ModelConfig& c = model.config();
    const std::string has = "this model has layers 0 to " + std::to_string(c.n_layers - 1) + " with heads 0 to " +
                            std::to_string(c.n_heads - 1) + " in each.";
    for (const auto& [l, h] : ablate) {
        if (l >= 0 && l < c.n_layers && h >= 0 && h < c.n_heads) continue;
        // an index that came from outside as no whole number at all arrives as a sentinel: not worth repeating
        const bool plausible = std::abs(l) < 100000 && std::abs(h) < 100000;
        throw Error((plausible ? "there is no head " + std::to_string(h) + " in layer " + std::to_string(l) + ": "
                               : std::string("there is no such head: ")) + has);
    }
    if (tie && (tie_source < 0 || tie_source >= c.n_heads)) throw Error("there is no head " + std::to_string(tie_source) + ".");
    if (tie) {
        saved_params_.assign(model.params(), model.params() + model.num_params());
        try {
            for (int l = 0; l < c.n_layers; ++l) tie_heads(model, l, tie_source);
        } catch (...) {
            std::copy(saved_params_.begin(), saved_params_.end(), model.params());
            throw;
        }
    }
    for (const auto& [l, h] : ablate)
        if (model.head_enabled(l, h)) {
            model.set_head_enabled(l, h, false);
            ablated_.emplace_back(l, h);
        }
}

HeadEdit::~HeadEdit() {
    for (const auto& [l, h] : ablated_) model_.set_head_enabled(l, h, true);
    if (!saved_params_.empty()) std::copy(saved_params_.begin(), saved_params_.end(), model_.params());
}

// ---------------------------------------------------------------- another variant's reading
std::string evaluate_as(const Gpt<float>& model, AttentionVariant variant, const EvalBatches& eval, double& loss) {
    ModelConfig c = model.config();
    c.variant = variant;
    const std::string err = validate(c);
    if (!err.empty()) return err;
    Gpt<float> other(c);
    // the same tensors (names and shapes) in the same places, or the weights mean nothing to the other model
    bool same = other.tensors().size() == model.tensors().size();
    for (std::size_t i = 0; same && i < model.tensors().size(); ++i)
        same = other.tensors()[i].name == model.tensors()[i].name && other.tensors()[i].shape == model.tensors()[i].shape &&
               other.tensors()[i].offset == model.tensors()[i].offset;
    if (!same)
        return std::string("the ") + variant_name(variant) + " model has other parameters than the " +
               variant_name(model.config().variant) + " model: its weights cannot be loaded into it.";
    std::copy(model.params(), model.params() + model.num_params(), other.params());
    loss = evaluate_loss(other, eval);
    return "";
}

}  // namespace mha
