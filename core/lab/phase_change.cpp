#include "phase_change.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "seed_effects.hpp"
#include "student_t.hpp"

namespace mha {

namespace {

// "3,450"; "−100" with a real minus
std::string step_text(long long step) {
    std::string digits = std::to_string(step < 0 ? -step : step), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return (step < 0 ? "\u2212" : "") + out;
}

// a mean or an interval's end, rounded to a whole step
std::string steps_text(double v) { return step_text(std::llround(v)); }

// "0.4"
std::string score_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// the first index at or after which every loss_repeat is at or below kDropFraction · loss_first, or -1
int drop_index(const PhaseSeries& s) {
    int first = -1;
    for (int i = static_cast<int>(s.step.size()) - 1; i >= 0; --i) {
        if (s.loss_repeat[i] > kDropFraction * s.loss_first[i]) break;
        first = i;
    }
    return first;
}

std::string run_sentence(const PhaseChange& p) {
    const std::string every = " (measured every " + step_text(p.eval_every) + " steps).";
    const std::string t = score_text(p.threshold), end = step_text(p.last_step);
    if (p.happened()) {
        std::string lag = "a lag of " + step_text(p.lag) + " steps";
        if (p.lag < 0) lag += ": the loss dropped first";
        return "The induction score reached " + t + " at step " + step_text(p.cross_step) +
               "; the repeat loss dropped at step " + step_text(p.drop_step) + ": " + lag + every;
    }
    if (p.cross_step >= 0)
        return "The induction score reached " + t + " at step " + step_text(p.cross_step) +
               "; the repeat loss has not dropped to a quarter of the first copy's by step " + end + every;
    if (p.drop_step >= 0)
        return "The repeat loss dropped to a quarter of the first copy's at step " + step_text(p.drop_step) +
               ", but the induction score has not reached " + t + " by step " + end + every;
    return "Neither by step " + end + ": the induction score has not reached " + t +
           " and the repeat loss has not dropped to a quarter of the first copy's" + every;
}

}  // namespace

// ---------------------------------------------------------------- one run
std::string find_phase_change(const PhaseSeries& s, double threshold, int eval_every, PhaseChange& out) {
    const std::size_t n = s.step.size();
    if (n == 0) return "the run has no evaluation yet.";
    if (s.score.size() != n || s.loss_first.size() != n || s.loss_repeat.size() != n)
        return "every evaluation needs a step, a score and both copy losses.";
    if (!(threshold > 0 && threshold <= 1)) return "the induction threshold must be a number above 0, at most 1.";
    if (eval_every < 1) return "the evaluation interval must be at least one step.";
    for (std::size_t i = 0; i < n; ++i) {
        const double x = s.step[i];
        if (!std::isfinite(x) || x < 0 || x != std::floor(x) || x > 1e9) return "the steps must be whole numbers.";
        if (i > 0 && x <= s.step[i - 1]) return "the steps must increase.";
        if (!std::isfinite(s.score[i]) || !std::isfinite(s.loss_first[i]) || !std::isfinite(s.loss_repeat[i]))
            return "a score or a loss is not a finite number (the run may have diverged).";
    }
    PhaseChange p;
    p.threshold = threshold, p.eval_every = eval_every, p.last_step = static_cast<int>(s.step.back());
    for (std::size_t i = 0; i < n && p.cross_step < 0; ++i)
        if (s.score[i] >= threshold) p.cross_step = static_cast<int>(s.step[i]);
    const int d = drop_index(s);
    if (d >= 0) p.drop_step = static_cast<int>(s.step[d]);
    if (p.happened()) p.lag = p.drop_step - p.cross_step;
    p.sentence = run_sentence(p);
    out = std::move(p);
    return "";
}

// ---------------------------------------------------------------- over seeds
const char* phase_order_name(PhaseOrder o) {
    switch (o) {
        case PhaseOrder::with: return "with";
        case PhaseOrder::after: return "after";
        case PhaseOrder::before: return "before";
        case PhaseOrder::undecided: return "undecided";
    }
    return "";
}

std::string phase_over_seeds(const std::vector<PhaseChange>& runs, PhaseOverSeeds& out) {
    if (runs.empty()) return "at least one run.";
    for (const PhaseChange& p : runs) {
        if (p.eval_every != runs[0].eval_every || p.threshold != runs[0].threshold)
            return "the runs must share their evaluation interval and threshold.";
        if (p.eval_every < 1) return "the evaluation interval must be at least one step.";
    }
    PhaseOverSeeds r;
    r.seeds = static_cast<int>(runs.size());
    r.eval_every = runs[0].eval_every;
    for (const PhaseChange& p : runs) {
        if (p.happened()) r.lags.push_back(p.lag);
        else if (p.cross_step < 0) ++r.never_crossed;
        else ++r.never_dropped;
    }
    r.happened = static_cast<int>(r.lags.size());
    const int n = r.happened, e = r.eval_every;
    const std::string t = score_text(runs[0].threshold);
    std::string missing;
    if (r.never_crossed > 0)
        missing += std::to_string(r.never_crossed) + " never reached " + t;
    if (r.never_dropped > 0)
        missing += (missing.empty() ? "" : "; ") + std::to_string(r.never_dropped) + " reached it but the loss never dropped";
    if (n == 0) {
        r.low = -std::numeric_limits<double>::infinity(), r.high = std::numeric_limits<double>::infinity();
        r.sentence = "No run of " + std::to_string(r.seeds) + " had both the crossing and the drop (" + missing +
                     "): cannot tell yet; train longer or try other seeds.";
        out = std::move(r);
        return "";
    }
    r.min = *std::min_element(r.lags.begin(), r.lags.end());
    r.max = *std::max_element(r.lags.begin(), r.lags.end());
    double sum = 0;
    for (int v : r.lags) sum += v;
    r.mean = sum / n;
    if (n < 2) {
        r.low = -std::numeric_limits<double>::infinity(), r.high = std::numeric_limits<double>::infinity();
    } else {
        double ss = 0;
        for (int v : r.lags) ss += (v - r.mean) * (v - r.mean);
        const double w = student_t_quantile(1 - (1 - kConfidence) / 2, n - 1) * std::sqrt(ss / (n - 1)) / std::sqrt(n);
        r.low = r.mean - w, r.high = r.mean + w;
        if (r.low >= -e && r.high <= e) r.order = PhaseOrder::with;
        else if (r.low > 0) r.order = PhaseOrder::after;
        else if (r.high < 0) r.order = PhaseOrder::before;
    }
    const long long m = std::llround(r.mean);
    const std::string when = m == 0 ? "at the evaluation at which" : m > 0 ? step_text(m) + " steps after"
                                                                           : step_text(-m) + " steps before";
    std::string s = "Over " + std::to_string(n) + (n == 1 ? " seed" : " seeds") + ", the repeat loss dropped " + when +
                    " the induction score reached " + t + (n > 1 ? " on average" : "");
    if (n > 1)
        s += " (95% t-interval " + steps_text(r.low) + " to " + steps_text(r.high) + "; from " + steps_text(r.min) +
             " to " + steps_text(r.max) + "; measured every " + step_text(e) + " steps): ";
    else
        s += " (measured every " + step_text(e) + " steps): ";
    switch (r.order) {
        case PhaseOrder::with:
            s += "the loss drops with the induction head, within one measurement (±" + step_text(e) + " steps).";
            break;
        case PhaseOrder::after: s += "the loss drops after the induction score crosses."; break;
        case PhaseOrder::before: s += "the loss drops before the induction score crosses."; break;
        case PhaseOrder::undecided:
            s += n < 2 ? "cannot tell yet: one seed gives no interval."
                       : "cannot tell yet whether the loss drops before, with or after the crossing (the interval is "
                         "wider than ±" + step_text(e) + " steps and holds 0); more seeds narrow it.";
            break;
    }
    if (!missing.empty()) s += " Of " + std::to_string(r.seeds) + " seeds, " + missing + " within the run.";
    r.sentence = s;
    out = std::move(r);
    return "";
}

}  // namespace mha
