// A pre-LayerNorm GPT (llama2.c's three-part picture: config, weights, run state):
//   x = wte[idx] + wpe[t]
//   L times: x = x + Attn(LN1(x));  x = x + MLP(LN2(x))        (no MLP in attention-only models)
//   logits = LN_f(x) W_lmᵀ + b_lm;  loss = mean cross-entropy
// Parameters, gradients and AdamW moments each live in one flat buffer, described by one table of named
// tensors (PyTorch names and (out,in) layouts, so checkpoints load in PyTorch). Activations live in one flat
// buffer sized on the first forward; later steps of the same or smaller (B,T) allocate nothing.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "config.hpp"

namespace mha {

// How init_weights fills a tensor (GPT-2's scheme). Only the normal kinds draw from the PRNG, in table order.
enum class ParamInit {
    normal,           // N(0, 0.02²): embeddings, projections, lm_head
    residual_normal,  // N(0, (0.02/sqrt(2L))²): the projections that write into the residual stream (attn.o, mlp.proj)
    zeros,            // biases, LayerNorm biases
    ones,             // LayerNorm weights
};

// one named parameter tensor inside the flat buffer
struct TensorSpec {
    std::string name;         // e.g. "blocks.0.attn.q.weight"
    std::vector<int> shape;   // PyTorch shape, e.g. {D, D}
    std::size_t offset = 0;   // into the flat buffer, in elements
    std::size_t size = 0;     // number of elements
    bool decay = false;       // AdamW weight decay applies (matrices and embeddings, not biases or LayerNorm)
    ParamInit init = ParamInit::zeros;  // how init_weights fills it
};

// the parameter table of a config, in the order of the flat buffer
std::vector<TensorSpec> parameter_table(const ModelConfig& c);

// the elements of one activation buffer (Gpt keeps two: the activations and their gradients) for a (B,T) batch of a
// model of config c: what a forward pass at that batch allocates. Counted in 64 bits: under wasm32 a size_t would
// wrap for the sizes a memory check must refuse
std::uint64_t activation_elements(const ModelConfig& c, int B, int T);

template <class S>
class Gpt {
public:
    // throws mha::Error with validate()'s message on a bad config
    explicit Gpt(const ModelConfig& config);

    const ModelConfig& config() const { return cfg_; }
    const std::vector<TensorSpec>& tensors() const { return specs_; }
    std::size_t num_params() const { return params_.size(); }
    S* params() { return params_.data(); }
    const S* params() const { return params_.data(); }
    S* grads() { return grads_.data(); }
    const S* grads() const { return grads_.data(); }
    // the tensor called name (throws if there is none)
    const TensorSpec& spec(const std::string& name) const;
    S* param(const std::string& name) { return params_.data() + spec(name).offset; }
    S* grad(const std::string& name) { return grads_.data() + spec(name).offset; }

    // GPT-2 initialisation from our PRNG, each tensor as its spec's init says (ParamInit): weights N(0, 0.02²),
    // residual projections (attn.o, mlp.proj) N(0, (0.02/sqrt(2L))²), biases 0, LayerNorm weight 1 and bias 0;
    // drawn in table order
    void init_weights(std::uint64_t seed);

    // idx (B,T) token ids in [0,V), T <= max_seq_len; targets (B,T) or null (then no loss, returns 0).
    // Computes logits (B,T,V), probs and every layer's attention (B,H,T,T); returns the mean loss.
    // loss_norm > 0: the loss (and backward's gradient) is the sum over the targets divided by loss_norm, not
    // their count: part of a larger batch's mean (Trainer::step's halves)
    S forward(const int* idx, const int* targets, int B, int T, int loss_norm = 0);
    // Allocates now what a forward and backward of B sequences of T tokens need (activations and their gradients;
    // forward would on its first call): a run sizes them when it is made, so that running out of memory is a
    // set-up failure, never a half-built run that fails at its first step. Nothing when they are there already.
    void reserve(int B, int T);
    // elements of the activation buffer and of its gradient's, whichever is smaller: what the largest (B,T) so far
    // needs (less when an allocation failed half way)
    std::size_t activation_capacity() const { return std::min(act_buf_.size(), dact_buf_.size()); }
    // gradients of the last forward's loss, ACCUMULATED into grads(); call zero_grad() first
    void backward();
    void zero_grad();

    // head ablation: a disabled head's output y_h is replaced by zeros (so W_O sees nothing from it), in
    // forward and backward; all heads start enabled
    void set_head_enabled(int layer, int head, bool enabled);
    bool head_enabled(int layer, int head) const;

    int batch() const { return B_; }
    int seq_len() const { return T_; }
    const S* logits() const { return acts_.logits; }    // (B,T,V) of the last forward
    const S* probs() const { return acts_.probs; }      // (B,T,V)
    const S* losses() const { return acts_.losses; }    // (B,T) per-position loss
    const S* attention(int layer) const;                // (B,H,T,T) of the last forward

private:
    // named views into the parameter (or gradient) buffer for one block
    struct BlockParams {
        S *ln1w, *ln1b, *qw, *qb, *kw, *kb, *vw, *vb, *ow, *ob;
        S *ln2w, *ln2b, *fcw, *fcb, *projw, *projb;  // null in attention-only blocks
    };
    struct Params {
        S *wte, *wpe, *lnfw, *lnfb, *lmw, *lmb;
        std::vector<BlockParams> blocks;
    };
    // named views into the activation (or activation-gradient) buffer for one block
    struct BlockActs {
        S *ln1, *ln1_mean, *ln1_rstd;   // (B,T,D), (B,T), (B,T)
        S *q, *k, *v;                   // (B,T,D), (B,T,Dkv), (B,T,Dkv)
        S *qh, *kh, *vh;                // (B,H,T,hs), (B,Hkv,T,hs), (B,Hkv,T,hs)
        S *att;                         // (B,H,T,T)
        S *yh, *atty, *attproj, *res1;  // (B,H,T,hs), (B,T,D), (B,T,D), (B,T,D)
        S *xh;                          // (H,B,T,hs) the input's head slices (split_input variant only)
        S *ln2, *ln2_mean, *ln2_rstd;   // (B,T,D), (B,T), (B,T)
        S *fch, *fch_gelu, *fcproj;     // (B,T,4D), (B,T,4D), (B,T,D)
        S *gelu_grad;                   // (B,T,4D) gelu'(fch), kept by forward for backward
        S *res2;                        // (B,T,D)
        S* out() const { return res2 ? res2 : res1; }
    };
    struct Acts {
        S* encoded;                     // (B,T,D)
        std::vector<BlockActs> blocks;
        S *lnf, *lnf_mean, *lnf_rstd;   // (B,T,D), (B,T), (B,T)
        S *logits, *probs, *losses;     // (B,T,V), (B,T,V), (B,T)
    };

    Params param_views(S* base) const;
    void zero_activation_grads(int B, int T);
    // the attention variants' pieces (DESIGN.md §4): ln1 -> qh, kh, vh and yh -> attproj, with their backward
    S attention_scale() const;
    void project_heads_forward(const BlockParams& w, BlockActs& b, int B, int T);
    void project_heads_backward(const BlockParams& w, BlockParams& gw, const BlockActs& b, BlockActs& db, int B, int T);
    void combine_heads_forward(const BlockParams& w, BlockActs& b, int B, int T);
    void combine_heads_backward(const BlockParams& w, BlockParams& gw, const BlockActs& b, BlockActs& db, int B, int T);
    // lays the activations of a (B,T) batch of a model of config cfg out in base (null: only counts); returns the
    // number of elements used
    static std::uint64_t act_views(const ModelConfig& cfg, S* base, int B, int T, Acts& out);
    friend std::uint64_t activation_elements(const ModelConfig& c, int B, int T);

    ModelConfig cfg_;
    std::vector<TensorSpec> specs_;
    std::vector<S> params_, grads_;
    Params p_, g_;
    std::vector<S> act_buf_, dact_buf_;
    Acts acts_{}, dacts_{};
    std::vector<int> idx_, targets_;  // (B,T) copies for backward
    std::vector<unsigned char> head_enabled_;  // (L,H) 1 = enabled
    int B_ = 0, T_ = 0;
    bool has_targets_ = false;
    int loss_norm_ = 0;               // the last forward's loss_norm, for backward
};

// "Force all heads to the same weights": copies the Q/K/V projection rows (weights and biases) of source_head
// in layer to every head of that layer (key/value heads: the source's group). Afterwards every head computes
// the same attention pattern; W_O is left alone. Follows the variant's head layout (canonical rows h*hs.., swapped
// rows i*H+h, per-head tensors); a no-op for tied_heads; throws for the missing-transpose variants.
template <class S>
void tie_heads(Gpt<S>& model, int layer, int source_head);

extern template class Gpt<float>;
extern template class Gpt<double>;

}  // namespace mha
