#include "seed_effects.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "student_t.hpp"

namespace mha {

namespace {

SeedSummary summarise(const std::vector<double>& x) {
    SeedSummary s;
    s.seeds = static_cast<int>(x.size());
    s.min = *std::min_element(x.begin(), x.end());
    s.max = *std::max_element(x.begin(), x.end());
    double sum = 0;
    for (double v : x) sum += v;
    s.mean = sum / x.size();
    return s;
}

// the interval's half-width with n seeds of standard deviation sd
double half_width(double sd, int n) {
    return student_t_quantile(1 - (1 - kConfidence) / 2, n - 1) * sd / std::sqrt(static_cast<double>(n));
}

// the fewest seeds in all (more than now, at most kMaxSeedsToDecide) at which an interval of this mean and standard
// deviation would exclude 0 or fit within ±margin; 0 if none
int seeds_needed(double mean, double sd, int now, double margin) {
    for (int n = std::max(now + 1, 2); n <= kMaxSeedsToDecide; ++n) {
        const double w = half_width(sd, n);
        if (std::abs(mean) > w || std::abs(mean) + w < margin) return n;
    }
    return 0;
}

}  // namespace

const char* outcome_name(SeedOutcome o) {
    switch (o) {
        case SeedOutcome::effect: return "effect";
        case SeedOutcome::equivalent: return "equivalent";
        case SeedOutcome::undecided: return "undecided";
    }
    return "";
}

std::string signed_nats(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", std::abs(v));
    if (std::string(buf) == "0.000") return "0.000";
    return (v < 0 ? "\u2212" : "+") + std::string(buf);
}

std::string plain_nats(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

PairedDifference judge_paired(const std::vector<double>& d, double margin) {
    PairedDifference r;
    const SeedSummary s = summarise(d);
    const int n = s.seeds;
    r.mean = s.mean, r.min = s.min, r.max = s.max;
    for (double v : d) r.agree += (r.mean >= 0 ? v > 0 : v < 0);
    if (n < 2) {
        r.low = -std::numeric_limits<double>::infinity();
        r.high = std::numeric_limits<double>::infinity();
        return r;  // undecided, and no estimate of how many seeds would decide it
    }
    double ss = 0;
    for (double v : d) ss += (v - r.mean) * (v - r.mean);
    r.sd = std::sqrt(ss / (n - 1));
    const double w = half_width(r.sd, n);
    r.low = r.mean - w, r.high = r.mean + w;
    if (r.low > 0 || r.high < 0) r.outcome = SeedOutcome::effect;
    else if (r.low > -margin && r.high < margin) r.outcome = SeedOutcome::equivalent;
    else r.seeds_to_decide = seeds_needed(r.mean, r.sd, n, margin);
    return r;
}

namespace {

// an end of an interval: as signed_nats, but never "0.000" for an end that is not 0, so that an interval that
// excludes 0 never seems to touch it ("+0.0002")
std::string interval_end(double v) {
    const std::string three = signed_nats(v);
    if (three != "0.000" || v == 0) return three;
    char buf[32];
    std::snprintf(buf, sizeof buf, std::abs(v) >= 5e-5 ? "%.4f" : "%.1e", std::abs(v));
    return (v < 0 ? "\u2212" : "+") + std::string(buf);
}

}  // namespace

std::string interval_text(const PairedDifference& d, int seeds) {
    if (seeds < 2) return "one seed: no interval";
    const std::string way = d.mean >= 0 ? "higher" : "lower";
    return "95% t-interval over " + std::to_string(seeds) + " paired seeds: " + interval_end(d.low) + " to " +
           interval_end(d.high) + "; " + way + " on " + std::to_string(d.agree) + " of " + std::to_string(seeds);
}

std::string size_against_spread(const PairedDifference& d) {
    const std::string spread = "(\u00b1" + plain_nats(d.spread) + ")";
    if (d.spread <= 0) return "the seeds' losses do not differ at all";
    const double ratio = std::abs(d.mean) / d.spread;
    if (ratio < 0.5) return "small next to how much seeds differ " + spread;
    if (ratio < 2) return "about as large as seeds differ " + spread;
    return "large next to how much seeds differ " + spread;
}

std::string seeds_to_decide_text(const PairedDifference& d, int seeds) {
    if (seeds < 2) return "with one seed the spread between seeds is unknown: run 3 or more seeds";
    if (d.seeds_to_decide > 0)
        return "about " + std::to_string(d.seeds_to_decide) + " seeds in all would likely decide it";
    return "more than " + std::to_string(kMaxSeedsToDecide) +
           " seeds would be needed at this size: at this budget the difference is too small to tell";
}

std::string seed_rule_text(double margin) {
    return "Each verdict judges the paired differences (the same seed for both settings): an effect when their 95% "
           "t-interval excludes 0; no effect larger than " + plain_nats(margin) + " nats (" +
           std::to_string(static_cast<int>(std::lround((std::exp(margin) - 1) * 100))) +
           "% in perplexity) when the whole interval lies within \u00b1" + plain_nats(margin) +
           "; otherwise cannot tell yet.";
}

std::string compare_over_seeds(const std::vector<std::string>& labels, const std::vector<std::vector<double>>& values,
                               int reference, SeedComparison& out, double margin) {
    const int G = static_cast<int>(values.size());
    if (G < 1 || labels.size() != values.size()) return "one label per setting, and at least one setting.";
    if (reference < 0 || reference >= G) return "the reference setting does not exist.";
    if (!(margin > 0) || !std::isfinite(margin)) return "the practical threshold must be a positive number of nats.";
    const std::size_t S = values[0].size();
    for (const auto& x : values) {
        if (x.empty() || x.size() != S) return "every setting needs the same number of seeds, at least one.";
        for (double v : x)
            if (!std::isfinite(v)) return "a run has no finite result to compare.";
    }
    SeedComparison r;
    r.margin = margin;
    for (const auto& x : values) r.settings.push_back(summarise(x));
    const std::string& ref = labels[reference];
    const int seeds = static_cast<int>(S);
    for (int g = 0; g < G; ++g) {
        std::vector<double> diff(S);
        for (std::size_t s = 0; s < S; ++s) diff[s] = values[g][s] - values[reference][s];
        PairedDifference d = judge_paired(diff, margin);
        d.spread = std::max(r.settings[g].spread(), r.settings[reference].spread());
        if (g == reference) d.outcome = SeedOutcome::equivalent, d.seeds_to_decide = 0;
        r.to_reference.push_back(d);
        if (g == reference) {
            r.verdicts.emplace_back();
            continue;
        }
        const std::string& me = labels[g];
        const std::string interval = " (" + interval_text(d, seeds) + ")";
        switch (d.outcome) {
            case SeedOutcome::effect:
                r.verdicts.push_back(me + " is " + (d.mean < 0 ? "lower" : "higher") + " than " + ref + " by " +
                                     plain_nats(std::abs(d.mean)) + " nats" + interval + ": an effect, " +
                                     (d.low > -margin && d.high < margin
                                          ? "but all of it within \u00b1" + plain_nats(margin) +
                                                " nats, the practical threshold; "
                                          : "") +
                                     size_against_spread(d) + ".");
                break;
            case SeedOutcome::equivalent:
                r.verdicts.push_back(me + " \u2212 " + ref + ": " + signed_nats(d.mean) + " nats" + interval +
                                     ": no difference larger than " + plain_nats(margin) + " nats, the practical "
                                     "threshold.");
                break;
            case SeedOutcome::undecided:
                r.verdicts.push_back(me + " \u2212 " + ref + ": " + signed_nats(d.mean) + " nats" + interval +
                                     ": cannot tell yet" +
                                     (seeds < 2 ? "" : " (the interval holds 0 and reaches past \u00b1" +
                                                           plain_nats(margin) + ")") +
                                     "; " + seeds_to_decide_text(d, seeds) + ".");
                break;
        }
    }
    out = std::move(r);
    return "";
}

}  // namespace mha
