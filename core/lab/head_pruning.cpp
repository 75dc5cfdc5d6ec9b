#include "head_pruning.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <utility>

#include "error.hpp"
#include "probes.hpp"
#include "train.hpp"

namespace mha {

// ---------------------------------------------------------------- one model
namespace {

// the loss on eval with the heads order[0..k) (indices l*H + h) switched off for this evaluation only
double loss_without(Gpt<float>& model, const EvalBatches& eval, const std::vector<int>& order, int k) {
    const int H = model.config().n_heads;
    std::vector<std::pair<int, int>> off;
    for (int i = 0; i < k; ++i) off.emplace_back(order[i] / H, order[i] % H);
    HeadEdit edit(model, off, false);
    return evaluate_loss(model, eval);
}

}  // namespace

PruningCurve prune_heads(Gpt<float>& model, const EvalBatches& eval) {
    const ModelConfig& c = model.config();
    const int L = c.n_layers, H = c.n_heads, n = L * H;
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h)
            MHA_CHECK(model.head_enabled(l, h), "every head must be switched on before pruning");
    PruningCurve r;
    r.L = L, r.H = H;
    r.base_loss = evaluate_loss(model, eval);
    // importance: each head alone off, on the full model
    r.importance.resize(n);
    for (int i = 0; i < n; ++i) r.importance[i] = loss_without(model, eval, {i}, 1) - r.base_loss;
    // least important first; a stable sort of 0..n-1 keeps ties in index order; a non-finite importance (a model
    // that blew up) counts as the most important, so that the order is still a strict weak one
    const auto key = [&](int i) {
        const double v = r.importance[i];
        return std::isnan(v) ? std::numeric_limits<double>::infinity() : v;
    };
    r.order.resize(n);
    std::iota(r.order.begin(), r.order.end(), 0);
    std::stable_sort(r.order.begin(), r.order.end(), [&](int a, int b) { return key(a) < key(b); });
    // the curve: k = 0 is the model as it is, then one more head off at each k
    r.loss.resize(n + 1);
    r.loss[0] = r.base_loss;
    for (int k = 1; k <= n; ++k) r.loss[k] = loss_without(model, eval, r.order, k);
    return r;
}

// ---------------------------------------------------------------- over seeds
const char* prune_outcome_name(PruneOutcome o) {
    switch (o) {
        case PruneOutcome::removable: return "removable";
        case PruneOutcome::rises: return "rises";
        case PruneOutcome::cannot_tell: return "cannot-tell";
    }
    return "";
}

namespace {

std::string heads_word(int k) { return std::to_string(k) + (k == 1 ? " head" : " heads"); }

// "the 6th": the ordinal of the k-th head switched off
std::string ordinal(int k) {
    const int last2 = k % 100, last = k % 10;
    const char* suffix = (last2 >= 11 && last2 <= 13) ? "th" : last == 1 ? "st" : last == 2 ? "nd" : last == 3 ? "rd" : "th";
    return std::to_string(k) + suffix;
}

// an end of an interval: as signed_nats, but with a fourth decimal where three would print the threshold itself, so
// that an interval surely above 0.1 never seems to start at it ("+0.1004", not "+0.100")
std::string interval_end(double v, double threshold) {
    const std::string three = signed_nats(v);
    if (v == threshold || three != signed_nats(threshold)) return three;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.4f", v);
    return buf;
}

// "+0.23 nats (95% t-interval +0.15 to +0.31)"
std::string rise_text(const PairedDifference& d, double threshold) {
    return signed_nats(d.mean) + " nats (95% t-interval " + interval_end(d.low, threshold) + " to " +
           interval_end(d.high, threshold) + ")";
}

std::string sentence_of(const PruningOverSeeds& v, const std::vector<std::vector<double>>& losses) {
    const int n = v.L * v.H;
    const std::string all = heads_word(n) + " (" + std::to_string(v.L) + (v.L == 1 ? " layer" : " layers") + " \u00d7 " +
                            std::to_string(v.H) + ")";
    const std::string tau = plain_nats(v.threshold) + " nats";
    if (v.seeds < 2) {
        // what the one seed's curve shows, said as no more than that
        int k1 = n + 1;
        for (int k = 1; k <= n && k1 > n; ++k)
            if (losses[0][k] - losses[0][0] > v.threshold) k1 = k;
        const std::string seen = k1 > n ? "this seed's loss never rose by more than " + tau
                                        : "this seed's loss first rose by more than " + tau + " with the " + ordinal(k1) +
                                              " head off";
        return "With one seed the spread between seeds is unknown, so no number of the " + all +
               " is sure to be removable: cannot tell yet (" + seen + "); run 3 or more seeds.";
    }
    const std::string over = "Over " + std::to_string(v.seeds) + " seeds, ";
    const std::string can = v.removable == 0 ? "not even one of the " + all + " can surely be switched off"
                                              : heads_word(v.removable) + " of the " + all +
                                                    " can be switched off, least important first,";
    const std::string before = " before the validation loss rises by more than " + tau;
    switch (v.outcome) {
        case PruneOutcome::removable:
            return over + "all " + all + " can be switched off, least important first, without the validation loss "
                   "rising by more than " + tau + " (with every head off: " + rise_text(v.rise[n], v.threshold) + ").";
        case PruneOutcome::rises:
            return over + can + before + ": switching off the " + ordinal(v.removable + 1) + " raises it by " +
                   rise_text(v.rise[v.removable + 1], v.threshold) + ", surely more than " + tau + ".";
        case PruneOutcome::cannot_tell:
            return over + can + before + "; with the " + ordinal(v.removable + 1) + " off the rise is " +
                   rise_text(v.rise[v.removable + 1], v.threshold) + ", which reaches both sides of " + tau +
                   ": cannot tell yet whether it can go too (more seeds narrow the interval).";
    }
    return "";
}

}  // namespace

std::string pruning_over_seeds(int L, int H, const std::vector<std::vector<double>>& losses, double threshold,
                               PruningOverSeeds& out) {
    if (L < 1 || H < 1 || L > 1024 || H > 1024) return "the model needs at least one layer and one head.";
    if (!(threshold > 0) || !std::isfinite(threshold)) return "the threshold must be a positive number of nats.";
    const int n = L * H;
    if (losses.empty()) return "pruning over seeds needs at least one seed's curve.";
    for (const auto& c : losses) {
        if (static_cast<int>(c.size()) != n + 1)
            return "every seed's curve needs " + std::to_string(n + 1) + " losses (0 to " + std::to_string(n) +
                   " heads off), one per number of heads removed.";
        for (double v : c)
            if (!std::isfinite(v)) return "a seed's curve has a loss that is not a finite number.";
    }
    PruningOverSeeds v;
    v.L = L, v.H = H, v.seeds = static_cast<int>(losses.size()), v.threshold = threshold;
    v.mean_loss.assign(n + 1, 0.0);
    for (const auto& c : losses)
        for (int k = 0; k <= n; ++k) v.mean_loss[k] += c[k] / v.seeds;
    for (int k = 0; k <= n; ++k) {
        std::vector<double> d;
        for (const auto& c : losses) d.push_back(c[k] - c[0]);
        PairedDifference p = judge_paired(d);
        if (k == 0) p.low = p.high = 0;  // nothing removed: no rise by definition, with any number of seeds
        v.rise.push_back(p);
    }
    // removable: the prefix of k surely below τ (k = 0 always is)
    while (v.removable < n && v.rise[v.removable + 1].high < threshold) ++v.removable;
    for (int k = 1; k <= n && v.rises_at < 0; ++k)
        if (v.rise[k].low > threshold) v.rises_at = k;
    if (v.removable == n) v.outcome = PruneOutcome::removable;
    else if (v.rise[v.removable + 1].low > threshold) v.outcome = PruneOutcome::rises;
    else v.outcome = PruneOutcome::cannot_tell;
    v.sentence = sentence_of(v, losses);
    out = std::move(v);
    return "";
}

}  // namespace mha
