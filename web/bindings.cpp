// Embind declarations only: no math here. Every function validates its arguments, catches mha::Error, and
// returns a plain object { ok: true, ... } or { ok: false, error: "message" }, so a bad input on the page
// becomes a sentence, never an abort. Arrays leave as owned copies (typed_memory_view + slice), never as
// live views into the wasm heap, which may move when memory grows.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "attention.hpp"
#include "config.hpp"
#include "demo.hpp"
#include "kernels.hpp"

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
        r.set("head", copy_out(l.head.data(), l.head.size()));
        r.set("lane", copy_out(l.lane.data(), l.lane.size()));
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
        if (!(seed >= 0 && seed <= 4294967295.0)) return error_value("the seed must be a whole number from 0 to 4294967295");
        const mha::AttentionDemo d =
            mha::attention_demo(text, d_model, n_heads, static_cast<std::uint64_t>(seed), order);
        val tokens = val::array();
        for (const auto& t : d.tokens) tokens.call<void>("push", t);
        val r = ok_value();
        r.set("tokens", tokens);
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

}  // namespace

EMSCRIPTEN_BINDINGS(mha_sandbox) {
    emscripten::function("_headLayout", &head_layout);
    emscripten::function("_attentionDemo", &attention_demo);
    emscripten::function("_attentionParams", &attention_params);
    emscripten::function("_simdArch", &simd_arch);
}
