#include "reach.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

#include "seed_effects.hpp"

namespace mha {

namespace {

// "3,450"
std::string step_text(int step) {
    std::string digits = std::to_string(step), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string median_text(double m) {
    return m == std::floor(m) ? step_text(static_cast<int>(m)) : step_text(static_cast<int>(m)) + ".5";
}

SettingReach summarise(const std::vector<int>& first, double lowest) {
    SettingReach r;
    r.first = first;
    r.lowest = lowest;
    std::vector<long long> order;  // never = later than any step
    for (int f : first) {
        order.push_back(f < 0 ? LLONG_MAX : f);
        if (f < 0) continue;
        ++r.reached;
        r.min = r.min < 0 ? f : std::min(r.min, f);
        r.max = std::max(r.max, f);
    }
    std::sort(order.begin(), order.end());
    const std::size_t n = order.size();
    const long long a = order[(n - 1) / 2], b = order[n / 2];
    if (b != LLONG_MAX) r.median = (static_cast<double>(a) + static_cast<double>(b)) / 2;
    return r;
}

std::string sentence(const std::string& label, const SettingReach& r, double threshold, int budget) {
    const int S = static_cast<int>(r.first.size());
    const std::string loss = plain_nats(threshold) + " nats";
    const std::string seeds = S == 1 ? "its seed" : "the median of " + std::to_string(S) + " seeds";
    if (r.reached == 0)
        return label + " did not reach " + loss + " within " + step_text(budget) + " steps" +
               (S == 1 ? "" : " on any of " + std::to_string(S) + " seeds") + " (its lowest validation loss: " +
               plain_nats(r.lowest) + ").";
    if (r.reached == S)
        return label + " reached " + loss + " at step " + median_text(r.median) + " (" + seeds +
               (S > 1 ? "; " + step_text(r.min) + " to " + step_text(r.max) : "") + ").";
    std::string s = label + " reached " + loss + " on " + std::to_string(r.reached) + " of " + std::to_string(S) +
                    " seeds, ";
    s += r.median >= 0 ? "at step " + median_text(r.median) + " (" + seeds + "; " + step_text(r.min) + " to " +
                             step_text(r.max) + ")"
                       : r.min == r.max ? "at step " + step_text(r.min)
                                        : "from step " + step_text(r.min) + " to " + step_text(r.max);
    return s + "; " + std::to_string(S - r.reached) + " did not within " + step_text(budget) + " steps.";
}

}  // namespace

int first_step_at_or_below(const std::vector<double>& steps, const std::vector<double>& loss, double threshold) {
    for (std::size_t i = 0; i < steps.size() && i < loss.size(); ++i)
        if (loss[i] <= threshold) return static_cast<int>(steps[i]);
    return -1;
}

std::string reach_over_seeds(const std::vector<std::string>& labels, const std::vector<std::vector<double>>& steps,
                             const std::vector<std::vector<double>>& losses, int seeds, double threshold, int budget,
                             ReachComparison& out) {
    const std::size_t G = labels.size();
    if (G < 1 || seeds < 1) return "at least one setting and one seed.";
    if (steps.size() != G * seeds || losses.size() != G * seeds)
        return "one curve of steps and losses per setting and seed.";
    if (!(threshold > 0) || !std::isfinite(threshold)) return "the threshold must be a positive number of nats.";
    if (budget < 1) return "the budget must be at least one step.";
    ReachComparison r;
    r.threshold = threshold, r.budget = budget;
    for (std::size_t g = 0; g < G; ++g) {
        std::vector<int> first;
        double lowest = INFINITY;
        for (int s = 0; s < seeds; ++s) {
            const auto& x = steps[g * seeds + s];
            const auto& y = losses[g * seeds + s];
            if (x.empty() || x.size() != y.size()) return "every run needs a loss at each of its evaluation steps.";
            for (std::size_t i = 0; i < x.size(); ++i) {
                if (!std::isfinite(x[i]) || (i > 0 && x[i] <= x[i - 1])) return "a run's steps must increase.";
                if (!std::isfinite(y[i])) return "a run has no finite loss to compare.";
                lowest = std::min(lowest, y[i]);
            }
            first.push_back(first_step_at_or_below(x, y, threshold));
        }
        r.settings.push_back(summarise(first, lowest));
        r.sentences.push_back(sentence(labels[g], r.settings.back(), threshold, budget));
    }
    out = std::move(r);
    return "";
}

}  // namespace mha
