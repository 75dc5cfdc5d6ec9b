#include "model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "attention.hpp"
#include "error.hpp"
#include "layers.hpp"
#include "profile.hpp"
#include "prng.hpp"

namespace mha {

// ---------------------------------------------------------------- the parameter table
std::vector<TensorSpec> parameter_table(const ModelConfig& c) {
    const int V = c.vocab_size, D = c.d_model, Dkv = c.kv_heads() * c.head_dim(), F = 4 * c.d_model;
    const VariantTraits var = c.traits();
    std::vector<TensorSpec> t;
    auto add = [&](std::string name, std::vector<int> shape, bool decay, ParamInit init) {
        TensorSpec s{std::move(name), std::move(shape), 0, 1, decay, init};
        for (int d : s.shape) s.size *= static_cast<std::size_t>(d);
        s.offset = t.empty() ? 0 : t.back().offset + t.back().size;
        t.push_back(std::move(s));
    };
    // the kinds of tensor: each with its initialisation, and AdamW decays the matrices only
    auto weight = [&](std::string name, int out, int in) { add(std::move(name), {out, in}, true, ParamInit::normal); };
    auto residual = [&](std::string name, int out, int in) {  // writes into the residual stream
        add(std::move(name), {out, in}, true, ParamInit::residual_normal);
    };
    auto bias = [&](std::string name, int n) { add(std::move(name), {n}, false, ParamInit::zeros); };
    auto layernorm = [&](const std::string& name) {
        add(name + ".weight", {D}, false, ParamInit::ones);
        add(name + ".bias", {D}, false, ParamInit::zeros);
    };
    weight("wte", V, D);
    weight("wpe", c.max_seq_len, D);
    for (int l = 0; l < c.n_layers; ++l) {
        const std::string b = "blocks." + std::to_string(l) + ".";
        layernorm(b + "ln1");
        const int hs = c.head_dim(), H = c.n_heads;
        if (var.per_head_proj) {
            // H separate (hs,K) projections per role: of the whole input (K = D) or of its slice (K = hs)
            const int K = var.split_input ? hs : D;
            for (const char* role : {"q", "k", "v"}) {
                // all weights of a role, then all its biases: stacked they are one (H*hs, K) matrix and one
                // (H*hs) vector, the very memory of the fused projection
                for (int h = 0; h < H; ++h) weight(b + "attn." + role + "." + std::to_string(h) + ".weight", hs, K);
                for (int h = 0; h < H; ++h) bias(b + "attn." + role + "." + std::to_string(h) + ".bias", hs);
            }
        } else if (var.shared_qkv) {
            for (const char* role : {"q", "k", "v"}) {  // one (hs,D) projection per role, shared by every head
                weight(b + "attn." + role + ".weight", hs, D);
                bias(b + "attn." + role + ".bias", hs);
            }
        } else {
            weight(b + "attn.q.weight", D, D);
            bias(b + "attn.q.bias", D);
            weight(b + "attn.k.weight", Dkv, D);
            bias(b + "attn.k.bias", Dkv);
            weight(b + "attn.v.weight", Dkv, D);
            bias(b + "attn.v.bias", Dkv);
        }
        if (var.has_wo) {
            residual(b + "attn.o.weight", D, D);
            bias(b + "attn.o.bias", D);
        }
        if (c.mlp) {
            layernorm(b + "ln2");
            weight(b + "mlp.fc.weight", F, D);
            bias(b + "mlp.fc.bias", F);
            residual(b + "mlp.proj.weight", D, F);
            bias(b + "mlp.proj.bias", D);
        }
    }
    layernorm("ln_f");
    weight("lm_head.weight", V, D);
    bias("lm_head.bias", V);
    return t;
}

// ---------------------------------------------------------------- construction and views
template <class S>
Gpt<S>::Gpt(const ModelConfig& config) : cfg_(config) {
    const std::string err = validate(cfg_);
    throw_if_invalid(err);
    specs_ = parameter_table(cfg_);
    const std::size_t n = specs_.back().offset + specs_.back().size;
    params_.assign(n, S(0));
    grads_.assign(n, S(0));
    p_ = param_views(params_.data());
    g_ = param_views(grads_.data());
    head_enabled_.assign(std::size_t(cfg_.n_layers) * cfg_.n_heads, 1);
}

template <class S>
void Gpt<S>::set_head_enabled(int layer, int head, bool enabled) {
    MHA_CHECK(layer >= 0 && layer < cfg_.n_layers && head >= 0 && head < cfg_.n_heads, "no such layer or head");
    head_enabled_[std::size_t(layer) * cfg_.n_heads + head] = enabled;
}

template <class S>
bool Gpt<S>::head_enabled(int layer, int head) const {
    MHA_CHECK(layer >= 0 && layer < cfg_.n_layers && head >= 0 && head < cfg_.n_heads, "no such layer or head");
    return head_enabled_[std::size_t(layer) * cfg_.n_heads + head] != 0;
}

// zeroes the (T,hs) slices of y (B,H,T,hs), or (B,T,D) with HeadsAt::tokens, that belong to disabled heads of layer
template <class S>
static void zero_disabled_heads(S* y, const unsigned char* enabled, int B, int H, int T, int hs, HeadsAt at) {
    const int ld = at == HeadsAt::tokens ? H * hs : hs;  // a head's rows are ld apart
    for (int h = 0; h < H; ++h)
        if (!enabled[h])
            for (int b = 0; b < B; ++b)
                for (int t = 0; t < T; ++t) {
                    S* y_bht = y + head_offset(at, b, h, H, T, hs) + std::size_t(t) * ld;
                    std::fill(y_bht, y_bht + hs, S(0));
                }
}

// Where attention finds the heads: in the (B,T,D) projections themselves (HeadsAt::tokens) when the split is the
// canonical view(B,T,H,hs) of one fused projection per role with H key/value heads, so no split or merge copy is
// needed; the variants that change the split or the projections, and GQA/MQA, keep the (B,H,T,hs) copies.
static HeadsAt heads_at(const ModelConfig& c) {
    const VariantTraits v = c.traits();
    const bool in_place = v.order == HeadOrder::canonical && !v.flat_split && !v.flat_merge && !v.per_head_proj &&
                          !v.split_input && !v.shared_qkv && c.kv_heads() == c.n_heads;
    return in_place ? HeadsAt::tokens : HeadsAt::heads;
}

template <class S>
void tie_heads(Gpt<S>& model, int layer, int source_head) {
    const ModelConfig& c = model.config();
    MHA_CHECK(layer >= 0 && layer < c.n_layers && source_head >= 0 && source_head < c.n_heads, "no such layer or head");
    const VariantTraits var = c.traits();
    if (var.shared_qkv) return;  // already one set of weights for all heads
    if (var.flat_split || var.flat_merge)
        throw Error("tying heads is not defined for a model without the transpose: its 'heads' are not channel groups");
    const int D = c.d_model, hs = c.head_dim(), H = c.n_heads, Hkv = c.kv_heads();
    const int K = var.split_input ? hs : D;  // length of one weight row
    const char* first = var.per_head_proj ? ".0." : ".";  // per-head tensors: head 0's, the rest follow in memory
    const std::string b = "blocks." + std::to_string(layer) + ".attn.";
    // every head's rows := the source head's rows, in a (heads*hs, K) weight and its (heads*hs) bias
    auto copy_rows = [&](const char* role, int heads, int src) {
        S* w = model.param(b + role + first + "weight");
        S* bias = model.param(b + role + first + "bias");
        for (int h = 0; h < heads; ++h)
            for (int i = 0; i < hs; ++i) {
                const int from = head_channel(src, i, heads, hs, var.order);
                const int to = head_channel(h, i, heads, hs, var.order);
                if (from == to) continue;
                std::copy(w + std::size_t(from) * K, w + std::size_t(from + 1) * K, w + std::size_t(to) * K);
                bias[to] = bias[from];
            }
    };
    copy_rows("q", H, source_head);
    copy_rows("k", Hkv, source_head / (H / Hkv));
    copy_rows("v", Hkv, source_head / (H / Hkv));
}
template void tie_heads(Gpt<float>&, int, int);
template void tie_heads(Gpt<double>&, int, int);

template <class S>
const TensorSpec& Gpt<S>::spec(const std::string& name) const {
    for (const auto& s : specs_)
        if (s.name == name) return s;
    fail(__FILE__, __LINE__, "no parameter named '" + name + "'");
}

template <class S>
typename Gpt<S>::Params Gpt<S>::param_views(S* base) const {
    auto at = [&](const std::string& name) { return base + spec(name).offset; };
    Params p;
    p.wte = at("wte");
    p.wpe = at("wpe");
    for (int l = 0; l < cfg_.n_layers; ++l) {
        const std::string b = "blocks." + std::to_string(l) + ".";
        BlockParams bp{};
        bp.ln1w = at(b + "ln1.weight"), bp.ln1b = at(b + "ln1.bias");
        // per-head variants: the first head's tensor; the others follow it in memory (see parameter_table)
        const bool per_head = cfg_.traits().per_head_proj;
        auto role = [&](const char* r, const char* kind) {
            return at(b + "attn." + r + (per_head ? ".0." : ".") + kind);
        };
        bp.qw = role("q", "weight"), bp.qb = role("q", "bias");
        bp.kw = role("k", "weight"), bp.kb = role("k", "bias");
        bp.vw = role("v", "weight"), bp.vb = role("v", "bias");
        if (cfg_.traits().has_wo) bp.ow = at(b + "attn.o.weight"), bp.ob = at(b + "attn.o.bias");
        if (cfg_.mlp) {
            bp.ln2w = at(b + "ln2.weight"), bp.ln2b = at(b + "ln2.bias");
            bp.fcw = at(b + "mlp.fc.weight"), bp.fcb = at(b + "mlp.fc.bias");
            bp.projw = at(b + "mlp.proj.weight"), bp.projb = at(b + "mlp.proj.bias");
        }
        p.blocks.push_back(bp);
    }
    p.lnfw = at("ln_f.weight");
    p.lnfb = at("ln_f.bias");
    p.lmw = at("lm_head.weight");
    p.lmb = at("lm_head.bias");
    return p;
}

template <class S>
std::uint64_t Gpt<S>::act_views(const ModelConfig& cfg, S* base, int B, int T, Acts& a) {
    const std::uint64_t BT = std::uint64_t(B) * T, D = cfg.d_model, V = cfg.vocab_size, H = cfg.n_heads;
    const std::uint64_t Dkv = std::uint64_t(cfg.kv_heads()) * cfg.head_dim(), F = 4 * D;
    std::uint64_t used = 0;
    // base may be null: then this only counts
    auto take = [&](std::uint64_t n) {
        S* p = base ? base + static_cast<std::size_t>(used) : nullptr;
        used += n;
        return p;
    };
    a.encoded = take(BT * D);
    a.blocks.assign(cfg.n_layers, BlockActs{});
    for (auto& b : a.blocks) {
        b.ln1 = take(BT * D), b.ln1_mean = take(BT), b.ln1_rstd = take(BT);
        b.q = take(BT * D), b.k = take(BT * Dkv), b.v = take(BT * Dkv);
        b.qh = take(BT * D), b.kh = take(BT * Dkv), b.vh = take(BT * Dkv);
        b.att = take(std::uint64_t(B) * H * T * T);
        b.yh = take(BT * D), b.atty = take(BT * D), b.attproj = take(BT * D), b.res1 = take(BT * D);
        if (cfg.traits().split_input) b.xh = take(BT * D);
        if (cfg.mlp) {
            b.ln2 = take(BT * D), b.ln2_mean = take(BT), b.ln2_rstd = take(BT);
            b.fch = take(BT * F), b.fch_gelu = take(BT * F), b.fcproj = take(BT * D), b.res2 = take(BT * D);
            b.gelu_grad = take(BT * F);
        }
    }
    a.lnf = take(BT * D), a.lnf_mean = take(BT), a.lnf_rstd = take(BT);
    a.logits = take(BT * V), a.probs = take(BT * V), a.losses = take(BT);
    return used;
}

std::uint64_t activation_elements(const ModelConfig& c, int B, int T) {
    Gpt<float>::Acts counted;
    return Gpt<float>::act_views(c, nullptr, B, T, counted);
}

template <class S>
void Gpt<S>::init_weights(std::uint64_t seed) {
    Rng rng(seed);
    const double std_w = 0.02, std_proj = 0.02 / std::sqrt(2.0 * cfg_.n_layers);
    for (const auto& s : specs_) {
        S* w = params_.data() + s.offset;
        switch (s.init) {
            case ParamInit::zeros: std::fill(w, w + s.size, S(0)); break;
            case ParamInit::ones: std::fill(w, w + s.size, S(1)); break;
            case ParamInit::normal:
            case ParamInit::residual_normal: {
                const double std = s.init == ParamInit::residual_normal ? std_proj : std_w;
                for (std::size_t i = 0; i < s.size; ++i) w[i] = static_cast<S>(rng.normal() * std);
                break;
            }
        }
    }
}

template <class S>
const S* Gpt<S>::attention(int layer) const {
    MHA_CHECK(layer >= 0 && layer < cfg_.n_layers, "layer out of range");
    MHA_CHECK(B_ > 0, "no forward pass yet");
    return acts_.blocks[layer].att;
}

// ---------------------------------------------------------------- the attention variants' pieces
template <class S>
S Gpt<S>::attention_scale() const {
    const int n = cfg_.traits().scale_by_d_model ? cfg_.d_model : cfg_.head_dim();
    return S(1) / std::sqrt(S(n));
}

// ln1 (B,T,D) -> qh, kh (B,H,T,hs) and vh, the way the variant projects and splits
template <class S>
void Gpt<S>::project_heads_forward(const BlockParams& w, BlockActs& b, int B, int T) {
    const VariantTraits var = cfg_.traits();
    const int D = cfg_.d_model, H = cfg_.n_heads, Hkv = cfg_.kv_heads(), hs = cfg_.head_dim(), Dkv = Hkv * hs, BT = B * T;
    S* heads[3] = {b.qh, b.kh, b.vh};
    S* tmp[3] = {b.q, b.k, b.v};
    const S* W[3] = {w.qw, w.kw, w.vw};
    const S* bias[3] = {w.qb, w.kb, w.vb};
    if (var.per_head_proj) {
        const bool split = var.split_input;
        const int K = split ? hs : D;
        if (split) split_input_heads(b.xh, b.ln1, BT, H, hs);  // (H,BT,hs)
        for (int r = 0; r < 3; ++r) {
            for (int h = 0; h < H; ++h)  // tmp (H,BT,hs): one small matmul per head
                linear_forward(tmp[r] + std::size_t(h) * BT * hs, split ? b.xh + std::size_t(h) * BT * hs : b.ln1,
                               W[r] + std::size_t(h) * hs * K, bias[r] + h * hs, BT, K, hs);
            head_major_to_heads(heads[r], tmp[r], B, H, T, hs);
        }
    } else if (var.shared_qkv) {
        for (int r = 0; r < 3; ++r) {
            linear_forward(tmp[r], b.ln1, W[r], bias[r], BT, D, hs);  // (BT,hs), once for all heads
            broadcast_heads(heads[r], tmp[r], B, H, T, hs);
        }
    } else {
        for (int r = 0; r < 3; ++r) {
            const int n_heads = r == 0 ? H : Hkv, width = r == 0 ? D : Dkv;
            linear_forward(tmp[r], b.ln1, W[r], bias[r], BT, D, width);
            if (var.flat_split)
                reinterpret_forward(heads[r], tmp[r], std::size_t(BT) * width);  // view(B,H,T,hs): the bug
            else if (heads_at(cfg_) == HeadsAt::heads)  // else attention reads its heads from tmp[r] in place
                split_heads(heads[r], tmp[r], B, T, n_heads, hs, var.order);
        }
    }
}

template <class S>
void Gpt<S>::project_heads_backward(const BlockParams& w, BlockParams& gw, const BlockActs& b, BlockActs& db, int B,
                                    int T) {
    const VariantTraits var = cfg_.traits();
    const int D = cfg_.d_model, H = cfg_.n_heads, Hkv = cfg_.kv_heads(), hs = cfg_.head_dim(), Dkv = Hkv * hs, BT = B * T;
    const S* dheads[3] = {db.qh, db.kh, db.vh};
    S* dtmp[3] = {db.q, db.k, db.v};
    const S* W[3] = {w.qw, w.kw, w.vw};
    S* dW[3] = {gw.qw, gw.kw, gw.vw};
    S* dbias[3] = {gw.qb, gw.kb, gw.vb};
    if (var.per_head_proj) {
        const bool split = var.split_input;
        const int K = split ? hs : D;
        for (int r = 0; r < 3; ++r) {
            head_major_to_heads_backward(dtmp[r], dheads[r], B, H, T, hs);
            for (int h = 0; h < H; ++h) {
                const std::size_t off = std::size_t(h) * BT * hs;
                linear_backward(split ? db.xh + off : db.ln1, dW[r] + std::size_t(h) * hs * K, dbias[r] + h * hs,
                                dtmp[r] + off, split ? b.xh + off : b.ln1, W[r] + std::size_t(h) * hs * K, BT, K, hs);
            }
        }
        if (split) split_input_heads_backward(db.ln1, db.xh, BT, H, hs);
    } else if (var.shared_qkv) {
        for (int r = 0; r < 3; ++r) {
            broadcast_heads_backward(dtmp[r], dheads[r], B, H, T, hs);  // every head's gradient reaches the shared one
            linear_backward(db.ln1, dW[r], dbias[r], dtmp[r], b.ln1, W[r], BT, D, hs);
        }
    } else {
        for (int r = 0; r < 3; ++r) {
            const int n_heads = r == 0 ? H : Hkv, width = r == 0 ? D : Dkv;
            if (var.flat_split)
                reinterpret_backward(dtmp[r], dheads[r], std::size_t(BT) * width);
            else if (heads_at(cfg_) == HeadsAt::heads)  // else attention_backward wrote dtmp[r] itself
                split_heads_backward(dtmp[r], dheads[r], B, T, n_heads, hs, var.order);
            // the first writes d(ln1) (see zero_activation_grads), the other two add
            linear_backward(db.ln1, dW[r], dbias[r], dtmp[r], b.ln1, W[r], BT, D, width, r == 0 ? Dinp::write : Dinp::add);
        }
    }
}

// yh (B,H,T,hs) -> atty (B,T,D) (the merge) -> attproj (B,T,D) (W_O, or a copy when the variant has none)
template <class S>
void Gpt<S>::combine_heads_forward(const BlockParams& w, BlockActs& b, int B, int T) {
    const VariantTraits var = cfg_.traits();
    const int D = cfg_.d_model, H = cfg_.n_heads, hs = cfg_.head_dim(), BT = B * T;
    if (var.flat_merge)
        reinterpret_forward(b.atty, b.yh, std::size_t(BT) * D);  // view(B,T,D) without transpose(1,2): the bug
    else if (heads_at(cfg_) == HeadsAt::heads)  // else attention wrote atty itself
        merge_heads(b.atty, b.yh, B, T, H, hs, var.order);
    if (var.has_wo) linear_forward(b.attproj, b.atty, w.ow, w.ob, BT, D, D);
    else std::copy(b.atty, b.atty + std::size_t(BT) * D, b.attproj);
}

template <class S>
void Gpt<S>::combine_heads_backward(const BlockParams& w, BlockParams& gw, const BlockActs& b, BlockActs& db, int B,
                                    int T) {
    const VariantTraits var = cfg_.traits();
    const int D = cfg_.d_model, H = cfg_.n_heads, hs = cfg_.head_dim(), BT = B * T;
    if (var.has_wo) linear_backward(db.atty, gw.ow, gw.ob, db.attproj, b.atty, w.ow, BT, D, D, Dinp::write);
    else reinterpret_backward(db.atty, db.attproj, std::size_t(BT) * D);
    if (var.flat_merge)
        reinterpret_backward(db.yh, db.atty, std::size_t(BT) * D);
    else if (heads_at(cfg_) == HeadsAt::heads)  // else attention_backward reads db.atty itself
        merge_heads_backward(db.yh, db.atty, B, T, H, hs, var.order);
}

// ---------------------------------------------------------------- forward
template <class S>
void Gpt<S>::reserve(int B, int T) {
    MHA_CHECK(B >= 1 && T >= 1 && T <= cfg_.max_seq_len,
              "sequence length " + std::to_string(T) + " is outside 1.." + std::to_string(cfg_.max_seq_len));
    Acts counted;
    // a batch the set-up accepted fits (run.hpp kRunMemoryLimit), so its count fits a size_t too
    const std::size_t need = static_cast<std::size_t>(act_views(cfg_, nullptr, B, T, counted));
    // each buffer is checked on its own: when an allocation fails after an earlier one succeeded (the activations
    // grew, their gradients did not), a later call must still grow the one that did not
    if (need > act_buf_.size() || need > dact_buf_.size()) {
        // the views point into the buffers about to move: forward lays them out again, also when an allocation
        // below fails
        B_ = T_ = 0;
        if (need > act_buf_.size()) act_buf_.assign(need, S(0));
        if (need > dact_buf_.size()) dact_buf_.assign(need, S(0));
    }
    const std::size_t BT = std::size_t(B) * std::size_t(T);
    if (idx_.size() < BT) idx_.resize(BT);
    if (targets_.size() < BT) targets_.resize(BT);
}

template <class S>
S Gpt<S>::forward(const int* idx, const int* targets, int B, int T, int loss_norm) {
    const int V = cfg_.vocab_size, D = cfg_.d_model, H = cfg_.n_heads, Hkv = cfg_.kv_heads();
    const int hs = cfg_.head_dim(), F = 4 * D, BT = B * T;
    // checks B and T; allocates only when this batch needs more room than any before
    reserve(B, T);
    for (int i = 0; i < BT; ++i) {
        MHA_CHECK(idx[i] >= 0 && idx[i] < V, "token id outside the vocabulary");
        if (targets) MHA_CHECK(targets[i] >= -1 && targets[i] < V, "target id outside the vocabulary");
    }
    // (re)lay out the activations in their buffers for this (B,T)
    if (B != B_ || T != T_) {
        act_views(cfg_, act_buf_.data(), B, T, acts_);
        act_views(cfg_, dact_buf_.data(), B, T, dacts_);
        // the residual stream's gradient is one buffer (see backward); the slots act_views gave these stay unused
        for (BlockActs& db : dacts_.blocks) {
            db.attproj = db.res1 = dacts_.encoded;
            if (cfg_.mlp) db.fcproj = db.res2 = dacts_.encoded;
        }
        B_ = B, T_ = T;
    }
    std::copy(idx, idx + BT, idx_.begin());
    has_targets_ = targets != nullptr;
    loss_norm_ = loss_norm;
    if (targets) std::copy(targets, targets + BT, targets_.begin());
    else std::fill(targets_.begin(), targets_.begin() + BT, -1);

    const S scale = attention_scale();
    const HeadsAt at = heads_at(cfg_);
    const bool in_place = at == HeadsAt::tokens;  // the heads are read from q, k, v and written to atty
    Acts& a = acts_;
    ProfileLap lap("embedding");  // one lap per op kind: profile.hpp
    encoder_forward(a.encoded, idx, p_.wte, p_.wpe, B, T, D);
    const S* x = a.encoded;  // the residual stream (B,T,D)
    for (int l = 0; l < cfg_.n_layers; ++l) {
        const BlockParams& w = p_.blocks[l];
        BlockActs& b = a.blocks[l];
        lap("layernorm");
        layernorm_forward(b.ln1, b.ln1_mean, b.ln1_rstd, x, w.ln1w, w.ln1b, BT, D);
        lap("qkv");
        project_heads_forward(w, b, B, T);
        lap("attention");
        S* y = in_place ? b.atty : b.yh;
        attention_forward(y, b.att, in_place ? b.q : b.qh, in_place ? b.k : b.kh, in_place ? b.v : b.vh, B, H, Hkv,
                          T, hs, scale, at);
        lap("zeroing, copies");
        zero_disabled_heads(y, &head_enabled_[std::size_t(l) * H], B, H, T, hs, at);
        lap("out-proj");
        combine_heads_forward(w, b, B, T);
        lap("residual");
        residual_forward(b.res1, x, b.attproj, BT * D);
        if (cfg_.mlp) {
            lap("layernorm");
            layernorm_forward(b.ln2, b.ln2_mean, b.ln2_rstd, b.res1, w.ln2w, w.ln2b, BT, D);
            lap("mlp.fc");
            linear_forward(b.fch, b.ln2, w.fcw, w.fcb, BT, D, F);
            lap("gelu");
            gelu_forward_keep_grad(b.fch_gelu, b.gelu_grad, b.fch, BT * F);  // gelu' for backward
            lap("mlp.proj");
            linear_forward(b.fcproj, b.fch_gelu, w.projw, w.projb, BT, F, D);
            lap("residual");
            residual_forward(b.res2, b.res1, b.fcproj, BT * D);
        }
        x = b.out();
    }
    lap("layernorm");
    layernorm_forward(a.lnf, a.lnf_mean, a.lnf_rstd, x, p_.lnfw, p_.lnfb, BT, D);
    lap("lm_head");
    linear_forward(a.logits, a.lnf, p_.lmw, p_.lmb, BT, D, V);
    lap("cross-entropy");
    return crossentropy_forward(a.probs, a.losses, a.logits, targets_.data(), BT, V, loss_norm_);
}

// ---------------------------------------------------------------- backward
// whether the first of the three q/k/v projections' backward writes d(ln1) (Dinp::write) instead of adding onto
// zeros: one (D,D)-shaped projection per role, not per-head or shared ones (project_heads_backward)
static bool qkv_backward_writes_ln1(const VariantTraits& v) {
    return !v.per_head_proj && !v.shared_qkv;
}

// Zeroes the activation gradients that backward accumulates into. Left alone: the att slot (B,H,T,T), which
// attention_backward uses as scratch and overwrites, the mean/rstd/probs/losses slots, which have no gradient,
// and the gradients whose first writer writes: qh, kh and vh, or q, k and v when the heads are read in place
// (attention_backward), and logits, lnf, the residual stream (encoded, res1, res2, attproj, fcproj: one buffer),
// fch and ln2 (Dinp::write in backward); atty when W_O's backward writes it, ln1 when the q projection's
// does (qkv_backward_writes_ln1); yh when the heads are read in place (backward never touches it then); and
// fch_gelu, whose slot backward never uses (mlp.proj's backward writes d(fch) itself). At H = 8 the att slot is
// the largest buffer of all.
template <class S>
void Gpt<S>::zero_activation_grads(int B, int T) {
    const std::size_t BT = std::size_t(B) * T, D = cfg_.d_model;
    const std::size_t Dkv = std::size_t(cfg_.kv_heads()) * cfg_.head_dim();
    auto zero = [](S* p, std::size_t n) {
        if (p) std::fill(p, p + n, S(0));
    };
    Acts& d = dacts_;
    const VariantTraits var = cfg_.traits();
    const bool heads_in_place = heads_at(cfg_) == HeadsAt::tokens;
    for (BlockActs& b : d.blocks) {
        if (!qkv_backward_writes_ln1(var)) zero(b.ln1, BT * D);
        if (!heads_in_place) zero(b.yh, BT * D);
        if (!var.has_wo) zero(b.atty, BT * D);
        zero(b.xh, BT * D);
        if (!heads_in_place)  // else attention_backward writes q, k, v first, as it writes qh, kh, vh otherwise
            zero(b.q, BT * D), zero(b.k, BT * Dkv), zero(b.v, BT * Dkv);
    }
}

template <class S>
void Gpt<S>::zero_grad() {
    std::fill(grads_.begin(), grads_.end(), S(0));
}

template <class S>
void Gpt<S>::backward() {
    MHA_CHECK(B_ > 0 && has_targets_, "backward() needs a forward pass with targets first");
    const int B = B_, T = T_, V = cfg_.vocab_size, D = cfg_.d_model, H = cfg_.n_heads, Hkv = cfg_.kv_heads();
    const int hs = cfg_.head_dim(), F = 4 * D, BT = B * T;
    const S scale = attention_scale();
    const HeadsAt at = heads_at(cfg_);
    const bool in_place = at == HeadsAt::tokens;  // as forward: no split or merge copies
    const Acts& a = acts_;
    Acts& d = dacts_;
    ProfileLap lap("zeroing, copies");  // one lap per op kind: profile.hpp
    zero_activation_grads(B, T);  // activation grads accumulate too (but not the scratch and statistics slots)

    // Dinp::write: the first writer of a buffer writes it (see zero_activation_grads)
    lap("cross-entropy");
    crossentropy_backward(d.logits, a.probs, targets_.data(), BT, V, Dinp::write, loss_norm_);
    lap("lm_head");
    linear_backward(d.lnf, g_.lmw, g_.lmb, d.logits, a.lnf, p_.lmw, BT, D, V, Dinp::write);
    const int L = cfg_.n_layers;
    const S* x_last = a.blocks[L - 1].out();
    // The residual stream's gradient dres is one (B,T,D) buffer (forward's views alias it): forward was
    // res1 = x + attproj and res2 = res1 + fcproj, so dfcproj = dres2 and dattproj = dres1 are the buffer as it
    // stands when mlp.proj and W_O read it, and dres1 = dres2 + (ln2's part), dx = dres1 + (ln1's part) are the
    // LayerNorm backwards adding into it in place. Walking down it holds dres2 of the last block, then its dres1,
    // then dres2 of the block below, ..., then d(encoded): no residual pass, no copy, no zeroing.
    S* dres = d.encoded;
    lap("layernorm");
    layernorm_backward(dres, g_.lnfw, g_.lnfb, d.lnf, x_last, p_.lnfw, a.lnf_mean, a.lnf_rstd, BT, D, Dinp::write);
    for (int l = L - 1; l >= 0; --l) {
        const BlockParams& w = p_.blocks[l];
        BlockParams& gw = g_.blocks[l];
        const BlockActs& b = a.blocks[l];
        BlockActs& db = d.blocks[l];
        const S* x = l == 0 ? a.encoded : a.blocks[l - 1].out();  // this block's input
        if (cfg_.mlp) {
            lap("mlp.proj");  // dout = dfcproj = dres2; its dinp times gelu' is d(fch), the GELU's backward
            linear_backward_into_gelu(db.fch, b.gelu_grad, gw.projw, gw.projb, db.fcproj, b.fch_gelu, w.projw, BT, F,
                                      D);
            lap("mlp.fc");
            linear_backward(db.ln2, gw.fcw, gw.fcb, db.fch, b.ln2, w.fcw, BT, D, F, Dinp::write);
            lap("layernorm");  // dres2 -> dres1
            layernorm_backward(dres, gw.ln2w, gw.ln2b, db.ln2, b.res1, w.ln2w, b.ln2_mean, b.ln2_rstd, BT, D, Dinp::add);
        }
        lap("out-proj");  // dout = dattproj = dres1
        combine_heads_backward(w, gw, b, db, B, T);
        lap("zeroing, copies");
        S* dy = in_place ? db.atty : db.yh;
        zero_disabled_heads(dy, &head_enabled_[std::size_t(l) * H], B, H, T, hs, at);  // forward was: y_h = 0
        // db.att, the unused gradient slot of att (B,H,T,T), serves as the (T,T) scratch of attention_backward
        lap("attention");
        if (in_place)
            attention_backward(db.q, db.k, db.v, db.att, dy, b.att, b.q, b.k, b.v, B, H, Hkv, T, hs, scale, at);
        else
            attention_backward(db.qh, db.kh, db.vh, db.att, dy, b.att, b.qh, b.kh, b.vh, B, H, Hkv, T, hs, scale);
        lap("qkv");
        project_heads_backward(w, gw, b, db, B, T);
        lap("layernorm");  // dres1 -> dx, the gradient of this block's input
        layernorm_backward(dres, gw.ln1w, gw.ln1b, db.ln1, x, w.ln1w, b.ln1_mean, b.ln1_rstd, BT, D, Dinp::add);
    }
    lap("embedding");
    encoder_backward(g_.wte, g_.wpe, d.encoded, idx_.data(), B, T, D);
}

template class Gpt<float>;
template class Gpt<double>;

}  // namespace mha
