// Head pruning, after Michel, Levy & Neubig, "Are Sixteen Heads Really Better than One?" (NeurIPS 2019,
// arXiv:1905.10650): how many heads of a trained model can be switched off, least important first, before its
// validation loss rises by more than a threshold?
//
// One model (prune_heads): the importance of each head (layer l, head h) is the rise of the validation loss when
// that head alone is switched off (its output zeroed before W_O, a HeadEdit), measured once on the full model. Michel
// et al. put a mask variable ξ_h on each head's output and score a head by a gradient proxy of exactly this
// quantity: the expected |∂L/∂ξ_h| at ξ_h = 1, a first-order (Taylor) estimate of the loss change when ξ_h goes to
// 0, which one backward pass gives for every head; they also measure it directly, by ablating heads one at a time
// (their Section 3.1). At toy scale a forward pass per head costs little, so we measure the quantity itself. The
// heads are then switched off cumulatively in that order (least important first, ties by the lower index l·H + h)
// and the loss is recorded after each: k = 0 (the model as trained) … k = L·H (every head off). Michel et al. prune
// in steps of 10% of the heads; with 16 heads we take one head at a time.
//
// Over seeds (pruning_over_seeds): seed s pruned its own model in its own order, so the curves are paired by k, not
// by head. For each k the rise r_s(k) = loss_s(k) − loss_s(0) is judged by the lab's seed rule (seed_effects.hpp:
// the 95% Student t-interval of the mean over seeds), here against the threshold τ instead of 0:
//   - removable: the largest k such that for every k' ≤ k the interval's upper end is below τ (k = 0 always is:
//     nothing is removed, the rise is 0 by definition);
//   - the first k after it decides the outcome: its interval wholly above τ: "rises" (k heads can go, one more
//     surely costs more than τ); straddling τ: "cannot tell yet"; none left (k = L·H is removable): "removable",
//     every head can go.
// One seed gives no interval (the spread between seeds is unknown), so with one seed the rule says it cannot tell,
// as compare_over_seeds does: removable stays 0 and the outcome is "cannot tell", whatever that seed's curve shows.
//
//   PruningCurve c = prune_heads(model, eval);     // the model is left exactly as it was
//   PruningOverSeeds v;
//   std::string err = pruning_over_seeds(L, H, {c1.loss, c2.loss, c3.loss}, kPruningThreshold, v);
//   v.sentence  // "Over 3 seeds, 5 of the 16 heads (2 layers × 8) can be switched off, least important first, ..."
#pragma once
#include <string>
#include <vector>

#include "dataset.hpp"
#include "model.hpp"
#include "seed_effects.hpp"

namespace mha {

// τ: the rise of the validation loss, in nats, that counts as "the loss rose" (the lesson's question: how many of
// the heads can you remove before the loss rises by 0.1?)
constexpr double kPruningThreshold = 0.1;

// ---------------------------------------------------------------- one model
struct PruningCurve {
    int L = 0, H = 0;
    double base_loss = 0;            // the validation loss of the model as it is (= loss[0])
    std::vector<double> importance;  // (L*H) layer-major, l*H + h: loss with head (l, h) alone off − base_loss
    std::vector<int> order;          // (L*H) head indices l*H + h, least important first, ties by index
    std::vector<double> loss;        // (L*H + 1) the loss with the first k heads of order off, k = 0 … L*H
};

// importance, order and curve of model on eval (deterministic: fixed batches, forward passes only). Every head must
// be switched on (throws mha::Error otherwise: a head already off would measure nothing). The model is left exactly
// as it was (every edit is a HeadEdit; the weights are never written).
PruningCurve prune_heads(Gpt<float>& model, const EvalBatches& eval);

// ---------------------------------------------------------------- over seeds
enum class PruneOutcome { removable, rises, cannot_tell };

// "removable", "rises", "cannot-tell": the names the page reads
const char* prune_outcome_name(PruneOutcome o);

struct PruningOverSeeds {
    int L = 0, H = 0, seeds = 0;
    double threshold = kPruningThreshold;
    std::vector<double> mean_loss;        // (L*H + 1) the mean curve over seeds
    std::vector<PairedDifference> rise;   // (L*H + 1) loss(k) − loss(0) over seeds: mean, sd, [low, high] (the 95%
                                          // t-interval; ±infinity with one seed, exactly 0 at k = 0); outcome unused
    int removable = 0;    // the largest k with every k' ≤ k surely below the threshold (interval's upper end < τ)
    int rises_at = -1;    // the first k whose interval lies wholly above τ (lower end > τ), -1 if none
    PruneOutcome outcome = PruneOutcome::cannot_tell;  // of k = removable + 1, as above
    std::string sentence;                              // the answer in the user's terms
};

// losses (S, L*H + 1): each seed's PruningCurve::loss, S >= 1, all finite; threshold τ > 0 in nats. "" and out, or
// a sentence (ragged or empty curves, a non-finite loss, a bad threshold).
std::string pruning_over_seeds(int L, int H, const std::vector<std::vector<double>>& losses, double threshold,
                               PruningOverSeeds& out);

}  // namespace mha
