// Embind declarations only: no math here. Every function validates its arguments, catches mha::Error, and
// returns a plain object { ok: true, ... } or { ok: false, error: "message" }, so a bad input on the page
// becomes a sentence, never an abort. Arrays leave as owned copies (typed_memory_view + slice), never as
// live views into the wasm heap, which may move when memory grows.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <string>
#include <vector>

#include "attention.hpp"
#include "config.hpp"
#include "dataset.hpp"
#include "demo.hpp"
#include "kernels.hpp"
#include "kv_cache.hpp"
#include "metrics.hpp"
#include "model.hpp"
#include "session.hpp"
#include "worked_example.hpp"

using emscripten::val;

namespace {

// ---------------------------------------------------------------- helpers: conversions and error values
template <class T>
val copy_out(const T* data, std::size_t n) {
    return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

val error_value(const std::string& message) {
    val r = val::object();
    r.set("ok", false);
    r.set("error", message);
    return r;
}

val ok_value() {
    val r = val::object();
    r.set("ok", true);
    return r;
}

bool parse_order(const std::string& name, mha::HeadOrder& order) {
    if (name == "canonical") order = mha::HeadOrder::canonical;
    else if (name == "swapped") order = mha::HeadOrder::swapped;
    else return false;
    return true;
}

// runs body(), turning any C++ exception into { ok: false, error }
template <class F>
val guarded(F&& body) {
    try {
        return body();
    } catch (const std::exception& e) {
        return error_value(e.what());
    } catch (...) {
        return error_value("internal error");
    }
}


// a whole number field of a settings object; throws mha::Error with a sentence when it is missing or not whole
int int_field(const val& obj, const char* key, int lo, int hi) {
    const val v = obj[key];
    if (!v.isNumber()) throw mha::Error(std::string("the setting '") + key + "' must be a number");
    const double d = v.as<double>();
    if (!(d == std::floor(d)) || d < lo || d > hi)
        throw mha::Error(std::string("the setting '") + key + "' must be a whole number from " + std::to_string(lo) +
                         " to " + std::to_string(hi));
    return static_cast<int>(d);
}

double number_field(const val& obj, const char* key) {
    const val v = obj[key];
    if (!v.isNumber() || !std::isfinite(v.as<double>())) throw mha::Error(std::string("the setting '") + key + "' must be a number");
    return v.as<double>();
}

bool bool_field(const val& obj, const char* key) {
    const val v = obj[key];
    if (!v.isTrue() && !v.isFalse()) throw mha::Error(std::string("the setting '") + key + "' must be true or false");
    return v.isTrue();
}

// a seed passed as a JS number; throws mha::Error with a sentence unless it is 0 .. 2^32-1
std::uint64_t seed_arg(double seed) {
    if (!(seed >= 0 && seed <= 4294967295.0)) throw mha::Error("the seed must be a whole number from 0 to 4294967295");
    return static_cast<std::uint64_t>(seed);
}

// a Uint8Array (or ArrayBuffer view) copied into the wasm heap in one set()
std::vector<std::uint8_t> bytes_in(const val& array) {
    if (!array.instanceof(val::global("Uint8Array"))) throw mha::Error("the file must be passed as a Uint8Array");
    return emscripten::convertJSArrayToNumberVector<std::uint8_t>(array);
}

template <class T>
val copy_vector(const std::vector<T>& v) {
    return copy_out(v.data(), v.size());
}

val string_array(const std::vector<std::string>& v) {
    val a = val::array();
    for (const auto& s : v) a.call<void>("push", s);
    return a;
}

// an attention variant by its name ("canonical", "no_transpose_split", ...); throws mha::Error on an unknown name
mha::AttentionVariant variant_of(const std::string& name) {
    mha::AttentionVariant v;
    if (!mha::parse_variant(name, v)) throw mha::Error("unknown attention variant '" + name + "'");
    return v;
}

// { dModel, nHeads, nLayers, context, mlp, variant? } -> ModelConfig (vocab_size from the text or the task);
// variant defaults to canonical
mha::ModelConfig model_settings(const val& s) {
    mha::ModelConfig m;
    m.d_model = int_field(s, "dModel", 1, mha::Limits::max_d_model);
    m.n_heads = int_field(s, "nHeads", 1, mha::Limits::max_heads);
    m.n_layers = int_field(s, "nLayers", 1, mha::Limits::max_layers);
    m.max_seq_len = int_field(s, "context", 2, mha::Limits::max_seq_len);
    m.mlp = bool_field(s, "mlp");
    const val v = s["variant"];
    if (!v.isUndefined()) {
        if (!v.isString()) throw mha::Error("the setting 'variant' must be the name of an attention variant");
        m.variant = variant_of(v.as<std::string>());
    }
    return m;
}

// { vocab, segMin, segMax } of the induction task
mha::InductionTaskConfig task_settings(const val& s) {
    mha::InductionTaskConfig k;
    k.vocab = int_field(s, "vocab", 2, mha::Limits::max_vocab);
    k.seg_min = int_field(s, "segMin", 1, mha::Limits::max_seq_len);
    k.seg_max = int_field(s, "segMax", 1, mha::Limits::max_seq_len);
    return k;
}

// settings.task: 'char' (or missing) or 'induction'
bool induction_settings(const val& s) {
    const val t = s["task"];
    if (t.isUndefined()) return false;
    if (!t.isString() || (t.as<std::string>() != "char" && t.as<std::string>() != "induction"))
        throw mha::Error("the setting 'task' must be 'char' or 'induction'");
    return t.as<std::string>() == "induction";
}

// { batch, steps, warmup, lr, minLr, seed, weightDecay? } -> TrainConfig (weightDecay defaults to AdamW's 0.1)
mha::TrainConfig train_settings(const val& s) {
    mha::TrainConfig t;
    t.batch = int_field(s, "batch", 1, 512);
    t.steps = int_field(s, "steps", 1, 1000000);
    t.warmup = int_field(s, "warmup", 0, 1000000);
    t.lr = number_field(s, "lr");
    t.min_lr = number_field(s, "minLr");
    t.seed = static_cast<std::uint64_t>(int_field(s, "seed", 0, 2147483647));
    if (!s["weightDecay"].isUndefined()) t.adamw.weight_decay = number_field(s, "weightDecay");
    return t;
}

// what the page shows about a session once it is set up
val session_facts(mha::TrainingSession& s) {
    const mha::ModelConfig& c = s.model_config();
    const mha::TrainConfig& t = s.train_config();
    val r = ok_value();
    r.set("vocabSize", c.vocab_size);
    r.set("dModel", c.d_model);
    r.set("nHeads", c.n_heads);
    r.set("nLayers", c.n_layers);
    r.set("context", c.max_seq_len);
    r.set("mlp", c.mlp);
    r.set("batch", t.batch);
    r.set("steps", t.steps);
    r.set("lr", t.lr);
    r.set("stepsDone", s.steps_done());
    r.set("params", static_cast<double>(s.num_params()));
    r.set("trainTokens", static_cast<double>(s.train_tokens()));
    r.set("valTokens", static_cast<double>(s.val_tokens()));
    r.set("unknownChars", s.unknown_chars());
    r.set("baselineLoss", s.baseline_loss());
    r.set("divergenceLimit", s.divergence_limit());
    r.set("variant", std::string(mha::variant_name(c.variant)));
    r.set("task", std::string(s.induction_task() ? "induction" : "char"));
    if (s.induction_task()) {
        r.set("segMin", s.induction_config().seg_min);
        r.set("segMax", s.induction_config().seg_max);
    }
    return r;
}

// ---------------------------------------------------------------- exported functions
// { ok, error?, dModel, nHeads, headSize, head: Int32Array(D), lane: Int32Array(D) }
val head_layout(int d_model, int n_heads, const std::string& order_name) {
    return guarded([&] {
        mha::HeadOrder order;
        if (!parse_order(order_name, order)) return error_value("unknown head order '" + order_name + "'");
        const std::string err = mha::validate_heads(d_model, n_heads);
        if (!err.empty()) return error_value(err);
        const mha::HeadLayout l = mha::head_layout(d_model, n_heads, order);
        val r = ok_value();
        r.set("dModel", l.d_model);
        r.set("nHeads", l.n_heads);
        r.set("headSize", l.head_size);
        r.set("head", copy_vector(l.head));
        r.set("lane", copy_vector(l.lane));
        return r;
    });
}

// { ok, error?, tokens: string[T], nHeads, T, att: Float32Array(H*T*T) (H,T,T) }
val attention_demo(const std::string& text, int d_model, int n_heads, double seed, const std::string& order_name) {
    return guarded([&] {
        mha::HeadOrder order;
        if (!parse_order(order_name, order)) return error_value("unknown head order '" + order_name + "'");
        const std::string err = mha::validate_heads(d_model, n_heads);
        if (!err.empty()) return error_value(err);
        const mha::AttentionDemo d = mha::attention_demo(text, d_model, n_heads, seed_arg(seed), order);
        val r = ok_value();
        r.set("tokens", string_array(d.tokens));
        r.set("nHeads", n_heads);
        r.set("T", static_cast<int>(d.tokens.size()));
        r.set("att", copy_out(d.att.data(), d.att.size()));
        return r;
    });
}

// { ok, params: 4D² + 4D } for one attention layer
val attention_params(int d_model) {
    return guarded([&] {
        if (d_model < 1 || d_model > mha::Limits::max_d_model) return error_value(mha::validate_heads(d_model, 1));
        val r = ok_value();
        r.set("params", static_cast<double>(mha::attention_param_count(d_model)));
        return r;
    });
}

std::string simd_arch() { return mha::simd_arch_name(); }

// ---------------------------------------------------------------- the training session (one per worker run)
// settings: { dModel, nHeads, nLayers, context, mlp, variant?, batch, steps, warmup, lr, minLr, seed,
//             task?: 'char' | 'induction', vocab, segMin, segMax (the induction task; text is ignored) } -> facts
val session_init(mha::TrainingSession& s, const val& settings, const std::string& text) {
    return guarded([&] {
        const std::string err =
            induction_settings(settings)
                ? s.init_induction(model_settings(settings), train_settings(settings), task_settings(settings))
                : s.init(model_settings(settings), train_settings(settings), text);
        return err.empty() ? session_facts(s) : error_value(err);
    });
}

// bytes: Uint8Array of a .safetensors file; settings: the schedule { batch, steps, warmup, lr, minLr, seed }
val session_init_from_checkpoint(mha::TrainingSession& s, const val& bytes, const val& settings, const std::string& text) {
    return guarded([&] {
        const std::vector<std::uint8_t> b = bytes_in(bytes);
        const std::string err = s.init_from_checkpoint(b.data(), b.size(), train_settings(settings), text);
        return err.empty() ? session_facts(s) : error_value(err);
    });
}

val session_facts_checked(mha::TrainingSession& s) {
    return guarded([&] { return session_facts(s); });
}

// { ok, step: Int32Array(n), loss, gradNorm, lr: Float64Array(n), skipped: Uint8Array(n),
//   diverged: index of the first blown-up step or -1, stepsDone }
val session_train(mha::TrainingSession& s, int n) {
    return guarded([&] {
        if (n < 1 || n > 10000) return error_value("train: the number of steps must be 1 to 10000");
        const std::vector<mha::StepResult> steps = s.train(n);
        std::vector<int> step;
        std::vector<double> loss, norm, lr;
        std::vector<std::uint8_t> skipped;
        int diverged = -1;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const mha::StepResult& r = steps[i];
            step.push_back(r.step), loss.push_back(r.loss), norm.push_back(r.grad_norm), lr.push_back(r.lr);
            skipped.push_back(r.skipped);
            if (diverged < 0 && s.diverged(r)) diverged = static_cast<int>(i);
        }
        val r = ok_value();
        r.set("step", copy_vector(step));
        r.set("loss", copy_vector(loss));
        r.set("gradNorm", copy_vector(norm));
        r.set("lr", copy_vector(lr));
        r.set("skipped", copy_vector(skipped));
        r.set("diverged", diverged);
        r.set("stepsDone", s.steps_done());
        return r;
    });
}

val session_evaluate(mha::TrainingSession& s) {
    return guarded([&] {
        val r = ok_value();
        r.set("loss", s.evaluate());
        return r;
    });
}

// settings as for init; only the schedule may change (lr, minLr, steps, warmup)
val session_set_train_config(mha::TrainingSession& s, const val& settings) {
    return guarded([&] {
        const std::string err = s.set_train_config(train_settings(settings));
        return err.empty() ? session_facts(s) : error_value(err);
    });
}

// { ok, tokens: string[T], L, H, T, att: Float32Array(L*H*T*T) (L,H,T,T), truncated, unknown }
val session_attention(mha::TrainingSession& s, const std::string& text) {
    return guarded([&] {
        const mha::AttentionMaps m = s.attention(text);
        val r = ok_value();
        r.set("tokens", string_array(m.tokens));
        r.set("L", m.L);
        r.set("H", m.H);
        r.set("T", m.T);
        r.set("att", copy_vector(m.att));
        r.set("truncated", m.truncated);
        r.set("unknown", m.unknown);
        return r;
    });
}

// { ok, L, H, probeLen, previous, first, entropy, maxEntropy, induction: Float64Array(L*H), labels: string[L*H] }
val session_scores(mha::TrainingSession& s, const std::string& text) {
    return guarded([&] {
        const mha::HeadScoreTable t = s.head_scores(text);
        std::vector<double> prev, first, ent, maxent, ind;
        for (const auto& h : t.heads) {
            prev.push_back(h.previous), first.push_back(h.first), ent.push_back(h.entropy);
            maxent.push_back(h.max_entropy), ind.push_back(h.induction);
        }
        val r = ok_value();
        r.set("L", t.L);
        r.set("H", t.H);
        r.set("probeLen", t.probe_len);
        r.set("previous", copy_vector(prev));
        r.set("first", copy_vector(first));
        r.set("entropy", copy_vector(ent));
        r.set("maxEntropy", copy_vector(maxent));
        r.set("induction", copy_vector(ind));
        r.set("labels", string_array(t.labels));
        return r;
    });
}

val session_set_head_enabled(mha::TrainingSession& s, int layer, int head, bool enabled) {
    return guarded([&] {
        const mha::ModelConfig& c = s.model_config();
        if (layer < 0 || layer >= c.n_layers || head < 0 || head >= c.n_heads) return error_value("there is no such layer or head");
        s.set_head_enabled(layer, head, enabled);
        return ok_value();
    });
}

val session_enable_all_heads(mha::TrainingSession& s) {
    return guarded([&] {
        s.enable_all_heads();
        return ok_value();
    });
}

val session_tie(mha::TrainingSession& s, int source_head) {
    return guarded([&] {
        if (source_head < 0 || source_head >= s.model_config().n_heads) return error_value("there is no such head");
        s.tie(source_head);
        return ok_value();
    });
}

val session_untie(mha::TrainingSession& s) {
    return guarded([&] {
        s.untie();
        return ok_value();
    });
}

// { ok, text }
val session_sample(mha::TrainingSession& s, const std::string& prompt, int n, double temperature, double seed) {
    return guarded([&] {
        if (n < 1 || n > mha::kMaxSampleChars)
            return error_value("a sample is 1 to " + std::to_string(mha::kMaxSampleChars) + " characters");
        if (!(temperature >= 0 && temperature <= 5)) return error_value("the temperature must be 0 to 5");
        val r = ok_value();
        r.set("text", s.sample(prompt, n, temperature, seed_arg(seed)));
        return r;
    });
}

// { ok, bytes: Uint8Array } a .safetensors file
val session_snapshot(mha::TrainingSession& s, bool with_optimizer) {
    return guarded([&] {
        val r = ok_value();
        r.set("bytes", copy_vector(s.snapshot(with_optimizer)));
        r.set("step", s.steps_done());
        return r;
    });
}

val session_restore(mha::TrainingSession& s, const val& bytes) {
    return guarded([&] {
        const std::vector<std::uint8_t> b = bytes_in(bytes);
        const std::string err = s.restore(b.data(), b.size());
        return err.empty() ? session_facts(s) : error_value(err);
    });
}

val session_copy_weights_from(mha::TrainingSession& s, const mha::TrainingSession& other) {
    return guarded([&] {
        const std::string err = s.copy_weights_from(other);
        return err.empty() ? ok_value() : error_value(err);
    });
}

// { ok, T, causal, nLeaks, leaks: Int32Array(2n) (t, s) pairs: output t depends on the later input s,
//   depends: Uint8Array(T*T) (T,T) 1 where output t changes with input s }
val session_causality(mha::TrainingSession& s) {
    return guarded([&] {
        const mha::CausalityReport c = s.causality();
        std::vector<int> pairs;
        for (const auto& [t, src] : c.leaks) pairs.push_back(t), pairs.push_back(src);
        val r = ok_value();
        r.set("T", c.T);
        r.set("causal", c.causal());
        r.set("nLeaks", static_cast<int>(c.leaks.size()));
        r.set("leaks", copy_vector(pairs));
        r.set("depends", copy_vector(c.depends));
        return r;
    });
}

// { ok, loss, variant }: this run's weights evaluated by the model of another variant (same parameter layout)
val session_evaluate_as(mha::TrainingSession& s, const std::string& variant) {
    return guarded([&] {
        double loss = 0;
        const std::string err = s.evaluate_as(variant_of(variant), loss);
        if (!err.empty()) return error_value(err);
        val r = ok_value();
        r.set("loss", loss);
        r.set("variant", variant);
        return r;
    });
}

// { ok, L, H, previous, induction: Float64Array(L*H) (L,H), lossFirst, lossRepeat, bestInduction, bestHead }
val session_induction(mha::TrainingSession& s, int n_probes) {
    return guarded([&] {
        if (!s.induction_task()) return error_value("this run is not on the induction task");
        if (n_probes < 1 || n_probes > 256) return error_value("the number of probes must be 1 to 256");
        const mha::InductionMeasurement m = s.measure_induction(n_probes);
        val r = ok_value();
        r.set("L", m.layers);
        r.set("H", m.heads);
        r.set("previous", copy_vector(m.previous));
        r.set("induction", copy_vector(m.induction));
        r.set("lossFirst", m.loss_first);
        r.set("lossRepeat", m.loss_repeat);
        r.set("bestInduction", m.best_induction);
        r.set("bestHead", m.best_head);
        return r;
    });
}

// { ok, tokens: string[T] ("BOS", "17", ...), L, H, T, att: Float32Array(L*H*T*T) (L,H,T,T), segment }
val session_probe_attention(mha::TrainingSession& s) {
    return guarded([&] {
        if (!s.induction_task()) return error_value("this run is not on the induction task");
        const mha::AttentionMaps m = s.probe_attention();
        val r = ok_value();
        r.set("tokens", string_array(m.tokens));
        r.set("L", m.L);
        r.set("H", m.H);
        r.set("T", m.T);
        r.set("att", copy_vector(m.att));
        r.set("segment", s.induction_config().seg_max);
        return r;
    });
}

// ---------------------------------------------------------------- parameters, KV cache, worked example
// { ok, names: string[], shapes: string[] ("64×64"), sizes: Float64Array, total }
val parameter_ledger(int vocab, int d_model, int n_heads, int n_layers, int context, bool mlp) {
    return guarded([&] {
        mha::ModelConfig c;
        c.vocab_size = vocab, c.d_model = d_model, c.n_heads = n_heads, c.n_layers = n_layers, c.max_seq_len = context;
        c.mlp = mlp;
        const std::string err = mha::validate(c);
        if (!err.empty()) return error_value(err);
        std::vector<std::string> names, shapes;
        std::vector<double> sizes;
        double total = 0;
        for (const mha::TensorSpec& t : mha::parameter_table(c)) {
            names.push_back(t.name);
            std::string shape;
            for (int d : t.shape) shape += (shape.empty() ? "" : "×") + std::to_string(d);
            shapes.push_back(shape);
            sizes.push_back(static_cast<double>(t.size));
            total += static_cast<double>(t.size);
        }
        val r = ok_value();
        r.set("names", string_array(names));
        r.set("shapes", string_array(shapes));
        r.set("sizes", copy_vector(sizes));
        r.set("total", total);
        return r;
    });
}

val attention_count_value(const mha::AttentionCount& c) {
    val r = val::object();
    r.set("q", static_cast<double>(c.q));
    r.set("k", static_cast<double>(c.k));
    r.set("v", static_cast<double>(c.v));
    r.set("o", static_cast<double>(c.o));
    r.set("bias", static_cast<double>(c.bias));
    r.set("perLayer", static_cast<double>(c.per_layer));
    r.set("allLayers", static_cast<double>(c.all_layers));
    r.set("kvCacheBytes", static_cast<double>(c.kv_cache_bytes));
    return r;
}

// shape: { layers, dModel, nHeads, nKvHeads, headDim, bias, context, batch, bytesPerValue }
// -> { ok, mha, gqa, mqa: {q,k,v,o,bias,perLayer,allLayers,kvCacheBytes}, gqaFraction, mqaFraction }
val kv_arithmetic(const val& shape) {
    return guarded([&] {
        mha::AttentionShape s;
        const int big = 1 << 30;
        s.layers = int_field(shape, "layers", 1, big), s.d_model = int_field(shape, "dModel", 1, big);
        s.n_heads = int_field(shape, "nHeads", 1, big), s.n_kv_heads = int_field(shape, "nKvHeads", 1, big);
        s.head_dim = int_field(shape, "headDim", 1, big), s.bias = bool_field(shape, "bias");
        s.context = int_field(shape, "context", 1, big), s.batch = int_field(shape, "batch", 1, big);
        s.bytes_per_value = int_field(shape, "bytesPerValue", 1, big);
        const std::string err = mha::validate(s);
        if (!err.empty()) return error_value(err);
        const mha::KvComparison k = mha::compare_kv(s);
        val r = ok_value();
        r.set("mha", attention_count_value(k.mha));
        r.set("gqa", attention_count_value(k.gqa));
        r.set("mqa", attention_count_value(k.mqa));
        r.set("gqaFraction", k.gqa_cache_fraction);
        r.set("mqaFraction", k.mqa_cache_fraction);
        return r;
    });
}

// input: { T, D, H, x: number[T*D], wq, wk, wv, wo: number[D*D] (in,out) } -> every step as Float64Arrays
val worked_example(const val& input) {
    return guarded([&] {
        mha::WorkedExampleInput in;
        in.T = int_field(input, "T", 1, mha::kWorkedMaxT);
        in.D = int_field(input, "D", 1, mha::kWorkedMaxD);
        in.H = int_field(input, "H", 1, mha::kWorkedMaxD);
        for (auto [key, dst] : {std::pair<const char*, std::vector<double>*>{"x", &in.x}, {"wq", &in.wq}, {"wk", &in.wk},
                                {"wv", &in.wv}, {"wo", &in.wo}}) {
            const val a = input[key];
            if (!val::global("Array").call<bool>("isArray", a) && !a.instanceof(val::global("Float64Array")))
                return error_value(std::string("the worked example needs the matrix '") + key + "'");
            *dst = emscripten::convertJSArrayToNumberVector<double>(a);
        }
        mha::WorkedExample ex;
        const std::string err = mha::run_worked_example(in, ex);
        if (!err.empty()) return error_value(err);
        val r = ok_value();
        r.set("T", ex.T), r.set("D", ex.D), r.set("H", ex.H), r.set("hs", ex.hs);
        r.set("x", copy_vector(ex.x)), r.set("wqH", copy_vector(ex.wq_h)), r.set("wkH", copy_vector(ex.wk_h));
        r.set("wvH", copy_vector(ex.wv_h)), r.set("q", copy_vector(ex.q)), r.set("k", copy_vector(ex.k));
        r.set("v", copy_vector(ex.v)), r.set("scores", copy_vector(ex.scores)), r.set("scaled", copy_vector(ex.scaled));
        r.set("masked", copy_vector(ex.masked)), r.set("att", copy_vector(ex.att)), r.set("heads", copy_vector(ex.heads));
        r.set("concat", copy_vector(ex.concat)), r.set("wo", copy_vector(ex.wo)), r.set("out", copy_vector(ex.out));
        return r;
    });
}

// the constants the page states: label thresholds, the blow-up rule, the text limit
val constants() {
    val r = val::object();
    r.set("inductionThreshold", mha::LabelThresholds::induction);
    r.set("previousThreshold", mha::LabelThresholds::previous);
    r.set("firstThreshold", mha::LabelThresholds::first);
    r.set("broadThreshold", mha::LabelThresholds::broad);
    r.set("divergenceFactor", mha::kDivergenceFactor);
    r.set("maxTextBytes", static_cast<double>(mha::DataLimits::max_text_bytes));
    r.set("evalBatches", mha::kSessionEvalBatches);
    r.set("maxSampleChars", mha::kMaxSampleChars);
    std::vector<std::string> variants;
    for (int i = 0; i < mha::kNumVariants; ++i) variants.push_back(mha::variant_name(static_cast<mha::AttentionVariant>(i)));
    r.set("variants", string_array(variants));
    return r;
}


}  // namespace

EMSCRIPTEN_BINDINGS(mha_sandbox) {
    emscripten::function("_headLayout", &head_layout);
    emscripten::function("_attentionDemo", &attention_demo);
    emscripten::function("_attentionParams", &attention_params);
    emscripten::function("_simdArch", &simd_arch);
    emscripten::function("_parameterLedger", &parameter_ledger);
    emscripten::function("_kvArithmetic", &kv_arithmetic);
    emscripten::function("_workedExample", &worked_example);
    emscripten::function("_constants", &constants);

    // one training run; JS owns each instance and calls .delete() (worker.js)
    emscripten::class_<mha::TrainingSession>("Session")
        .constructor<>()
        .function("_init", &session_init)
        .function("_initFromCheckpoint", &session_init_from_checkpoint)
        .function("_facts", &session_facts_checked)
        .function("_train", &session_train)
        .function("_evaluate", &session_evaluate)
        .function("_setTrainConfig", &session_set_train_config)
        .function("_attention", &session_attention)
        .function("_scores", &session_scores)
        .function("_setHeadEnabled", &session_set_head_enabled)
        .function("_enableAllHeads", &session_enable_all_heads)
        .function("_tie", &session_tie)
        .function("_untie", &session_untie)
        .function("_sample", &session_sample)
        .function("_snapshot", &session_snapshot)
        .function("_restore", &session_restore)
        .function("_copyWeightsFrom", &session_copy_weights_from)
        .function("_causality", &session_causality)
        .function("_evaluateAs", &session_evaluate_as)
        .function("_induction", &session_induction)
        .function("_probeAttention", &session_probe_attention);
}
