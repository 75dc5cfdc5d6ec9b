#include "seed_effects.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mha {

namespace {

// "+0.012" / "−0.004" (a real minus sign) / "0.000"
std::string signed_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", std::abs(v));
    if (std::string(buf) == "0.000") return "0.000";
    return (v < 0 ? "\u2212" : "+") + std::string(buf);
}

std::string plain_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

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

}  // namespace

std::string compare_over_seeds(const std::vector<std::string>& labels, const std::vector<std::vector<double>>& values,
                               int reference, SeedComparison& out, const std::string& unit) {
    const int G = static_cast<int>(values.size());
    if (G < 1 || labels.size() != values.size()) return "one label per setting, and at least one setting.";
    if (reference < 0 || reference >= G) return "the reference setting does not exist.";
    const std::size_t S = values[0].size();
    for (const auto& x : values) {
        if (x.empty() || x.size() != S) return "every setting needs the same number of seeds, at least one.";
        for (double v : x)
            if (!std::isfinite(v)) return "a run has no finite result to compare.";
    }
    SeedComparison r;
    for (const auto& x : values) r.settings.push_back(summarise(x));
    const SeedSummary& ref = r.settings[reference];
    for (int g = 0; g < G; ++g) {
        PairedDifference d;
        std::vector<double> diff(S);
        for (std::size_t s = 0; s < S; ++s) diff[s] = values[g][s] - values[reference][s];
        const SeedSummary ds = summarise(diff);
        d.mean = ds.mean, d.min = ds.min, d.max = ds.max;
        d.spread = std::max(r.settings[g].spread(), ref.spread());
        const bool one_sign = ds.min > 0 || ds.max < 0;
        d.beyond_noise = S >= 2 && g != reference && one_sign && std::abs(d.mean) > d.spread;
        r.to_reference.push_back(d);
        if (g == reference) {
            r.verdicts.emplace_back();
            continue;
        }
        std::string v = labels[g] + " \u2212 " + labels[reference] + ": " + signed_text(d.mean) + " " + unit;
        if (S < 2) {
            v += " with one seed: the spread between seeds is unknown, so this cannot be told from noise; run more "
                 "seeds.";
        } else {
            v += " (paired over " + std::to_string(S) + " seeds: " + signed_text(d.min) + " to " + signed_text(d.max) +
                 "), seeds range \u00b1" + plain_text(d.spread) + ": ";
            if (d.beyond_noise)
                v += labels[g] + " is " + (d.mean < 0 ? "lower" : "higher") + " for every seed, by more than the seed "
                     "spread.";
            else if (!one_sign)
                v += "no difference beyond seed noise (the seeds disagree on its sign).";
            else
                v += "no difference beyond seed noise (every seed puts " + labels[g] + " " +
                     (d.mean < 0 ? "lower" : "higher") + ", but by less than the seeds differ among themselves).";
        }
        r.verdicts.push_back(v);
    }
    out = std::move(r);
    return "";
}

}  // namespace mha
