// Conversions between JS values and the core's structs, for bindings.cpp: one to_js per result struct, one from_js
// per argument struct, and the error-value convention. No rule lives here: a number that is missing or not a number
// arrives in the core as NaN, and the core says what is wrong with it. Arrays leave as owned typed-array copies
// (typed_memory_view + slice), never as live views into the wasm heap, which moves when memory grows.
// Emscripten 3.1.6: a C++ exception that escapes into JS arrives as a bare number, so every call is guarded.
#pragma once
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "demo.hpp"
#include "error.hpp"
#include "head_pruning.hpp"
#include "inspector.hpp"
#include "kv_cache.hpp"
#include "ledger.hpp"
#include "phase_change.hpp"
#include "reach.hpp"
#include "run.hpp"
#include "run_settings.hpp"
#include "seed_effects.hpp"
#include "variant_lessons.hpp"
#include "worked_example.hpp"

namespace marshal {

using emscripten::val;

// ---------------------------------------------------------------- the { ok, error } convention
inline val ok() {
    val r = val::object();
    r.set("ok", true);
    return r;
}

inline val error_value(const std::string& message) {
    val r = val::object();
    r.set("ok", false);
    r.set("error", message);
    return r;
}

// "" -> then(), else the sentence as an error value
template <class F>
val unless_error(const std::string& err, F&& then) {
    return err.empty() ? then() : error_value(err);
}

// Once an allocation has failed, this module is not to be trusted: a buffer may be half resized under a view laid
// over it before, and a later call would read or write out of bounds. Every call after that answers this sentence,
// with outOfMemory: true, so that the page replaces the worker (runs.js) instead of using it again.
inline bool& out_of_memory() {
    static bool failed = false;
    return failed;
}
inline val out_of_memory_value() {
    val r = error_value("This run needs more memory than a browser tab's WebAssembly module can have: choose a "
                        "smaller model, batch or context.");
    r.set("outOfMemory", true);
    return r;
}

// runs body(), turning any C++ exception into { ok: false, error } (an allocation failure into the sentence above,
// for this call and every later one)
template <class F>
val guarded(F&& body) {
    if (out_of_memory()) return out_of_memory_value();
    try {
        return body();
    } catch (const std::bad_alloc&) {
        out_of_memory() = true;
        return out_of_memory_value();
    } catch (const std::exception& e) {
        return error_value(e.what());
    } catch (...) {
        return error_value("internal error");
    }
}

// ---------------------------------------------------------------- plain values
template <class T>
val copy_out(const std::vector<T>& v) {
    return val(emscripten::typed_memory_view(v.size(), v.data())).call<val>("slice");
}

inline val strings(const std::vector<std::string>& v) {
    val a = val::array();
    for (const auto& s : v) a.call<void>("push", s);
    return a;
}

// obj[key] as a double: NaN when missing or not a number (the core words the sentence)
inline double number(const val& obj, const char* key) {
    const val v = obj[key];
    return v.isNumber() ? v.as<double>() : NAN;
}

// obj[key] as an int when it is a whole number that fits, else a value no range accepts (the core words the
// sentence): for structs whose fields are ints
inline int whole(const val& obj, const char* key) {
    const double d = number(obj, key);
    return d == std::floor(d) && std::abs(d) <= 2147483647.0 ? static_cast<int>(d) : -2147483647 - 1;
}

// a Uint8Array copied into the wasm heap in one set(); null or undefined -> empty
inline std::vector<std::uint8_t> bytes(const val& array) {
    if (array.isNull() || array.isUndefined()) return {};
    if (!array.instanceof(val::global("Uint8Array"))) throw mha::Error("the file must be passed as a Uint8Array");
    return emscripten::convertJSArrayToNumberVector<std::uint8_t>(array);
}

// ---------------------------------------------------------------- from JS
// a run's settings: the js keys of the settings table (run_settings.hpp, constants().defaults); a missing key keeps
// its value in base
inline mha::RunSettings run_settings(const val& s, mha::RunSettings r = {}) {
    for (const mha::SettingField& f : mha::setting_fields()) {
        const val v = s[f.js];
        if (v.isUndefined()) continue;
        if (f.number) r.*f.number = number(s, f.js);
        if (f.boolean) r.*f.boolean = v.isTrue();
        if (f.text) r.*f.text = v.isString() ? v.as<std::string>() : std::string("(not a name)");
    }
    return r;
}

// string[] -> vector; a non-string entry becomes "" (the core names what it needs)
inline std::vector<std::string> string_list(const val& a) {
    std::vector<std::string> out;
    if (!val::global("Array").call<bool>("isArray", a)) return out;
    const int n = a["length"].as<int>();
    for (int i = 0; i < n; ++i) out.push_back(a[i].isString() ? a[i].as<std::string>() : std::string());
    return out;
}

// number[][] -> (G,S) doubles; a non-number entry becomes NaN (the core says a result is missing)
inline std::vector<std::vector<double>> number_table(const val& rows) {
    std::vector<std::vector<double>> out;
    if (!val::global("Array").call<bool>("isArray", rows)) return out;
    const int g = rows["length"].as<int>();
    for (int i = 0; i < g; ++i) {
        const val row = rows[i];
        out.emplace_back();
        if (!val::global("Array").call<bool>("isArray", row)) continue;
        const int n = row["length"].as<int>();
        for (int j = 0; j < n; ++j) out.back().push_back(row[j].isNumber() ? row[j].as<double>() : NAN);
    }
    return out;
}

// { ablate: [[layer, head], ...], tie } -> HeadEdits
inline mha::HeadEdits head_edits(const val& request) {
    mha::HeadEdits e;
    const val a = request["ablate"];
    if (val::global("Array").call<bool>("isArray", a)) {
        const int n = a["length"].as<int>();
        for (int i = 0; i < n; ++i) e.ablate.emplace_back(whole(a[i], "0"), whole(a[i], "1"));
    }
    e.tie = request["tie"].isTrue();
    return e;
}

// { layers, dModel, nHeads, nKvHeads, headDim, bias, context, batch, bytesPerValue }
inline mha::AttentionShape attention_shape(const val& s) {
    mha::AttentionShape a;
    a.layers = whole(s, "layers"), a.d_model = whole(s, "dModel"), a.n_heads = whole(s, "nHeads");
    a.n_kv_heads = whole(s, "nKvHeads"), a.head_dim = whole(s, "headDim"), a.bias = s["bias"].isTrue();
    a.context = whole(s, "context"), a.batch = whole(s, "batch"), a.bytes_per_value = whole(s, "bytesPerValue");
    return a;
}

// { T, D, H, x, wq, wk, wv, wo: number[] or Float64Array }
inline mha::WorkedExampleInput worked_input(const val& input) {
    mha::WorkedExampleInput in;
    in.T = whole(input, "T"), in.D = whole(input, "D"), in.H = whole(input, "H");
    for (auto [key, dst] : {std::pair<const char*, std::vector<double>*>{"x", &in.x}, {"wq", &in.wq}, {"wk", &in.wk},
                            {"wv", &in.wv}, {"wo", &in.wo}}) {
        const val a = input[key];
        if (val::global("Array").call<bool>("isArray", a) || a.instanceof(val::global("Float64Array")))
            *dst = emscripten::convertJSArrayToNumberVector<double>(a);
    }
    return in;
}

// ---------------------------------------------------------------- to JS: { ok: true, ...fields }
// obj[field.js] = the field of s, as a number, a boolean or a string
inline void set_field(val& obj, const mha::SettingField& field, const mha::RunSettings& s) {
    if (field.number) obj.set(field.js, s.*field.number);
    if (field.boolean) obj.set(field.js, s.*field.boolean);
    if (field.text) obj.set(field.js, s.*field.text);
}

inline val to_js(const mha::RunFacts& f) {
    val r = ok();
    r.set("vocabSize", f.model.vocab_size), r.set("dModel", f.model.d_model), r.set("nHeads", f.model.n_heads);
    r.set("nLayers", f.model.n_layers), r.set("context", f.model.max_seq_len), r.set("mlp", f.model.mlp);
    r.set("variant", std::string(mha::variant_name(f.model.variant)));
    r.set("batch", f.train.batch), r.set("steps", f.train.steps), r.set("lr", f.train.lr);
    r.set("stepsDone", f.steps_done), r.set("params", static_cast<double>(f.params));
    r.set("trainTokens", static_cast<double>(f.train_tokens)), r.set("valTokens", static_cast<double>(f.val_tokens));
    r.set("unknownChars", f.unknown_chars), r.set("baselineLoss", f.baseline_loss);
    r.set("divergenceLimit", f.divergence_limit), r.set("stepFlops", f.step_flops);
    const std::string task = mha::task_name(f.task);
    r.set("task", task);
    // the task's own settings (segMin, segMax, ...; the settings table's task column)
    const mha::RunSettings s = mha::settings_of(f);
    for (const mha::SettingField& field : mha::setting_fields())
        if (field.task == task) set_field(r, field, s);
    return r;
}

// { step: Int32Array, loss, gradNorm, lr: Float64Array, skipped: Uint8Array, diverged, stepsDone }
inline val to_js(const mha::TrainChunk& c) {
    std::vector<int> step;
    std::vector<double> loss, norm, lr;
    std::vector<std::uint8_t> skipped;
    for (const mha::StepResult& s : c.steps)
        step.push_back(s.step), loss.push_back(s.loss), norm.push_back(s.grad_norm), lr.push_back(s.lr),
            skipped.push_back(s.skipped);
    val r = ok();
    r.set("step", copy_out(step)), r.set("loss", copy_out(loss)), r.set("gradNorm", copy_out(norm));
    r.set("lr", copy_out(lr)), r.set("skipped", copy_out(skipped));
    r.set("diverged", c.diverged), r.set("stepsDone", c.steps_done);
    return r;
}

// { tokens: string[T], L, H, T, att: Float32Array (L,H,T,T), truncated, unknown }
inline val to_js(const mha::AttentionMaps& m) {
    val r = ok();
    r.set("tokens", strings(m.tokens)), r.set("L", m.L), r.set("H", m.H), r.set("T", m.T);
    r.set("att", copy_out(m.att)), r.set("truncated", m.truncated), r.set("unknown", m.unknown);
    return r;
}

// { L, H, probeLen, previous, first, entropy, maxEntropy, induction: Float64Array (L*H), labels: string[L*H] }
inline val to_js(const mha::HeadScoreTable& t) {
    std::vector<double> prev, first, ent, maxent, ind;
    for (const mha::HeadScores& h : t.heads)
        prev.push_back(h.previous), first.push_back(h.first), ent.push_back(h.entropy),
            maxent.push_back(h.max_entropy), ind.push_back(h.induction);
    val r = ok();
    r.set("L", t.L), r.set("H", t.H), r.set("probeLen", t.probe_len);
    r.set("previous", copy_out(prev)), r.set("first", copy_out(first)), r.set("entropy", copy_out(ent));
    r.set("maxEntropy", copy_out(maxent)), r.set("induction", copy_out(ind)), r.set("labels", strings(t.labels));
    return r;
}

// { maps, scores, valBase?, valModified? }
inline val to_js(const mha::Inspection& i) {
    val r = ok();
    r.set("maps", to_js(i.maps)), r.set("scores", to_js(i.scores));
    if (i.with_loss) r.set("valBase", i.val_base), r.set("valModified", i.val_modified);
    return r;
}

// { T, causal, nLeaks, leaks: Int32Array (t, s) pairs, depends: Uint8Array (T,T) }
inline val to_js(const mha::CausalityReport& c) {
    std::vector<int> pairs;
    for (const auto& [t, s] : c.leaks) pairs.push_back(t), pairs.push_back(s);
    val r = ok();
    r.set("T", c.T), r.set("causal", c.causal()), r.set("nLeaks", static_cast<int>(c.leaks.size()));
    r.set("leaks", copy_out(pairs)), r.set("depends", copy_out(c.depends));
    return r;
}

// { L, H, previous, induction: Float64Array (L,H), lossFirst, lossRepeat, bestInduction, bestHead }
inline val to_js(const mha::InductionMeasurement& m) {
    val r = ok();
    r.set("L", m.layers), r.set("H", m.heads), r.set("previous", copy_out(m.previous));
    r.set("induction", copy_out(m.induction)), r.set("lossFirst", m.loss_first), r.set("lossRepeat", m.loss_repeat);
    r.set("bestInduction", m.best_induction), r.set("bestHead", m.best_head);
    return r;
}

// { L, H, T, K, ids: Int32Array (T), tokens: string[T], previous, first, entropy, maxEntropy, distance:
//   Float64Array (L*H), profile: Float64Array (L*H, K) }
inline val to_js(const mha::HeadTrace& t) {
    val r = ok();
    r.set("L", t.L), r.set("H", t.H), r.set("T", t.T), r.set("K", t.K);
    r.set("ids", copy_out(t.ids)), r.set("tokens", strings(t.tokens));
    r.set("previous", copy_out(t.previous)), r.set("first", copy_out(t.first)), r.set("entropy", copy_out(t.entropy));
    r.set("maxEntropy", copy_out(t.max_entropy)), r.set("distance", copy_out(t.distance));
    r.set("profile", copy_out(t.profile));
    return r;
}

// { dModel, nHeads, headSize, head: Int32Array (D), lane: Int32Array (D) }
inline val to_js(const mha::HeadLayout& l) {
    val r = ok();
    r.set("dModel", l.d_model), r.set("nHeads", l.n_heads), r.set("headSize", l.head_size);
    r.set("head", copy_out(l.head)), r.set("lane", copy_out(l.lane));
    return r;
}

// { tokens: string[T], nHeads, T, att: Float32Array (H,T,T) }
inline val to_js(const mha::AttentionDemo& d) {
    val r = ok();
    r.set("tokens", strings(d.tokens)), r.set("nHeads", static_cast<int>(d.att.shape()[0]));
    r.set("T", static_cast<int>(d.tokens.size()));
    r.set("att", val(emscripten::typed_memory_view(d.att.size(), d.att.data())).call<val>("slice"));
    return r;
}

// { names: string[], shapes: string[] ("64×64"), sizes: Float64Array, total }
inline val to_js(const mha::ParameterLedger& l) {
    val r = ok();
    r.set("names", strings(l.names)), r.set("shapes", strings(l.shapes)), r.set("sizes", copy_out(l.sizes));
    r.set("total", l.total);
    return r;
}

inline val count_js(const mha::AttentionCount& c) {
    val r = val::object();
    r.set("q", static_cast<double>(c.q)), r.set("k", static_cast<double>(c.k)), r.set("v", static_cast<double>(c.v));
    r.set("o", static_cast<double>(c.o)), r.set("bias", static_cast<double>(c.bias));
    r.set("perLayer", static_cast<double>(c.per_layer)), r.set("allLayers", static_cast<double>(c.all_layers));
    r.set("kvCacheBytes", static_cast<double>(c.kv_cache_bytes));
    return r;
}

// { mha, gqa, mqa: {q,k,v,o,bias,perLayer,allLayers,kvCacheBytes}, gqaFraction, mqaFraction }
inline val to_js(const mha::KvComparison& k) {
    val r = ok();
    r.set("mha", count_js(k.mha)), r.set("gqa", count_js(k.gqa)), r.set("mqa", count_js(k.mqa));
    r.set("gqaFraction", k.gqa_cache_fraction), r.set("mqaFraction", k.mqa_cache_fraction);
    return r;
}

// every step as Float64Arrays (worked_example.hpp gives the shapes)
inline val to_js(const mha::WorkedExample& ex) {
    val r = ok();
    r.set("T", ex.T), r.set("D", ex.D), r.set("H", ex.H), r.set("hs", ex.hs);
    r.set("x", copy_out(ex.x)), r.set("wqH", copy_out(ex.wq_h)), r.set("wkH", copy_out(ex.wk_h));
    r.set("wvH", copy_out(ex.wv_h)), r.set("q", copy_out(ex.q)), r.set("k", copy_out(ex.k)), r.set("v", copy_out(ex.v));
    r.set("scores", copy_out(ex.scores)), r.set("scaled", copy_out(ex.scaled)), r.set("masked", copy_out(ex.masked));
    r.set("att", copy_out(ex.att)), r.set("heads", copy_out(ex.heads)), r.set("concat", copy_out(ex.concat));
    r.set("wo", copy_out(ex.wo)), r.set("out", copy_out(ex.out));
    return r;
}

// { settings: [{seeds, mean, min, max, spread}], toReference: [{mean, min, max, sd, low, high, spread, agree, outcome,
//   seedsToDecide}], verdicts, margin, rule }; outcome is 'effect', 'equivalent' or 'undecided'
// (core/lab/seed_effects.hpp); low and high are ±Infinity with one seed
inline val to_js(const mha::SeedComparison& c) {
    val settings = val::array(), pairs = val::array();
    for (const mha::SeedSummary& x : c.settings) {
        val o = val::object();
        o.set("seeds", x.seeds), o.set("mean", x.mean), o.set("min", x.min), o.set("max", x.max);
        o.set("spread", x.spread());
        settings.call<void>("push", o);
    }
    for (const mha::PairedDifference& d : c.to_reference) {
        val o = val::object();
        o.set("mean", d.mean), o.set("min", d.min), o.set("max", d.max), o.set("sd", d.sd);
        o.set("low", d.low), o.set("high", d.high), o.set("spread", d.spread), o.set("agree", d.agree);
        o.set("outcome", std::string(mha::outcome_name(d.outcome))), o.set("seedsToDecide", d.seeds_to_decide);
        pairs.call<void>("push", o);
    }
    val r = ok();
    r.set("settings", settings), r.set("toReference", pairs), r.set("verdicts", strings(c.verdicts));
    r.set("margin", c.margin), r.set("rule", mha::seed_rule_text(c.margin));
    return r;
}

// one model's pruning (core/lab/head_pruning.hpp): { L, H, baseLoss, importance: Float64Array (L*H, layer-major),
// order: Int32Array (L*H, head indices l*H + h, least important first), loss: Float64Array (L*H + 1) }
inline val to_js(const mha::PruningCurve& c) {
    val r = ok();
    r.set("L", c.L), r.set("H", c.H), r.set("baseLoss", c.base_loss);
    r.set("importance", copy_out(c.importance)), r.set("order", copy_out(c.order)), r.set("loss", copy_out(c.loss));
    return r;
}

// { L, H, seeds, threshold, meanLoss: number[L*H + 1], rise: [{mean, sd, low, high}] (L*H + 1; ±Infinity with one
//   seed, 0 at k = 0), removable, risesAt (-1: none), outcome: 'removable' | 'rises' | 'cannot-tell', sentence }
inline val to_js(const mha::PruningOverSeeds& v) {
    val mean = val::array(), rise = val::array();
    for (double x : v.mean_loss) mean.call<void>("push", x);
    for (const mha::PairedDifference& d : v.rise) {
        val o = val::object();
        o.set("mean", d.mean), o.set("sd", d.sd), o.set("low", d.low), o.set("high", d.high);
        rise.call<void>("push", o);
    }
    val r = ok();
    r.set("L", v.L), r.set("H", v.H), r.set("seeds", v.seeds), r.set("threshold", v.threshold);
    r.set("meanLoss", mean), r.set("rise", rise), r.set("removable", v.removable), r.set("risesAt", v.rises_at);
    r.set("outcome", std::string(mha::prune_outcome_name(v.outcome))), r.set("sentence", v.sentence);
    return r;
}

// { threshold, budget, settings: [{first: number[S] (-1: never), reached, median (-1: a seed that never got there),
//   min, max, lowest}], sentences }
inline val to_js(const mha::ReachComparison& r) {
    val settings = val::array();
    for (const mha::SettingReach& x : r.settings) {
        val o = val::object(), first = val::array();
        for (int f : x.first) first.call<void>("push", f);
        o.set("first", first), o.set("reached", x.reached), o.set("median", x.median), o.set("min", x.min);
        o.set("max", x.max), o.set("lowest", x.lowest);
        settings.call<void>("push", o);
    }
    val out = ok();
    out.set("threshold", r.threshold), out.set("budget", r.budget), out.set("settings", settings);
    out.set("sentences", strings(r.sentences));
    return out;
}

// to_js(SeedComparison) and lessons: the verdict per variant in the lesson's terms ('' for canonical)
inline val to_js(const mha::VariantComparison& c) {
    val r = to_js(c.seeds);
    r.set("lessons", strings(c.lessons));
    return r;
}

// a RunSettings as a JS object with the keys run_settings reads (every field of the settings table)
inline val to_js(const mha::RunSettings& s) {
    val r = val::object();
    for (const mha::SettingField& f : mha::setting_fields()) set_field(r, f, s);
    return r;
}

// the settings table for the page: [{ key, name, kind ('whole', 'real', 'flag', 'name'), flag, min, max (whole
// only), task ('' for every task), label, help, default }]
inline val to_js(const std::vector<mha::SettingField>& fields) {
    static const char* kinds[] = {"whole", "real", "flag", "name"};
    const mha::RunSettings defaults;
    val a = val::array();
    for (const mha::SettingField& f : fields) {
        val o = val::object();
        o.set("key", std::string(f.js)), o.set("name", std::string(f.name));
        o.set("kind", std::string(kinds[static_cast<int>(f.kind)])), o.set("flag", std::string(f.flag));
        if (f.kind == mha::FieldKind::whole) o.set("min", f.lo), o.set("max", f.hi);
        o.set("task", std::string(f.task)), o.set("label", std::string(f.label)), o.set("help", std::string(f.help));
        val d = val::object();
        set_field(d, f, defaults);
        o.set("default", d[f.js]);
        a.call<void>("push", o);
    }
    return a;
}

// the task table for the page: [{ name, label, description, vocabulary, baseline, notes, preset, text,
// inductionProbes, fields: the js keys of its own settings }]
// number[] -> doubles; a non-number entry becomes NaN, a non-array an empty list (the core says what is missing)
inline std::vector<double> number_list(const val& a) {
    std::vector<double> out;
    if (!val::global("Array").call<bool>("isArray", a)) return out;
    const int n = a["length"].as<int>();
    for (int j = 0; j < n; ++j) out.push_back(a[j].isNumber() ? a[j].as<double>() : NAN);
    return out;
}

// { step, score, lossFirst, lossRepeat }: number[n] each -> PhaseSeries
inline mha::PhaseSeries phase_series(const val& s) {
    mha::PhaseSeries r;
    if (s.isUndefined() || s.isNull()) return r;  // (a number or a string has no such fields: empty lists)
    r.step = number_list(s["step"]), r.score = number_list(s["score"]);
    r.loss_first = number_list(s["lossFirst"]), r.loss_repeat = number_list(s["lossRepeat"]);
    return r;
}

// { ok, threshold, evalEvery, lastStep, crossStep, dropStep (-1: never), lag, happened, dropFraction, sentence }
inline val to_js(const mha::PhaseChange& p) {
    val r = ok();
    r.set("threshold", p.threshold), r.set("evalEvery", p.eval_every), r.set("lastStep", p.last_step);
    r.set("crossStep", p.cross_step), r.set("dropStep", p.drop_step), r.set("lag", p.lag);
    r.set("happened", p.happened()), r.set("dropFraction", mha::kDropFraction), r.set("sentence", p.sentence);
    return r;
}

inline val to_js(const std::vector<mha::TaskRow>& tasks) {
    val a = val::array();
    for (const mha::TaskRow& k : tasks) {
        val o = val::object(), fields = val::array();
        o.set("name", std::string(k.name)), o.set("label", std::string(k.label));
        o.set("description", std::string(k.description)), o.set("vocabulary", std::string(k.vocabulary));
        o.set("baseline", std::string(k.baseline)), o.set("notes", std::string(k.notes));
        o.set("preset", std::string(k.preset)), o.set("text", k.text), o.set("inductionProbes", k.induction_probes);
        for (const mha::SettingField& f : mha::setting_fields())
            if (f.task == std::string(k.name)) fields.call<void>("push", std::string(f.js));
        o.set("fields", fields);
        a.call<void>("push", o);
    }
    return a;
}

// the presets for the page: { name: { task, description, settings (a whole RunSettings), evalEvery, threshold } }
// (evalEvery and threshold 0: the panel's own, none)
inline val to_js(const std::vector<mha::Preset>& presets) {
    val r = val::object();
    for (const mha::Preset& p : presets) {
        val o = val::object();
        o.set("task", p.task), o.set("description", p.description), o.set("settings", to_js(p.settings));
        o.set("evalEvery", p.eval_every), o.set("threshold", p.threshold);
        r.set(p.name, o);
    }
    return r;
}

}  // namespace marshal
