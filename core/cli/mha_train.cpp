// mha-train: trains any configuration of the sandbox from the command line, for instructors, benchmarks and
// checking the page's numbers. Prints progress; writes the loss curves as CSV, a JSON summary and a checkpoint.
//   mha-train --heads 4 --steps 300 --csv curves.csv --summary run.json --save model.safetensors
//   mha-train --preset induction-short --layers 1 --steps 400
//   mha-train --preset offsets --heads 1,4 --seeds 8
//   mha-train --preset induction-short --eval-every 50 --seeds 8   # the phase change over seeds
//   mha-train --load model.safetensors --sample 200
//   mha-train --preset heads --heads 8 --steps 300 --seeds 8 --prune
// `mha-train --help` lists every flag. Errors are one sentence on stderr and exit code 2.
//
// The flags of the run are the settings table's (run_settings.hpp MHA_RUN_SETTINGS: the same names, defaults and
// help as the page's settings), over a preset's settings when --preset names one; to_run_spec turns them into a
// RunSpec with the page's rule and wording, and make_run builds the run (model, trainer, data, evaluation batches,
// probes) as it does for the page. What is left here is reading files, the loop that prints, and writing the results.
// `mha-train --jsdoc-settings` prints web/js/run_settings_type.js, the page's typedef of the same table.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "error.hpp"
#include "json_mini.hpp"
#include "kernels.hpp"
#include "metrics.hpp"
#include "phase_change.hpp"
#include "run.hpp"
#include "run_settings.hpp"
#include "reach.hpp"
#include "safetensors.hpp"
#include "seed_effects.hpp"
#include "variant_lessons.hpp"

#ifndef MHA_DEFAULT_CORPUS
#define MHA_DEFAULT_CORPUS "public/data/corpus.txt"
#endif

using namespace mha;

namespace {

// ---------------------------------------------------------------- flags
struct Flag {
    std::string value;
    const char* help;
    bool is_switch = false;
    bool given = false;  // on the command line (a setting's flag given overrides the preset)
};

// mha-train's own flags; the run's settings are the settings table's, added by Options()
const std::map<std::string, Flag>& own_flags() {
    static const std::map<std::string, Flag> flags = {
        {"preset", {"", "start from the page's preset of this name (explicit flags override it; the presets are listed above)"}},
        {"corpus", {MHA_DEFAULT_CORPUS, "UTF-8 text file for the char task"}},
        {"no-mlp", {"", "attention-only blocks (as --mlp 0)", true}},
        {"seeds", {"1", "train with seeds seed..seed+N-1 and compare the settings of a --heads or --variant list "
                        "(on the induction task: the phase change over the seeds)"}},
        {"eval-every", {"25", "steps between validation measurements (a preset may set its own)"}},
        {"prune", {"", "after training, switch the heads off one by one, least important first, and print each head's "
                       "importance and the validation loss against the heads remaining; with --seeds, the answer over "
                       "the seeds (head_pruning.hpp)", true}},
        {"reach", {"", "with --seeds: also the step at which each run's validation loss (every --eval-every steps) "
                       "first reaches this many nats (a preset may set its own)"}},
        {"csv", {"", "write step,train_loss,val_loss,lr,grad_norm,skipped to this file"}},
        {"summary", {"", "write a JSON summary to this file"}},
        {"save", {"", "write a safetensors checkpoint (weights + AdamW state) at the end"}},
        {"load", {"", "start from this checkpoint (continues its run if it holds optimizer state)"}},
        {"sample", {"0", "characters of text to sample at the end (char task)"}},
        {"temperature", {"0.8", "sampling temperature"}},
        {"print-logits", {"", "with --load: print the logits (JSON) of this text and exit"}},
        {"print-settings", {"", "print the run's settings (the page's keys, as JSON) and exit", true}},
        {"jsdoc-settings", {"", "print web/js/run_settings_type.js (the settings table as a JSDoc typedef) and exit", true}},
        {"quiet", {"", "print only the final line", true}},
        {"help", {"", "this list", true}},
    };
    return flags;
}

struct Options {
    std::map<std::string, Flag> flags = own_flags();
    Options() {
        const RunSettings defaults;
        for (const SettingField& f : setting_fields()) flags[f.flag] = Flag{f.value_text(defaults), f.help};
    }
    const std::string& operator[](const std::string& k) const { return flags.at(k).value; }
    bool on(const std::string& k) const { return !flags.at(k).value.empty(); }
    bool given(const std::string& k) const { return flags.at(k).given; }
};

[[noreturn]] void die(const std::string& msg) {
    std::cerr << "mha-train: " << msg << "\n";
    std::exit(2);
}

std::string parse_flags(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a.rfind("--", 0) != 0) return "unexpected argument '" + a + "' (flags start with --)";
        a = a.substr(2);
        std::string value;
        const auto eq = a.find('=');
        if (eq != std::string::npos) value = a.substr(eq + 1), a = a.substr(0, eq);
        auto it = o.flags.find(a);
        if (it == o.flags.end()) return "unknown flag --" + a + " (see --help)";
        it->second.given = true;
        if (it->second.is_switch) {
            it->second.value = "1";
        } else {
            if (eq == std::string::npos) {
                if (i + 1 >= argc) return "--" + a + " needs a value";
                value = argv[++i];
            }
            it->second.value = value;
        }
    }
    return "";
}

// every number as a double: whether it must be whole, and in which range, is the core's rule (to_run_spec)
double num_flag(const Options& o, const std::string& k) {
    char* end = nullptr;
    const double v = std::strtod(o[k].c_str(), &end);
    if (o[k].empty() || *end || !std::isfinite(v)) die("--" + k + " must be a number, not '" + o[k] + "'");
    return v;
}

// the flags that are mha-train's own (not settings of the run): a count
int count_flag(const Options& o, const std::string& k) {
    const double v = num_flag(o, k);
    if (v != std::floor(v) || std::fabs(v) > 1e9) die("--" + k + " must be a whole number, not '" + o[k] + "'");
    return static_cast<int>(v);
}


// ---------------------------------------------------------------- flags -> RunSpec
// --preset NAME, or nullptr
const Preset* preset_of(const Options& o) {
    if (!o.on("preset")) return nullptr;
    const Preset* p = find_preset(o["preset"]);
    if (!p) {
        std::string names;
        for (const Preset& q : presets()) names += (names.empty() ? "" : ", ") + q.name;
        die("--preset '" + o["preset"] + "' is not a preset of the page (" + names + ")");
    }
    return p;
}

// the run's settings: the preset's (or the core's defaults), with the setting flags given over them
RunSettings settings_of_flags(const Options& o) {
    std::vector<std::pair<std::string, std::string>> given;
    for (const SettingField& f : setting_fields())
        if (o.given(f.flag)) given.emplace_back(f.flag, o[f.flag]);
    if (o.on("no-mlp")) given.emplace_back("mlp", "0");
    RunSettings s;
    const std::string err = settings_from_flags(preset_of(o), given, s);
    if (!err.empty()) die(err);
    return s;
}

// --eval-every and --reach: given, else the preset's, else mha-train's own default
int eval_every_of(const Options& o) {
    const Preset* p = preset_of(o);
    if (!o.given("eval-every") && p && p->eval_every > 0) return p->eval_every;
    return count_flag(o, "eval-every");
}
double reach_of(const Options& o) {
    const Preset* p = preset_of(o);
    if (!o.given("reach") && p && p->threshold > 0) return p->threshold;
    return o.on("reach") ? num_flag(o, "reach") : 0;
}

// The flags as the page's settings. With --load the model is the file's: its sizes replace the model flags (which
// would otherwise be validated although unused), and the induction task takes its V and T from it.
RunSettings settings_from_flags(const Options& o, const Checkpoint* loaded) {
    RunSettings s = settings_of_flags(o);
    if (loaded) {
        const ModelConfig& c = loaded->config;
        s.d_model = c.d_model, s.n_heads = c.n_heads, s.n_kv_heads = c.n_kv_heads, s.n_layers = c.n_layers;
        s.context = c.max_seq_len, s.mlp = c.mlp, s.variant = variant_name(c.variant), s.vocab = c.vocab_size;
    }
    return s;
}

RunSpec spec_from_flags(const Options& o) {
    RunSpec spec;
    Checkpoint loaded;
    if (o.on("load")) {
        std::string err = st::read_file(o["load"], spec.checkpoint, kMaxCheckpointBytes);
        if (err.empty()) err = load_checkpoint(spec.checkpoint.data(), spec.checkpoint.size(), loaded);
        if (!err.empty()) die(o["load"] + ": " + err);
    }
    const std::string err = to_run_spec(settings_from_flags(o, o.on("load") ? &loaded : nullptr), spec);
    if (!err.empty()) die(err);
    if (task_row(spec.task).text) {
        std::vector<std::uint8_t> text;
        const std::string err = st::read_file(o["corpus"], text, DataLimits::max_text_bytes);
        if (!err.empty()) die(err);
        spec.text.assign(text.begin(), text.end());
    }
    return spec;
}

// ---------------------------------------------------------------- the run
struct Curves {
    std::vector<int> step;
    std::vector<double> train, val, lr, norm;
    std::vector<int> skipped;
};

// {"tokens":[...],"logits":[...]} of text, (N) ids and (N,V) logits, for scripts/check_interop.py
void print_logits(Run& run, const std::string& text) {
    const std::vector<int> ids = run.tokenizer().encode(text);
    Gpt<float>& m = run.model();
    const ModelConfig& cfg = m.config();
    if (ids.empty() || int(ids.size()) > cfg.max_seq_len) die("--print-logits needs 1 to T characters");
    m.forward(ids.data(), nullptr, 1, int(ids.size()));
    std::cout << "{\"tokens\":[";
    for (std::size_t i = 0; i < ids.size(); ++i) std::cout << (i ? "," : "") << ids[i];
    std::cout << "],\"logits\":[";
    std::cout.precision(9);
    for (std::size_t i = 0; i < ids.size() * cfg.vocab_size; ++i) std::cout << (i ? "," : "") << m.logits()[i];
    std::cout << "]}\n";
}

// ---------------------------------------------------------------- pruning the heads
// one model's importance table (heads in the order they are switched off) and its curve
void print_pruning(const PruningCurve& c) {
    const int n = c.L * c.H;
    std::printf("\nHead pruning (importance: the validation loss with that head alone off, minus %.4f as trained):\n",
                c.base_loss);
    std::printf("| heads off | head switched off | its importance (nats) | heads remaining | val loss | rise |\n");
    std::printf("|---|---|---|---|---|---|\n");
    std::printf("| 0 | (none) | | %d | %.4f | 0 |\n", n, c.loss[0]);
    for (int k = 1; k <= n; ++k) {
        const int i = c.order[k - 1];
        std::printf("| %d | layer %d head %d | %+.4f | %d | %.4f | %+.4f |\n", k, i / c.H, i % c.H, c.importance[i],
                    n - k, c.loss[k], c.loss[k] - c.loss[0]);
    }
}

// --prune --seeds N with one H: every seed trained and pruned, then the rise over the seeds judged per number of
// heads off (pruning_over_seeds)
int prune_over_seeds(const Options& o, int seeds) {
    for (const char* one : {"csv", "summary", "save", "load", "print-logits", "reach"})
        if (o.on(one)) die(std::string("--") + one + " goes with one run, not with --prune over --seeds");
    const int first_seed = static_cast<int>(settings_of_flags(o).seed);
    std::vector<std::vector<double>> losses;
    int L = 0, H = 0;
    for (int s = 0; s < seeds; ++s) {
        Options one = o;
        one.flags["seed"].value = std::to_string(first_seed + s), one.flags["seed"].given = true;
        const auto t0 = std::chrono::steady_clock::now();
        std::unique_ptr<Run> run;
        const std::string err = make_run(spec_from_flags(one), run);
        if (!err.empty()) die(err);
        run->train_to_end();
        const PruningCurve c = run->prune_heads();
        L = c.L, H = c.H;
        losses.push_back(c.loss);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!o.on("quiet")) {
            std::printf("seed %d: val %.4f, all heads off %.4f; order (layer.head):", first_seed + s, c.loss[0],
                        c.loss.back());
            for (int i : c.order) std::printf(" %d.%d", i / H, i % H);
            std::printf(" (%.1f s)\n", secs);
        }
    }
    PruningOverSeeds v;
    const std::string err = pruning_over_seeds(L, H, losses, kPruningThreshold, v);
    if (!err.empty()) die(err);
    const int n = L * H;
    std::printf("\n| heads off | heads remaining | val loss, mean | rise, mean (95%% t-interval over %d seeds) | "
                "rise < %.1f? |\n", seeds, v.threshold);
    std::printf("|---|---|---|---|---|\n");
    for (int k = 0; k <= n; ++k) {
        const PairedDifference& d = v.rise[k];
        const char* below = k == 0 || d.high < v.threshold ? "yes" : d.low > v.threshold ? "no" : "cannot tell";
        if (seeds < 2 && k > 0) below = "cannot tell";
        std::printf("| %d | %d | %.4f | ", k, n - k, v.mean_loss[k]);
        if (k == 0) std::printf("0 | %s |\n", below);
        else if (seeds < 2) std::printf("%+.4f (one seed) | %s |\n", d.mean, below);
        else std::printf("%+.4f (%+.4f to %+.4f) | %s |\n", d.mean, d.low, d.high, below);
    }
    std::printf("\nremovable %d, outcome %s%s\n%s\n", v.removable, prune_outcome_name(v.outcome),
                v.rises_at > 0 ? (", first sure rise at " + std::to_string(v.rises_at) + " heads off").c_str() : "",
                v.sentence.c_str());
    return 0;
}

// a step, or "never"
std::string step_or_never(int step) { return step >= 0 ? std::to_string(step) : "never"; }

int train(const Options& o) {
    const bool quiet = o.on("quiet");
    const int eval_every = std::max(1, eval_every_of(o));
    const int sample_chars = count_flag(o, "sample");
    if (sample_chars < 0 || sample_chars > RunLimits::max_sample_chars)
        die("--sample must be 0 to " + std::to_string(RunLimits::max_sample_chars) + " characters");
    const double temperature = num_flag(o, "temperature");

    std::unique_ptr<Run> run;
    {
        const std::string err = make_run(spec_from_flags(o), run);
        if (!err.empty()) die(err);
    }
    if (o.on("print-logits")) {
        print_logits(*run, o["print-logits"]);
        return 0;
    }
    const RunFacts facts = run->facts();
    const ModelConfig& cfg = facts.model;
    const TrainConfig& tc = facts.train;
    const TaskRow& task = task_row(facts.task);
    const bool induction = task.induction_probes;

    if (!quiet) {
        // the task in words, with its own settings ("offsets task (symbols 3, offsets 1,3,5,7)")
        const RunSettings settings = settings_of(facts);
        std::string own;
        for (const SettingField& f : setting_fields())
            if (f.task == std::string(task.name))
                own += (own.empty() ? "" : ", ") + std::string(f.name) + " " + f.value_text(settings);
        const std::string what = task.text ? "char LM on " + o["corpus"]
                                           : std::string(task.name) + " task" + (own.empty() ? "" : " (" + own + ")");
        std::cout << "mha-train: " << what << ", V=" << cfg.vocab_size
                  << " D=" << cfg.d_model << " H=" << cfg.n_heads << " H_kv=" << cfg.kv_heads() << " L=" << cfg.n_layers
                  << " T=" << cfg.max_seq_len << (cfg.mlp ? "" : " attention-only") << ", " << run->model().num_params()
                  << " parameters, SIMD " << simd_arch_name() << "\n";
        std::cout << task.baseline << " " << facts.baseline_loss << " nats\n";
    }
    Curves curves;
    // the induction task: the points of the phase change (phase_change.hpp), from step 0 when the run starts there
    PhaseSeries phase;
    auto measure_phase = [&] {
        const InductionMeasurement im = run->measure_induction();
        phase.step.push_back(run->steps_done()), phase.score.push_back(im.best_induction);
        phase.loss_first.push_back(im.loss_first), phase.loss_repeat.push_back(im.loss_repeat);
        return im;
    };
    if (induction && run->steps_done() == 0) measure_phase();
    const auto t0 = std::chrono::steady_clock::now();
    double last_val = NAN, last_train = NAN;
    int skipped = 0;
    const int first = run->steps_done();
    while (!run->finished()) {
        // train up to the next measurement; a chunk also ends at a step that blew up, and the run goes on from there
        const int done = run->steps_done();
        const int until = std::min(tc.steps, (done / eval_every + 1) * eval_every);
        const TrainChunk chunk = run->train(std::min(until - done, RunLimits::max_chunk));
        if (chunk.steps.empty()) break;
        for (const StepResult& r : chunk.steps) {
            const int s = r.step;
            skipped += r.skipped;
            last_train = r.loss;
            double val = NAN;
            // (only the chunk's last step can be one: chunks end at the measurements)
            if ((s + 1) % eval_every == 0 || s + 1 == tc.steps) {
                val = last_val = run->evaluate();
                if (induction) {
                    const InductionMeasurement im = measure_phase();
                    double prev0 = 0;
                    for (int h = 0; h < cfg.n_heads; ++h) prev0 = std::max(prev0, im.previous[h]);
                    if (!quiet)
                        std::printf("      induction: best layer-%d head %d score %.3f, best layer-0 previous-token "
                                    "%.3f, loss first copy %.3f, repeated copy %.3f\n",
                                    cfg.n_layers - 1, im.best_head, im.best_induction, prev0, im.loss_first,
                                    im.loss_repeat);
                }
                if (!quiet) {
                    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                    std::printf("step %5d  train %.4f  val %.4f  lr %.2e  |g| %.3f  %6.0f tok/s%s\n", s + 1, r.loss, val,
                                r.lr, r.grad_norm, double(s + 1 - first) * tc.batch * tc.seq_len / secs,
                                r.skipped ? "  SKIPPED (non-finite)" : "");
                }
            }
            curves.step.push_back(s + 1), curves.train.push_back(r.loss), curves.val.push_back(val);
            curves.lr.push_back(r.lr), curves.norm.push_back(r.grad_norm), curves.skipped.push_back(r.skipped);
        }
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double tok_per_s = double(tc.steps - first) * tc.batch * tc.seq_len / std::max(secs, 1e-9);

    if (o.on("csv")) {
        std::ostringstream f;
        f << "step,train_loss,val_loss,lr,grad_norm,skipped\n";
        f.precision(9);
        for (std::size_t i = 0; i < curves.step.size(); ++i) {
            f << curves.step[i] << "," << curves.train[i] << ",";
            if (!std::isnan(curves.val[i])) f << curves.val[i];
            f << "," << curves.lr[i] << "," << curves.norm[i] << "," << curves.skipped[i] << "\n";
        }
        const std::string err = st::write_file(o["csv"], f.str());
        if (!err.empty()) die(err);
    }
    if (induction) {
        PhaseChange p;
        const std::string err = find_phase_change(phase, LabelThresholds::induction, eval_every, p);
        if (!err.empty()) die(err);
        std::printf("phase change: crossing %s, drop %s, lag %s: %s\n", step_or_never(p.cross_step).c_str(),
                    step_or_never(p.drop_step).c_str(), p.happened() ? std::to_string(p.lag).c_str() : "-",
                    p.sentence.c_str());
    }
    // does any output depend on a later token? (the check every "Break it" variant carries)
    const CausalityReport causality = run->causality();
    std::printf("causality: %s", causality.causal() ? "no output depends on a later token\n" : "LEAKS: ");
    if (!causality.causal()) {
        std::printf("%zu (output, later input) pairs, e.g.", causality.leaks.size());
        for (std::size_t i = 0; i < std::min<std::size_t>(5, causality.leaks.size()); ++i)
            std::printf(" (%d,%d)", causality.leaks[i].first, causality.leaks[i].second);
        std::printf("\n");
    }
    if (o.on("prune")) print_pruning(run->prune_heads());
    std::string sample;
    if (task.text && sample_chars > 0) {
        sample = run->sample("", sample_chars, temperature, EndSample::seed(tc.seed));
        if (!quiet) std::cout << "--- sample ---\n" << sample << "\n--------------\n";
    }
    if (o.on("summary")) {
        std::ostringstream f;
        f.precision(9);
        f << "{\"config\":" << config_to_json(cfg) << ",\"params\":" << run->model().num_params()
          << ",\"task\":" << json::quote(task_name(facts.task)) << ",\"steps\":" << tc.steps << ",\"batch\":" << tc.batch
          << ",\"seed\":" << tc.seed << ",\"final_train_loss\":" << last_train << ",\"final_val_loss\":" << last_val
          << ",\"baseline_loss\":" << facts.baseline_loss << ",\"skipped_steps\":" << skipped << ",\"seconds\":" << secs
          << ",\"tokens_per_second\":" << tok_per_s << ",\"simd\":" << json::quote(simd_arch_name())
          << ",\"causal\":" << (causality.causal() ? "true" : "false") << ",\"leaking_pairs\":" << causality.leaks.size()
          << ",\"sample\":" << json::quote(sample) << "}\n";
        const std::string err = st::write_file(o["summary"], f.str());
        if (!err.empty()) die(err);
    }
    if (o.on("save")) {
        const std::string err = st::write_file(o["save"], run->snapshot(true));
        if (!err.empty()) die(err);
    }
    std::printf("final: val %.4f (baseline %.4f), train %.4f, %d skipped, %.1f s, %.0f tokens/s\n", last_val,
                facts.baseline_loss, last_train, skipped, secs, tok_per_s);
    return 0;
}

// ---------------------------------------------------------------- comparing settings over seeds
// "1,4,8" -> {"1", "4", "8"}; an empty item ("1,,4", "4,") is a mistake, not a list of two
std::vector<std::string> split_list(const Options& o, const std::string& flag) {
    std::vector<std::string> out;
    std::string item;
    for (char c : o[flag] + ",") {
        if (c != ',') {
            item += c;
            continue;
        }
        if (item.empty()) die("--" + flag + " '" + o[flag] + "' has an empty item: list values separated by single commas");
        out.push_back(item), item.clear();
    }
    return out;
}

// the final validation loss of one run of these flags, trained to the end of its schedule; with curve, also the
// validation loss every --eval-every steps (steps, losses), step 0 included
double final_val_loss(const Options& o, std::vector<double>* steps = nullptr, std::vector<double>* losses = nullptr) {
    std::unique_ptr<Run> run;
    const std::string err = make_run(spec_from_flags(o), run);
    if (!err.empty()) die(err);
    if (!steps) {
        run->train_to_end();
        return run->evaluate();
    }
    const int every = std::max(1, eval_every_of(o));
    steps->push_back(0), losses->push_back(run->evaluate());
    while (!run->finished()) {
        int done = 0;
        while (done < every && !run->finished()) {
            const int took = static_cast<int>(run->train(std::min(every - done, RunLimits::max_chunk)).steps.size());
            if (took == 0) break;
            done += took;
        }
        steps->push_back(run->steps_done()), losses->push_back(run->evaluate());
    }
    return losses->back();
}

// --heads 1,4,8 (or --variant canonical,no_wo) with --seeds N: every setting trained with seeds seed..seed+N-1, paired
// (seed s draws the same data order and initialisation for every setting), the final validation losses summarised
// per setting and each compared with the first by the core's rule (compare_over_seeds)
int compare(const Options& o, const std::string& axis, const std::vector<std::string>& settings, int seeds) {
    for (const char* one : {"csv", "summary", "save", "load", "print-logits"})
        if (o.on(one)) die(std::string("--") + one + " goes with one run, not with a comparison");
    Options first = o;  // the first setting: what the settings share (the seed, the steps)
    first.flags[axis].value = settings[0], first.flags[axis].given = true;
    const RunSettings base = settings_of_flags(first);
    const int first_seed = static_cast<int>(base.seed);
    const bool reach = reach_of(o) > 0;
    std::vector<std::string> labels;
    std::vector<std::vector<double>> finals, curve_steps, curve_losses;  // curves: (G*S) rows, with --reach
    for (const std::string& value : settings) {
        Options one = o;
        one.flags[axis].value = value, one.flags[axis].given = true;
        labels.push_back(axis == "heads" ? "H = " + value : value);
        finals.emplace_back();
        for (int s = 0; s < seeds; ++s) {
            one.flags["seed"].value = std::to_string(first_seed + s), one.flags["seed"].given = true;
            const auto t0 = std::chrono::steady_clock::now();
            if (reach) curve_steps.emplace_back(), curve_losses.emplace_back();
            finals.back().push_back(reach ? final_val_loss(one, &curve_steps.back(), &curve_losses.back())
                                          : final_val_loss(one));
            const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (!o.on("quiet"))
                std::printf("%s, seed %d: val %.4f (%.1f s)\n", labels.back().c_str(), first_seed + s,
                            finals.back().back(), secs);
        }
    }
    SeedComparison c;
    const std::string err = compare_over_seeds(labels, finals, 0, c);
    if (!err.empty()) die(err);
    std::printf("\n| setting | final val loss, mean ± half-range | min – max | paired difference to %s, mean "
                "(95%% t-interval) | verdict |\n",
                labels[0].c_str());
    std::printf("|---|---|---|---|---|\n");
    for (std::size_t g = 0; g < labels.size(); ++g) {
        const SeedSummary& x = c.settings[g];
        const PairedDifference& d = c.to_reference[g];
        std::printf("| %s | %.4f ± %.4f | %.4f – %.4f | ", labels[g].c_str(), x.mean, x.spread(), x.min, x.max);
        if (g == 0) std::printf("(reference) | |\n");
        else if (seeds < 2) std::printf("%+.4f (one seed) | %s |\n", d.mean, outcome_name(d.outcome));
        else std::printf("%+.4f (%+.4f to %+.4f) | %s |\n", d.mean, d.low, d.high, outcome_name(d.outcome));
    }
    std::printf("\n%s\n\n", seed_rule_text(c.margin).c_str());
    for (const std::string& v : c.verdicts)
        if (!v.empty()) std::printf("%s\n", v.c_str());
    if (reach) {
        ReachComparison r;
        const std::string rerr = reach_over_seeds(labels, curve_steps, curve_losses, seeds, reach_of(o),
                                                  static_cast<int>(base.steps), r);
        if (!rerr.empty()) die(rerr);
        std::printf("\nOver time (validation loss every %d steps):\n", std::max(1, eval_every_of(o)));
        for (std::size_t g = 0; g < labels.size(); ++g) {
            std::printf("%s\n  per seed:", r.sentences[g].c_str());
            for (int f : r.settings[g].first) std::printf(" %d", f);
            std::printf("\n");
        }
    }
    // a --variant list with canonical in it: the same numbers judged in the lesson's terms (variant_lessons.hpp)
    VariantComparison lessons;
    if (axis == "variant" && compare_variants(settings, finals, static_cast<int>(base.steps), lessons).empty()) {
        std::printf("\nAgainst the lesson's predictions:\n");
        for (const std::string& v : lessons.lessons)
            if (!v.empty()) std::printf("%s\n", v.c_str());
    }
    return 0;
}


// ---------------------------------------------------------------- the induction phase change over seeds
// an induction preset (or --task induction) with --seeds N: each seed trained to the end and measured every
// --eval-every steps (Run::train_measuring_phase), its crossing, drop and lag (find_phase_change), and the lags over
// the seeds judged by the core (phase_over_seeds): a table and the outcome
int phase_over_seeds_table(const Options& o, int seeds) {
    for (const char* one : {"csv", "summary", "save", "load", "print-logits"})
        if (o.on(one)) die(std::string("--") + one + " goes with one run, not with --seeds");
    const int first_seed = static_cast<int>(settings_of_flags(o).seed);
    const int every = std::max(1, eval_every_of(o));
    const double threshold = LabelThresholds::induction;
    std::vector<PhaseChange> runs;
    std::vector<PhaseSeries> series;
    for (int s = 0; s < seeds; ++s) {
        Options one = o;
        one.flags["seed"].value = std::to_string(first_seed + s), one.flags["seed"].given = true;
        std::unique_ptr<Run> run;
        const std::string err = make_run(spec_from_flags(one), run);
        if (!err.empty()) die(err);
        const auto t0 = std::chrono::steady_clock::now();
        series.push_back(run->train_measuring_phase(every));
        runs.emplace_back();
        const std::string perr = find_phase_change(series.back(), threshold, every, runs.back());
        if (!perr.empty()) die(perr);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!o.on("quiet")) std::printf("seed %d: %s (%.1f s)\n", first_seed + s, runs.back().sentence.c_str(), secs);
        std::fflush(stdout);
    }
    PhaseOverSeeds r;
    const std::string err = phase_over_seeds(runs, r);
    if (!err.empty()) die(err);
    std::printf("\n| seed | score >= %g at | repeat <= %g of first from | lag (steps) | at the end: score, repeat / "
                "first (nats) |\n|---|---|---|---|---|\n",
                threshold, kDropFraction);
    for (int s = 0; s < seeds; ++s) {
        const PhaseChange& p = runs[s];
        const PhaseSeries& x = series[s];
        std::printf("| %d | %s | %s | %s | %.3f, %.2f / %.2f |\n", first_seed + s, step_or_never(p.cross_step).c_str(),
                    step_or_never(p.drop_step).c_str(), p.happened() ? std::to_string(p.lag).c_str() : "-",
                    x.score.back(), x.loss_repeat.back(), x.loss_first.back());
    }
    if (r.happened > 0)
        std::printf("\nlag over the %d seeds with both: mean %.1f, min %d, max %d, 95%% t-interval %.1f to %.1f "
                    "(measured every %d steps); outcome: %s\n",
                    r.happened, r.mean, static_cast<int>(r.min), static_cast<int>(r.max), r.low, r.high, every,
                    phase_order_name(r.order));
    std::printf("\n%s\n", r.sentence.c_str());
    return 0;
}

// ---------------------------------------------------------------- --help and --jsdoc-settings
void print_help(const Options& o) {
    std::cout << "usage: mha-train [--preset NAME] [--flag value ...]\n\nthe run's settings (the page's; a flag given "
                 "overrides the preset):\n";
    for (const SettingField& f : setting_fields()) {
        std::string help = f.help;
        if (f.flag == std::string("heads")) help += "; a list (1,4,8) compares them over --seeds";
        if (f.flag == std::string("variant")) help += "; a list compares them over --seeds";
        std::printf("  --%-14s %s (default %s)\n", f.flag, help.c_str(), o[f.flag].c_str());
    }
    std::cout << "\npresets (--preset NAME), the page's:\n";
    for (const Preset& p : presets()) std::printf("  %-16s %s\n", p.name.c_str(), p.description.c_str());
    std::cout << "\nmha-train's own:\n";
    for (const auto& [name, f] : own_flags())
        std::printf("  --%-14s %s%s\n", name.c_str(), f.help,
                    f.is_switch || f.value.empty() ? "" : (" (default " + f.value + ")").c_str());
}

// web/js/run_settings_type.js: the settings table as the page's JSDoc typedef and the core's defaults (a ctest
// compares the committed file with this output)
void print_jsdoc_settings() {
    const RunSettings d;
    std::cout << "// Generated by `build/native/core/mha-train --jsdoc-settings > web/js/run_settings_type.js` from the "
                 "core's settings\n// table (core/app/run_settings.hpp, MHA_RUN_SETTINGS): edit the table, not this file. "
                 "A ctest fails while\n// the two differ.\n\n/**\n * A run's settings as the core takes them (engine.js "
                 "checkRun, the workers' init): keys left out take the\n * core's defaults; a task's own settings are "
                 "read for that task only.\n * @typedef {object} RunSettings\n";
    for (const SettingField& f : setting_fields()) {
        const char* type = f.boolean ? "boolean" : f.text ? "string" : "number";
        std::string range;
        if (f.kind == FieldKind::whole)
            range = "; a whole number from " + f.value_text([&] {
                RunSettings r;
                r.*f.number = f.lo;
                return r;
            }()) + " to " + f.value_text([&] {
                RunSettings r;
                r.*f.number = f.hi;
                return r;
            }());
        const std::string task = f.task[0] ? std::string("; ") + f.task + " task only" : "";
        std::cout << " * @property {" << type << "} [" << f.js << "] " << f.help << range << task << " (default "
                  << (f.text ? "'" + f.value_text(d) + "'" : f.value_text(d)) << ")\n";
    }
    std::cout << " */\n\n/** The core's defaults (RunSettings{}): the page's \"Heads, compared\" text run. @type "
                 "{Readonly<RunSettings>} */\nexport const RUN_SETTINGS_DEFAULTS = Object.freeze({\n";
    for (const SettingField& f : setting_fields())
        std::cout << "  " << f.js << ": " << (f.text ? "'" + f.value_text(d) + "'" : f.value_text(d)) << ",\n";
    std::cout << "});\n";
}

// --print-settings: the run's settings with the page's keys, as JSON
void print_settings(const RunSettings& s) {
    std::cout << "{";
    const char* sep = "";
    for (const SettingField& f : setting_fields()) {
        std::cout << sep << json::quote(f.js) << ":" << (f.text ? json::quote(f.value_text(s)) : f.value_text(s));
        sep = ",";
    }
    std::cout << "}\n";
}

// memory that ran out after the set-up (make_run words its own sentence): the settings that needed it, and advice
std::string out_of_memory_sentence(const Options& o) {
    std::string what = "this run";
    const RunSettings s = settings_of_flags(o);
    RunSpec spec;
    if (o.on("load")) what = "the model of " + o["load"] + " at batch " + find_setting("batch")->value_text(s);
    else if (to_run_spec(s, spec).empty()) {
        const ModelConfig& m = spec.model;
        what = "a run of D = " + std::to_string(m.d_model) + ", H = " + std::to_string(m.n_heads) + ", L = " +
               std::to_string(m.n_layers) + ", T = " + std::to_string(m.max_seq_len) + " at batch " +
               std::to_string(spec.train.batch);
    }
    return "out of memory: this machine could not give " + what +
           " the memory it needs; close other programs, or choose a smaller --batch, --context, --d-model or --layers";
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    const std::string err = parse_flags(argc, argv, o);
    if (!err.empty()) die(err);
    if (o.on("help")) {
        print_help(o);
        return 0;
    }
    if (o.on("jsdoc-settings")) {
        print_jsdoc_settings();
        return 0;
    }
    try {
        const int seeds = count_flag(o, "seeds");
        if (seeds < 1 || seeds > 64) die("--seeds must be 1 to 64");
        std::vector<std::string> heads = split_list(o, "heads"), variants = split_list(o, "variant");
        if (eval_every_of(o) < 1) die("--eval-every must be at least 1 (steps between measurements)");
        // one value of each list stands for all in the checks that follow; each run is checked again
        Options first = o;
        first.flags["heads"].value = heads[0], first.flags["variant"].value = variants[0];
        const RunSettings s = settings_of_flags(first);
        // not given: the preset's (or the core's) one value
        if (!o.given("heads")) heads = {find_setting("n_heads")->value_text(s)};
        if (!o.given("variant")) variants = {s.variant};
        if (o.on("print-settings")) {
            print_settings(s);
            return 0;
        }
        if (s.warmup > s.steps) {
            const SettingField& w = *find_setting("warmup");
            const Preset* p = preset_of(o);
            die("--warmup is " + w.value_text(s) + " (its default is " + w.value_text(p ? p->settings : RunSettings{}) +
                ") but --steps is " + find_setting("steps")->value_text(s) +
                ": the warm-up must be 0 to the number of steps (e.g. --warmup 0)");
        }
        if (heads.size() > 1 && variants.size() > 1) die("compare either a --heads list or a --variant list, not both");
        if (o.on("prune") && seeds > 1) {
            if (heads.size() > 1 || variants.size() > 1) die("--prune over --seeds takes one H and one variant");
            return prune_over_seeds(o, seeds);
        }
        if (heads.size() > 1) return compare(o, "heads", heads, seeds);
        if (variants.size() > 1) return compare(o, "variant", variants, seeds);
        if (seeds > 1 && s.task == task_name(Task::induction)) return phase_over_seeds_table(o, seeds);
        if (seeds > 1) return compare(o, "heads", heads, seeds);  // one setting: its spread over the seeds
        return train(o);
    } catch (const Error& e) {
        die(e.what());
    } catch (const std::bad_alloc&) {
        die(out_of_memory_sentence(o));
    } catch (const std::exception&) {
        // its what() names library internals ("vector::_M_range_check"), not anything the user did
        die("stopped on an internal error (a bug in mha-train, not in your settings): please report it with the "
            "command line that caused it");
    }
}
