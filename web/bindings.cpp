// Embind declarations: which core function answers which JS call. Conversions live in marshal.hpp, rules and
// sentences in the core. Every call returns { ok: true, ... } or { ok: false, error: "sentence" }, never throws into
// JS, never aborts. The `_`-prefixed names are wrapped for the page by web/js/engine.js and web/js/worker.js.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "kernels.hpp"
#include "marshal.hpp"

using emscripten::val;
using namespace marshal;

namespace {

// ---------------------------------------------------------------- the first panels: reshape, demo, sizes
val head_layout(int d_model, int n_heads, const std::string& order_name) {
    return guarded([&] {
        mha::HeadOrder order;
        std::string err = mha::parse_head_order(order_name, order);
        if (err.empty()) err = mha::validate_heads(d_model, n_heads);
        return unless_error(err, [&] { return to_js(mha::head_layout(d_model, n_heads, order)); });
    });
}

val attention_demo(const std::string& text, int d_model, int n_heads, double seed, const std::string& order_name) {
    return guarded([&] {
        mha::HeadOrder order;
        std::uint64_t s = 0;
        std::string err = mha::parse_head_order(order_name, order);
        if (err.empty()) err = mha::validate_heads(d_model, n_heads);
        if (err.empty()) err = mha::to_seed(seed, s);
        return unless_error(err, [&] { return to_js(mha::attention_demo(text, d_model, n_heads, s, order)); });
    });
}

// { ok, params: 4D² + 4D } for one attention layer
val attention_params(int d_model) {
    return guarded([&] {
        return unless_error(mha::validate_heads(d_model, 1), [&] {
            val r = ok();
            r.set("params", static_cast<double>(mha::attention_param_count(d_model)));
            return r;
        });
    });
}

std::string simd_arch() { return mha::simd_arch_name(); }

val parameter_ledger(int vocab, int d_model, int n_heads, int n_layers, int context, bool mlp) {
    return guarded([&] {
        mha::ModelConfig c;
        c.vocab_size = vocab, c.d_model = d_model, c.n_heads = n_heads, c.n_layers = n_layers, c.max_seq_len = context;
        c.mlp = mlp;
        mha::ParameterLedger l;
        return unless_error(mha::parameter_ledger(c, l), [&] { return to_js(l); });
    });
}

val kv_arithmetic(const val& shape) {
    return guarded([&] {
        const mha::AttentionShape s = attention_shape(shape);
        return unless_error(mha::validate(s), [&] { return to_js(mha::compare_kv(s)); });
    });
}

val worked_example(const val& input) {
    return guarded([&] {
        mha::WorkedExample ex;
        return unless_error(mha::run_worked_example(worked_input(input), ex), [&] { return to_js(ex); });
    });
}

// ---------------------------------------------------------------- the core's limits, names and tables
val constants() {
    val limits = val::object();
    limits.set("maxDModel", mha::Limits::max_d_model), limits.set("maxHeads", mha::Limits::max_heads);
    limits.set("maxLayers", mha::Limits::max_layers), limits.set("maxSeqLen", mha::Limits::max_seq_len);
    limits.set("maxVocab", mha::Limits::max_vocab), limits.set("maxBatch", mha::TrainLimits::max_batch);
    limits.set("maxSteps", mha::TrainLimits::max_steps), limits.set("maxLr", mha::TrainLimits::max_lr);
    limits.set("maxChunk", mha::RunLimits::max_chunk), limits.set("maxEvalBatches", mha::RunLimits::max_eval_batches);
    limits.set("maxSeed", static_cast<double>(mha::RunLimits::max_seed));
    limits.set("maxSampleChars", mha::RunLimits::max_sample_chars);
    limits.set("maxTextBytes", static_cast<double>(mha::DataLimits::max_text_bytes));
    limits.set("maxCheckpointBytes", static_cast<double>(mha::kMaxCheckpointBytes));
    limits.set("valFraction", mha::DataLimits::default_val_fraction);
    limits.set("demoMaxTokens", mha::kDemoMaxTokens);
    val thresholds = val::object();
    thresholds.set("induction", mha::LabelThresholds::induction), thresholds.set("previous", mha::LabelThresholds::previous);
    thresholds.set("first", mha::LabelThresholds::first), thresholds.set("broad", mha::LabelThresholds::broad);
    std::vector<std::string> variants;
    for (int i = 0; i < mha::kNumVariants; ++i) variants.push_back(mha::variant_name(static_cast<mha::AttentionVariant>(i)));
    val settings = val::object();
    for (const mha::InductionSetting& k : mha::kInductionSettings) {
        val s = val::object();
        s.set("context", k.context), s.set("segMin", k.seg_min), s.set("segMax", k.seg_max);
        s.set("batch", k.batch), s.set("steps", k.steps), s.set("lr", k.lr);
        settings.set(k.name, s);
    }
    val induction = val::object();
    induction.set("warmup", mha::kInductionWarmup);
    induction.set("vocab", mha::kInductionVocab), induction.set("probes", mha::kInductionProbes);
    // the offsets task as "Heads, compared" ships it: its architecture and schedule (D and H are the form's)
    const mha::OffsetsSetting& k = mha::kOffsetsSetting;
    val offsets = val::object();
    offsets.set("offsets", std::string(k.offsets)), offsets.set("symbols", k.symbols), offsets.set("nLayers", k.layers);
    offsets.set("mlp", k.mlp), offsets.set("context", k.context), offsets.set("batch", k.batch);
    offsets.set("steps", k.steps), offsets.set("warmup", k.warmup), offsets.set("lr", k.lr), offsets.set("minLr", k.min_lr);
    offsets.set("weightDecay", k.weight_decay), offsets.set("evalEvery", k.eval_every);
    offsets.set("threshold", k.threshold);
    val end_sample = val::object();
    end_sample.set("chars", mha::EndSample::chars), end_sample.set("temperature", mha::EndSample::temperature);

    val r = val::object();
    r.set("limits", limits), r.set("thresholds", thresholds), r.set("divergenceFactor", mha::kDivergenceFactor);
    r.set("variants", strings(variants));
    r.set("tasks", to_js(mha::tasks())), r.set("presets", to_js(mha::presets()));
    r.set("settingFields", to_js(mha::setting_fields()));
    r.set("offsetsSetting", offsets);
    r.set("inductionSettings", settings), r.set("induction", induction), r.set("endSample", end_sample);
    r.set("evalBatches", mha::RunSpec{}.eval_batches), r.set("defaults", to_js(mha::RunSettings{}));
    r.set("pruningThreshold", mha::kPruningThreshold);
    return r;
}

// what a checkpoint file is a model of: { ok, settings (the page's settings with the file's model and task), step }
// or { ok: false, error }
val checkpoint_settings(const val& file, const val& settings) {
    return guarded([&] {
        mha::RunSettings s = run_settings(settings);
        int step = 0;
        return unless_error(mha::settings_of_checkpoint(bytes(file), s, step), [&] {
            val r = ok();
            r.set("settings", to_js(s)), r.set("step", step);
            return r;
        });
    });
}

// settings with every key: those given, the rest at the core's defaults (a preset's settings with the form's D, H
// and seed: { ...constants().presets.offsets.settings, dModel, nHeads, seed }): { ok, settings }
val full_settings(const val& settings) {
    return guarded([&] {
        val r = ok();
        r.set("settings", to_js(run_settings(settings)));
        return r;
    });
}

// the core's verdict on a run's settings, before there is a text: { ok } or { ok: false, error }
val check_run(const val& settings) {
    return guarded([&] {
        mha::RunSpec spec;
        std::string err = mha::to_run_spec(run_settings(settings), spec);
        if (err.empty()) err = mha::validate_setup(spec);
        return unless_error(err, [] { return ok(); });
    });
}

// labels: string[G]; values: number[G][S], one per setting and seed (paired); reference: the index compared with
val compare_over_seeds(const val& labels, const val& values, int reference) {
    return guarded([&] {
        mha::SeedComparison c;
        return unless_error(mha::compare_over_seeds(string_list(labels), number_table(values), reference, c),
                            [&] { return to_js(c); });
    });
}

// variants: string[G], canonical among them; values: number[G][S] (paired); steps: the budget the runs trained for
val compare_variants(const val& variants, const val& values, int steps) {
    return guarded([&] {
        mha::VariantComparison c;
        return unless_error(mha::compare_variants(string_list(variants), number_table(values), steps, c),
                            [&] { return to_js(c); });
    });
}

// labels: string[G]; steps, losses: number[G*S][], each run's evaluation steps and validation losses (setting-major);
// seeds: S; threshold: nats; budget: the runs' steps
val reach_over_seeds(const val& labels, const val& steps, const val& losses, int seeds, double threshold, int budget) {
    return guarded([&] {
        mha::ReachComparison r;
        return unless_error(mha::reach_over_seeds(string_list(labels), number_table(steps), number_table(losses), seeds,
                                                  threshold, budget, r),
                            [&] { return to_js(r); });
    });
}

// losses: number[S][L*H + 1], each seed's pruning curve (a worker's _pruneHeads().loss); threshold: nats
val pruning_over_seeds(int layers, int heads, const val& losses, double threshold) {
    return guarded([&] {
        mha::PruningOverSeeds v;
        return unless_error(mha::pruning_over_seeds(layers, heads, number_table(losses), threshold, v),
                            [&] { return to_js(v); });
    });
}

// series: { step, score, lossFirst, lossRepeat }, number[n] each (a run's induction measurements); threshold: the
// induction score that counts; evalEvery: steps between the measurements
val phase_change(const val& series, double threshold, int eval_every) {
    return guarded([&] {
        mha::PhaseChange p;
        return unless_error(mha::find_phase_change(phase_series(series), threshold, eval_every, p),
                            [&] { return to_js(p); });
    });
}

// ---------------------------------------------------------------- one training run (one per worker)
// The RemoteHalf of a run that a helper worker assists (web/js/helper.js): link is that script's object, whose
// send copies the half and the weights to the helper and whose receive waits for the gradient (null: none came),
// and whose sendEval / receiveEval do the same for the later evaluation batches (receiveEval: false when none came).
// The views it is given are into this module's memory, valid during the call: no step grows the memory.
class LinkedHalf : public mha::RemoteHalf {
public:
    explicit LinkedHalf(val link) : link_(std::move(link)) {}
    void send(const int* x, const int* y, int B, int T, int loss_norm, const float* params, std::size_t P) override {
        const std::size_t n = std::size_t(B) * T;
        link_.call<void>("send", val(emscripten::typed_memory_view(n, x)), val(emscripten::typed_memory_view(n, y)), B,
                         T, loss_norm, val(emscripten::typed_memory_view(P, params)));
    }
    bool receive(float* grads, std::size_t P, double& loss) override {
        const val r = link_.call<val>("receive", val(emscripten::typed_memory_view(P, grads)));
        if (!r.isNumber()) return false;
        loss = r.as<double>();
        return true;
    }
    void send_eval(int first, int count, const float* params, std::size_t P) override {
        link_.call<void>("sendEval", first, count, val(emscripten::typed_memory_view(P, params)));
    }
    bool receive_eval(double* losses, int count) override {
        return link_.call<val>("receiveEval", val(emscripten::typed_memory_view(std::size_t(count), losses))).isTrue();
    }

private:
    val link_;
};

// JS owns each instance and calls .delete(); every method answers { ok: false, error } before _init succeeded
struct RunHandle {
    std::unique_ptr<mha::Run> run;
    std::vector<int> half_x, half_y;  // (B,T) a half batch a helper was sent (half_buffers)

    template <class F>
    val with_run(F&& body) {
        return guarded([&] { return run ? body(*run) : error_value("This run is not set up."); });
    }

    // settings: constants().defaults' keys; text: the training text (char task); checkpoint: Uint8Array or null
    val init(const val& settings, const std::string& text, const val& checkpoint) {
        return guarded([&] {
            run.reset();
            mha::RunSpec spec;
            spec.text = text;
            spec.checkpoint = bytes(checkpoint);
            std::string err = mha::to_run_spec(run_settings(settings), spec);
            bool out_of_memory = false;
            if (err.empty()) err = mha::make_run(spec, run, &out_of_memory);
            // make_run leaves nothing half built, but this module is replaced all the same (marshal.hpp)
            if (out_of_memory) throw std::bad_alloc();
            return unless_error(err, [&] { return to_js(run->facts()); });
        });
    }
    int steps_done() const { return run ? run->steps_done() : 0; }
    val train(int n) { return with_run([&](mha::Run& r) { return to_js(r.train(n)); }); }
    val evaluate() {
        return with_run([](mha::Run& r) {
            val v = ok();
            v.set("loss", r.evaluate());
            return v;
        });
    }
    // only the schedule may change (lr, minLr, steps, warmup); keys left out keep the run's values
    val set_schedule(const val& settings) {
        return with_run([&](mha::Run& r) {
            mha::TrainConfig t;
            const mha::RunSettings now = mha::schedule_settings(r.trainer().train_config());
            std::string err = mha::to_train_config(run_settings(settings, now), t);
            if (err.empty()) err = r.set_schedule(t);
            return unless_error(err, [&] { return to_js(r.facts()); });
        });
    }
    val causality() { return with_run([](mha::Run& r) { return to_js(r.causality()); }); }
    val evaluate_as(const std::string& variant) {
        return with_run([&](mha::Run& r) {
            mha::AttentionVariant v;
            double loss = 0;
            std::string err = mha::to_variant(variant, v);
            if (err.empty()) err = r.evaluate_as(v, loss);
            return unless_error(err, [&] {
                val out = ok();
                out.set("loss", loss), out.set("variant", variant);
                return out;
            });
        });
    }
    val induction() { return with_run([](mha::Run& r) { return to_js(r.measure_induction()); }); }
    // request: { ablate: [[layer, head], ...] }: the same measurement with those heads switched off for it
    val induction_without(const val& request) {
        return with_run([&](mha::Run& r) { return to_js(r.measure_induction_without(head_edits(request).ablate)); });
    }
    val probe_attention() {
        return with_run([](mha::Run& r) {
            val m = to_js(r.probe_attention());
            m.set("segment", r.facts().induction.seg_max);
            return m;
        });
    }
    val trace() { return with_run([](mha::Run& r) { return to_js(r.trace()); }); }
    // each head's importance and the loss with the heads off cumulatively, least important first (the model is put
    // back exactly)
    val prune_heads() {
        return with_run([](mha::Run& r) {
            val out = to_js(r.prune_heads());
            out.set("step", r.steps_done());
            return out;
        });
    }
    val end_sample() {
        return with_run([](mha::Run& r) {
            val out = ok();
            out.set("text", r.end_sample());
            return out;
        });
    }
    // the helper this run's steps send their second half to (helper.js's link), or null: none
    val attach_helper(const val& link) {
        return with_run([&](mha::Run& r) {
            r.set_remote(link.isNull() || link.isUndefined() ? nullptr : std::make_unique<LinkedHalf>(link));
            return ok();
        });
    }
    // a helper's side: { ok, x, y (Int32Array, batch·context), params, grads (Float32Array, P) }, views into this
    // module's memory where the half and the weights are written before half_gradient and its gradient is read
    // after (valid until the memory grows: fetched again for each half)
    val half_buffers() {
        return with_run([&](mha::Run& r) {
            const mha::TrainConfig& t = r.trainer().train_config();
            half_x.resize(std::size_t(t.batch) * t.seq_len), half_y.resize(half_x.size());
            const std::size_t P = r.model().num_params();
            val out = ok();
            out.set("x", val(emscripten::typed_memory_view(half_x.size(), half_x.data())));
            out.set("y", val(emscripten::typed_memory_view(half_y.size(), half_y.data())));
            out.set("params", val(emscripten::typed_memory_view(P, r.model().params())));
            out.set("grads", val(emscripten::typed_memory_view(P, r.model().grads())));
            return out;
        });
    }
    // { ok, loss }: the gradient of the half in half_buffers (B sequences of T) at the weights written there
    val half_gradient(int B, int T, int loss_norm) {
        return with_run([&](mha::Run& r) {
            if (half_x.size() < std::size_t(B) * T || B < 1 || T < 1)
                return error_value("The half batch does not fit this run.");
            val out = ok();
            out.set("loss", r.half_gradient_at(half_x.data(), half_y.data(), B, T, loss_norm, r.model().params(),
                                               r.model().num_params()));
            return out;
        });
    }
    // { ok, losses: Float64Array (count) }: the losses of the run's validation batches [first, first + count) at
    // the weights written into half_buffers' params (a helper's side of the run's evaluation)
    val evaluate_batches(int first, int count) {
        return with_run([&](mha::Run& r) {
            // the count before the allocation; the core checks the range
            if (count < 1 || count > mha::RunLimits::max_eval_batches)
                return error_value("The evaluation batches asked for are not this run's.");
            std::vector<double> losses(std::size_t(count), 0.0);
            r.evaluate_batches_at(first, count, r.model().params(), r.model().num_params(), losses.data());
            val out = ok();
            out.set("losses", copy_out(losses));
            return out;
        });
    }
    // { ok, bytes: Uint8Array (a .safetensors file), step }
    val snapshot(bool with_optimizer) {
        return with_run([&](mha::Run& r) {
            val out = ok();
            out.set("bytes", copy_out(r.snapshot(with_optimizer))), out.set("step", r.steps_done());
            return out;
        });
    }
    val restore(const val& file) {
        return with_run([&](mha::Run& r) {
            const std::vector<std::uint8_t> b = bytes(file);
            return unless_error(r.restore(b.data(), b.size()), [&] { return to_js(r.facts()); });
        });
    }
};

// ---------------------------------------------------------------- looking inside a run's model (one per worker)
struct InspectorHandle {
    std::unique_ptr<mha::Inspector> inspector;

    template <class F>
    val with_inspector(F&& body) {
        return guarded([&] { return inspector ? body(*inspector) : error_value("The inspector is not attached to a run."); });
    }

    // the run's config, vocabulary, validation batches and weights now
    val attach(RunHandle& h) {
        return guarded([&] {
            if (!h.run) return error_value("This run is not set up.");
            inspector = std::make_unique<mha::Inspector>(*h.run);
            return ok();
        });
    }
    val follow(RunHandle& h) {
        return with_inspector([&](mha::Inspector& in) {
            return h.run ? unless_error(in.follow(*h.run), [] { return ok(); }) : error_value("This run is not set up.");
        });
    }
    val load(const val& file) {
        return with_inspector([&](mha::Inspector& in) {
            const std::vector<std::uint8_t> b = bytes(file);
            return unless_error(in.load(b.data(), b.size()), [] { return ok(); });
        });
    }
    // request: { text, ablate: [[layer, head], ...], tie, withLoss }
    val look(const val& request) {
        return with_inspector([&](mha::Inspector& in) {
            const val text = request["text"];
            return to_js(in.look(text.isString() ? text.as<std::string>() : std::string(), head_edits(request),
                                 request["withLoss"].isTrue()));
        });
    }
};

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
    emscripten::function("_checkRun", &check_run);
    emscripten::function("_fullSettings", &full_settings);
    emscripten::function("_checkpointSettings", &checkpoint_settings);
    emscripten::function("_compareOverSeeds", &compare_over_seeds);
    emscripten::function("_compareVariants", &compare_variants);
    emscripten::function("_reachOverSeeds", &reach_over_seeds);
    emscripten::function("_pruningOverSeeds", &pruning_over_seeds);
    emscripten::function("_phaseChange", &phase_change);
    emscripten::function("_lrAt", &mha::lr_at);  // the schedule's learning rate at a step (train/optimizer.hpp)

    emscripten::class_<RunHandle>("Run")
        .constructor<>()
        .function("_init", &RunHandle::init)
        .function("_stepsDone", &RunHandle::steps_done)
        .function("_train", &RunHandle::train)
        .function("_evaluate", &RunHandle::evaluate)
        .function("_setSchedule", &RunHandle::set_schedule)
        .function("_causality", &RunHandle::causality)
        .function("_evaluateAs", &RunHandle::evaluate_as)
        .function("_induction", &RunHandle::induction)
        .function("_inductionWithout", &RunHandle::induction_without)
        .function("_probeAttention", &RunHandle::probe_attention)
        .function("_trace", &RunHandle::trace)
        .function("_pruneHeads", &RunHandle::prune_heads)
        .function("_endSample", &RunHandle::end_sample)
        .function("_snapshot", &RunHandle::snapshot)
        .function("_restore", &RunHandle::restore)
        .function("_attachHelper", &RunHandle::attach_helper)
        .function("_halfBuffers", &RunHandle::half_buffers)
        .function("_halfGradient", &RunHandle::half_gradient)
        .function("_evaluateBatches", &RunHandle::evaluate_batches);

    emscripten::class_<InspectorHandle>("Inspector")
        .constructor<>()
        .function("_attach", &InspectorHandle::attach)
        .function("_follow", &InspectorHandle::follow)
        .function("_load", &InspectorHandle::load)
        .function("_look", &InspectorHandle::look);
}
