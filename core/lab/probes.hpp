// Looking inside a model: free functions over a model and (where a loss is asked for) fixed evaluation batches.
// None of them leaves the model changed: ablation and tied heads are applied through a HeadEdit, which puts the
// model back as it was when it goes out of scope.
//
//   AttentionMaps m = attention_maps(model, ids, tokens);          // (L,H,T,T) for one sequence
//   HeadScoreTable s = head_scores(model, m);                       // previous/first/entropy on m, induction probe
//   { HeadEdit e(model, {{0, 1}}, false); loss = evaluate_loss(model, eval); }   // head 1 of layer 0 off
//   double l = 0; std::string err = evaluate_as(model, AttentionVariant::swapped_order, eval, l);
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dataset.hpp"
#include "metrics.hpp"
#include "model.hpp"

namespace mha {

constexpr std::uint64_t kProbeSeed = 12345;  // seed of every induction probe: the same in every run and target
constexpr int kInductionProbes = 64;         // task sequences per induction measurement (induction_study.hpp)

// the layers' attention weights for one sequence
struct AttentionMaps {
    std::vector<std::string> tokens;  // (T) what the model saw, as text
    int L = 0, H = 0, T = 0;
    std::vector<float> att;           // (L,H,T,T)
    bool truncated = false;           // the text was longer than the context: only its first T symbols
    int unknown = 0;                  // characters outside the vocabulary (read as the unknown symbol)
};

// ids (T) in [0,V), 1 <= T <= max_seq_len; tokens (T) their text. One forward pass of one sequence.
AttentionMaps attention_maps(Gpt<float>& model, const std::vector<int>& ids, std::vector<std::string> tokens);

// scores of every head, (L*H) in layer-major order
struct HeadScoreTable {
    int L = 0, H = 0;
    int probe_len = 0;                // segment length of the induction probe [BOS, r, r]; 0: no probe fits
    std::vector<HeadScores> heads;    // (L*H)
    std::vector<std::string> labels;  // (L*H) head_label of each
};

// previous-token, first-token and entropy scores on maps; the induction score on the probe [BOS, r, r]
// (kProbeSeed, segment min(24, (T_max-1)/2), BOS the unknown symbol 0 that never occurs in r)
HeadScoreTable head_scores(Gpt<float>& model, const AttentionMaps& maps);

// attention on the induction probe [BOS, r, r] with segment seg_len (kProbeSeed); tokens "BOS", "17", ...
AttentionMaps induction_probe_maps(Gpt<float>& model, int seg_len);

// Ablated heads (their output is zero) and "force all heads to the same weights" (every head's Q/K/V rows set to
// those of tie_source, in every layer) for as long as the edit lives; the destructor restores the model exactly.
// Throws mha::Error for a head that does not exist or a variant that cannot tie (tie_heads).
class HeadEdit {
public:
    HeadEdit(Gpt<float>& model, const std::vector<std::pair<int, int>>& ablate, bool tie, int tie_source = 0);
    ~HeadEdit();
    HeadEdit(const HeadEdit&) = delete;
    HeadEdit& operator=(const HeadEdit&) = delete;
    bool changes_model() const { return !ablated_.empty() || !saved_params_.empty(); }

private:
    Gpt<float>& model_;
    std::vector<std::pair<int, int>> ablated_;  // the heads this edit switched off (they were on)
    std::vector<float> saved_params_;           // the weights before a tie, empty without one
};

// The loss on eval of model's weights read by the model of another variant with the same parameter layout
// (canonical weights in the swapped-order model: "silently a different model"). "" and sets loss, or a sentence
// when the two variants do not share a parameter layout.
std::string evaluate_as(const Gpt<float>& model, AttentionVariant variant, const EvalBatches& eval, double& loss);

}  // namespace mha
