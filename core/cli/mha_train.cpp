// mha-train: trains any configuration of the sandbox from the command line, for instructors, benchmarks and
// checking the page's numbers. Prints progress; writes the loss curves as CSV, a JSON summary and a checkpoint.
//   mha-train --heads 4 --steps 300 --csv curves.csv --summary run.json --save model.safetensors
//   mha-train --task induction --layers 2 --no-mlp --steps 400
//   mha-train --load model.safetensors --sample 200
// `mha-train --help` lists every flag. Errors are one sentence on stderr and exit code 2.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "causality.hpp"
#include "checkpoint.hpp"
#include "dataset.hpp"
#include "error.hpp"
#include "induction_study.hpp"
#include "induction_task.hpp"
#include "json_mini.hpp"
#include "kernels.hpp"
#include "safetensors.hpp"
#include "tokenizer.hpp"
#include "train.hpp"

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
};

struct Options {
    std::map<std::string, Flag> flags = {
        {"task", {"char", "char (character LM on --corpus) or induction (repeated random segments)"}},
        {"corpus", {MHA_DEFAULT_CORPUS, "UTF-8 text file for the char task"}},
        {"d-model", {"64", "D, embedding size"}},
        {"heads", {"4", "H, attention heads"}},
        {"kv-heads", {"0", "H_kv, key/value heads (0 = H; 1 = MQA)"}},
        {"layers", {"2", "L, transformer blocks"}},
        {"context", {"64", "T, context length"}},
        {"no-mlp", {"", "attention-only blocks", true}},
        {"variant", {"canonical", "attention variant: canonical, swapped_order, no_transpose_split, no_transpose_merge, "
                                  "no_transpose_both, scale_sqrt_d, no_wo, per_head_proj, split_input, tied_heads"}},
        {"vocab", {"16", "V for the induction task"}},
        {"seg-min", {"4", "shortest repeated segment (induction task)"}},
        {"seg-max", {"0", "longest repeated segment (induction task; 0 = (T-1)/2)"}},
        {"batch", {"16", "B, sequences per step"}},
        {"steps", {"300", "training steps"}},
        {"warmup", {"30", "linear warm-up steps"}},
        {"lr", {"3e-3", "peak learning rate"}},
        {"min-lr", {"3e-4", "final learning rate of the cosine decay"}},
        {"clip", {"1.0", "global gradient-norm clip (0 = off)"}},
        {"weight-decay", {"0.1", "AdamW weight decay (matrices and embeddings)"}},
        {"seed", {"1", "seed of weights, batches and evaluation batches"}},
        {"eval-every", {"25", "steps between validation measurements"}},
        {"eval-batches", {"8", "fixed validation batches per measurement"}},
        {"csv", {"", "write step,train_loss,val_loss,lr,grad_norm,skipped to this file"}},
        {"summary", {"", "write a JSON summary to this file"}},
        {"save", {"", "write a safetensors checkpoint (weights + AdamW state) at the end"}},
        {"load", {"", "start from this checkpoint (continues its run if it holds optimizer state)"}},
        {"sample", {"0", "characters of text to sample at the end (char task)"}},
        {"temperature", {"0.8", "sampling temperature"}},
        {"print-logits", {"", "with --load: print the logits (JSON) of this text and exit"}},
        {"quiet", {"", "print only the final line", true}},
        {"help", {"", "this list", true}},
    };
    const std::string& operator[](const std::string& k) const { return flags.at(k).value; }
    bool on(const std::string& k) const { return !flags.at(k).value.empty(); }
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

int int_flag(const Options& o, const std::string& k) {
    char* end = nullptr;
    const long v = std::strtol(o[k].c_str(), &end, 10);
    if (o[k].empty() || *end || v < -1000000000L || v > 1000000000L) die("--" + k + " must be a whole number, not '" + o[k] + "'");
    return static_cast<int>(v);
}

double num_flag(const Options& o, const std::string& k) {
    char* end = nullptr;
    const double v = std::strtod(o[k].c_str(), &end);
    if (o[k].empty() || *end || !std::isfinite(v)) die("--" + k + " must be a number, not '" + o[k] + "'");
    return v;
}

std::string read_text(const std::string& path) {
    std::vector<std::uint8_t> bytes;
    const std::string err = st::read_file(path, bytes, DataLimits::max_text_bytes);
    if (!err.empty()) die(err);
    return std::string(bytes.begin(), bytes.end());
}

// ---------------------------------------------------------------- the run
struct Curves {
    std::vector<int> step;
    std::vector<double> train, val, lr, norm;
    std::vector<int> skipped;
};

int run(const Options& o) {
    const bool quiet = o.on("quiet");
    const bool induction = o["task"] == "induction";
    if (!induction && o["task"] != "char") die("--task must be char or induction");

    ModelConfig cfg;
    cfg.d_model = int_flag(o, "d-model"), cfg.n_heads = int_flag(o, "heads"), cfg.n_kv_heads = int_flag(o, "kv-heads");
    cfg.n_layers = int_flag(o, "layers"), cfg.max_seq_len = int_flag(o, "context"), cfg.mlp = !o.on("no-mlp");
    if (!parse_variant(o["variant"], cfg.variant)) die("unknown --variant '" + o["variant"] + "' (see --help)");
    TrainConfig tc;
    tc.batch = int_flag(o, "batch"), tc.seq_len = cfg.max_seq_len, tc.steps = int_flag(o, "steps");
    tc.warmup = int_flag(o, "warmup"), tc.lr = num_flag(o, "lr"), tc.min_lr = num_flag(o, "min-lr");
    tc.clip = num_flag(o, "clip"), tc.adamw.weight_decay = num_flag(o, "weight-decay");
    tc.seed = static_cast<std::uint64_t>(num_flag(o, "seed"));
    const int eval_every = std::max(1, int_flag(o, "eval-every")), eval_batches = int_flag(o, "eval-batches");
    if (eval_batches < 1 || eval_batches > 1000) die("--eval-batches must be 1 to 1000");

    Checkpoint loaded;
    const bool from_checkpoint = o.on("load");
    if (from_checkpoint) {
        std::vector<std::uint8_t> bytes;
        std::string err = st::read_file(o["load"], bytes, kMaxCheckpointBytes);
        if (err.empty()) err = load_checkpoint(bytes.data(), bytes.size(), loaded);
        if (!err.empty()) die(o["load"] + ": " + err);
        cfg = loaded.config;
        tc.seq_len = cfg.max_seq_len;
    }

    // data: a sampler for training batches, fixed evaluation batches, and a tokenizer for text
    CharTokenizer tok;
    Dataset data;
    BatchSampler sampler;
    EvalBatches eval;
    double baseline = 0;
    std::vector<int> seg_buf, start_buf;  // (B) scratch of the induction sampler
    int seg_min = int_flag(o, "seg-min"), seg_max = int_flag(o, "seg-max");
    if (induction) {
        if (!from_checkpoint) cfg.vocab_size = int_flag(o, "vocab");
        if (seg_max == 0) seg_max = (cfg.max_seq_len - 1) / 2;
        const std::string err = validate_induction_task(cfg.max_seq_len, cfg.vocab_size, seg_min, seg_max);
        if (!err.empty()) die(err);
        if (seg_max < 2) die("the repeated segment must be at least 2 tokens long to measure induction");
        const int V = cfg.vocab_size, T = cfg.max_seq_len;
        sampler = [=, &seg_buf, &start_buf](Rng& rng, int B, int Tb, int* x, int* y) {
            seg_buf.resize(B), start_buf.resize(B);  // grow once to the batch size: no allocation per step
            fill_shifted_batch(rng, B, Tb, V, seg_min, seg_max, x, y, seg_buf.data(), start_buf.data());
        };
        eval = sample_eval_batches(sampler, eval_batches, tc.batch, T, eval_seed(tc.seed));
        baseline = std::log(double(V - 1));
    } else {
        const std::string text = read_text(o["corpus"]);
        std::string err = from_checkpoint && !loaded.vocab.empty() ? CharTokenizer::from_string(loaded.vocab, tok)
                                                                   : CharTokenizer::from_text(text, tok);
        if (!err.empty()) die(err);
        if (!from_checkpoint) cfg.vocab_size = tok.vocab_size();
        if (tok.vocab_size() != cfg.vocab_size) die("the checkpoint's vocabulary does not match its config");
        err = make_text_dataset(text, tok, cfg.max_seq_len, data);
        if (!err.empty()) die(err);
        sampler = [&data](Rng& rng, int B, int T, int* x, int* y) { data.sample_batch(rng, B, T, x, y); };
        eval = data.eval_batches(eval_batches, tc.batch, cfg.max_seq_len, eval_seed(tc.seed));
        baseline = unigram_baseline_loss(data.train, data.val, cfg.vocab_size);
    }
    {
        const std::string err = validate(cfg);
        if (!err.empty()) die(err);
    }
    Trainer trainer(cfg, tc, sampler);  // validates tc against cfg (throws with a sentence)
    if (from_checkpoint) trainer.restore(loaded);

    if (o.on("print-logits")) {
        const std::vector<int> ids = tok.encode(o["print-logits"]);
        if (ids.empty() || int(ids.size()) > cfg.max_seq_len) die("--print-logits needs 1 to T characters");
        Gpt<float>& m = trainer.model();
        m.forward(ids.data(), nullptr, 1, int(ids.size()));
        std::cout << "{\"tokens\":[";
        for (std::size_t i = 0; i < ids.size(); ++i) std::cout << (i ? "," : "") << ids[i];
        std::cout << "],\"logits\":[";
        std::cout.precision(9);
        for (std::size_t i = 0; i < ids.size() * cfg.vocab_size; ++i) std::cout << (i ? "," : "") << m.logits()[i];
        std::cout << "]}\n";
        return 0;
    }

    if (!quiet) {
        std::cout << "mha-train: " << (induction ? "induction task" : "char LM on " + o["corpus"]) << ", V=" << cfg.vocab_size
                  << " D=" << cfg.d_model << " H=" << cfg.n_heads << " H_kv=" << cfg.kv_heads() << " L=" << cfg.n_layers
                  << " T=" << cfg.max_seq_len << (cfg.mlp ? "" : " attention-only") << ", " << trainer.model().num_params()
                  << " parameters, SIMD " << simd_arch_name() << "\n";
        std::cout << (induction ? "uniform-guess loss " : "unigram baseline loss ") << baseline << " nats\n";
    }
    Curves curves;
    const auto t0 = std::chrono::steady_clock::now();
    double last_val = NAN, last_train = NAN;
    int skipped = 0;
    const int first = trainer.steps_done();
    for (int s = first; s < tc.steps; ++s) {
        const StepResult r = trainer.step();
        skipped += r.skipped;
        last_train = r.loss;
        double val = NAN;
        if ((s + 1) % eval_every == 0 || s + 1 == tc.steps) {
            val = last_val = trainer.evaluate(eval);
            if (induction && !quiet) {
                const InductionTaskConfig task{cfg.vocab_size, seg_min, seg_max};
                const InductionMeasurement im = measure_induction(trainer.model(), task, cfg.max_seq_len, 64, 4242);
                double prev0 = 0;
                for (int h = 0; h < cfg.n_heads; ++h) prev0 = std::max(prev0, im.previous[h]);
                std::printf("      induction: best layer-%d head %d score %.3f, best layer-0 previous-token %.3f, "
                            "loss first copy %.3f, repeated copy %.3f\n",
                            cfg.n_layers - 1, im.best_head, im.best_induction, prev0, im.loss_first, im.loss_repeat);
            }
            if (!quiet) {
                const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                std::printf("step %5d  train %.4f  val %.4f  lr %.2e  |g| %.3f  %6.0f tok/s%s\n", s + 1, r.loss, val, r.lr,
                            r.grad_norm, double(s + 1 - first) * tc.batch * tc.seq_len / secs, r.skipped ? "  SKIPPED (non-finite)" : "");
            }
        }
        curves.step.push_back(s + 1), curves.train.push_back(r.loss), curves.val.push_back(val);
        curves.lr.push_back(r.lr), curves.norm.push_back(r.grad_norm), curves.skipped.push_back(r.skipped);
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double tok_per_s = double(tc.steps - first) * tc.batch * tc.seq_len / std::max(secs, 1e-9);

    if (o.on("csv")) {
        std::ofstream f(o["csv"]);
        if (!f) die("cannot write " + o["csv"]);
        f << "step,train_loss,val_loss,lr,grad_norm,skipped\n";
        f.precision(9);
        for (std::size_t i = 0; i < curves.step.size(); ++i) {
            f << curves.step[i] << "," << curves.train[i] << ",";
            if (!std::isnan(curves.val[i])) f << curves.val[i];
            f << "," << curves.lr[i] << "," << curves.norm[i] << "," << curves.skipped[i] << "\n";
        }
    }
    // does any output depend on a later token? (the check every "Break it" variant carries)
    const std::vector<int> probe(eval.x.begin(), eval.x.begin() + cfg.max_seq_len);
    const CausalityReport causality = check_causality(trainer.model(), probe);
    std::printf("causality: %s", causality.causal() ? "no output depends on a later token\n" : "LEAKS: ");
    if (!causality.causal()) {
        std::printf("%zu (output, later input) pairs, e.g.", causality.leaks.size());
        for (std::size_t i = 0; i < std::min<std::size_t>(5, causality.leaks.size()); ++i)
            std::printf(" (%d,%d)", causality.leaks[i].first, causality.leaks[i].second);
        std::printf("\n");
    }
    std::string sample;
    if (!induction && int_flag(o, "sample") > 0) {
        Rng coin(tc.seed + 2);
        const std::vector<int> prompt = tok.encode("\n");
        sample = tok.decode(sample_tokens(trainer.model(), prompt.empty() ? std::vector<int>{1} : prompt,
                                          int_flag(o, "sample"), num_flag(o, "temperature"), coin));
        if (!quiet) std::cout << "--- sample ---\n" << sample << "\n--------------\n";
    }
    if (o.on("summary")) {
        std::ofstream f(o["summary"]);
        if (!f) die("cannot write " + o["summary"]);
        f.precision(9);
        f << "{\"config\":" << config_to_json(cfg) << ",\"params\":" << trainer.model().num_params()
          << ",\"task\":" << json::quote(o["task"]) << ",\"steps\":" << tc.steps << ",\"batch\":" << tc.batch
          << ",\"seed\":" << tc.seed << ",\"final_train_loss\":" << last_train << ",\"final_val_loss\":" << last_val
          << ",\"baseline_loss\":" << baseline << ",\"skipped_steps\":" << skipped << ",\"seconds\":" << secs
          << ",\"tokens_per_second\":" << tok_per_s << ",\"simd\":" << json::quote(simd_arch_name())
          << ",\"causal\":" << (causality.causal() ? "true" : "false") << ",\"leaking_pairs\":" << causality.leaks.size()
          << ",\"sample\":" << json::quote(sample) << "}\n";
    }
    if (o.on("save")) {
        const CheckpointOptimizer opt = trainer.optimizer_state();
        const auto bytes = save_checkpoint(cfg, trainer.model().params(), induction ? "" : tok.to_string(), &opt);
        const std::string err = st::write_file(o["save"], bytes);
        if (!err.empty()) die(err);
    }
    std::printf("final: val %.4f (baseline %.4f), train %.4f, %d skipped, %.1f s, %.0f tokens/s\n", last_val, baseline,
                last_train, skipped, secs, tok_per_s);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    const std::string err = parse_flags(argc, argv, o);
    if (!err.empty()) die(err);
    if (o.on("help")) {
        std::cout << "usage: mha-train [--flag value ...]\n";
        for (const auto& [name, f] : o.flags)
            std::printf("  --%-14s %s%s\n", name.c_str(), f.help,
                        f.is_switch || f.value.empty() ? "" : (" (default " + f.value + ")").c_str());
        return 0;
    }
    try {
        return run(o);
    } catch (const Error& e) {
        die(e.what());
    }
}
