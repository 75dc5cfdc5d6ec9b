// AdamW with decoupled weight decay, global gradient-norm clipping, and the learning-rate schedule.
// Matches torch.optim.AdamW and torch.nn.utils.clip_grad_norm_ (tests compare against PyTorch's numbers).
// https://pytorch.org/docs/stable/generated/torch.optim.AdamW.html
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "kernels.hpp"

namespace mha {

struct AdamWConfig {
    double lr = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.95;
    double eps = 1e-8;
    double weight_decay = 0.1;  // applied only to tensors marked decay (matrices and embeddings)
};

// one AdamW step (t counts from 1) on n elements of one tensor:
//   p ← p (1 − lr·wd);  m ← β1 m + (1−β1) g;  v ← β2 v + (1−β2) g²;
//   p ← p − lr/(1−β1^t) · m / (sqrt(v)/sqrt(1−β2^t) + eps)
template <class S>
void adamw_update(S* p, const S* g, S* m, S* v, std::size_t n, const AdamWConfig& c, double weight_decay, int t) {
    const double bc1 = 1.0 - std::pow(c.beta1, t), bc2 = 1.0 - std::pow(c.beta2, t);
    adamw(p, g, m, v, n, S(c.beta1), S(c.beta2), S(c.eps), S(1.0 - c.lr * weight_decay), S(c.lr / bc1),
          S(1.0 / std::sqrt(bc2)));
}

// sqrt(Σ g²), accumulated in double whatever S is, in kNormLanes interleaved partial sums: independent chains
// that the CPU overlaps and the compiler may vectorise (one chain of dependent adds waits an add's latency per
// element), in the same order on every target, so native and wasm agree
template <class S>
double global_norm(const S* g, std::size_t n) {
    constexpr std::size_t kNormLanes = 8;
    double part[kNormLanes] = {};
    std::size_t i = 0;
    for (; i + kNormLanes <= n; i += kNormLanes)
        for (std::size_t j = 0; j < kNormLanes; ++j) part[j] += double(g[i + j]) * double(g[i + j]);
    for (std::size_t j = 0; i + j < n; ++j) part[j] += double(g[i + j]) * double(g[i + j]);
    double s = 0;
    for (double p : part) s += p;
    return std::sqrt(s);
}

// clip_grad_norm_: scales g by min(1, max_norm / (norm + 1e-6)); returns the norm before clipping
template <class S>
double clip_gradients(S* g, std::size_t n, double max_norm) {
    const double norm = global_norm(g, n);
    const double coef = max_norm / (norm + 1e-6);
    if (coef < 1.0)
        for (std::size_t i = 0; i < n; ++i) g[i] = static_cast<S>(g[i] * coef);
    return norm;
}

// linear warm-up from 0 over warmup steps, then cosine decay to min_lr at total steps (step counts from 0)
inline double lr_at(int step, int total, int warmup, double max_lr, double min_lr) {
    if (step < warmup) return max_lr * double(step + 1) / double(warmup);
    if (step >= total) return min_lr;
    const double progress = double(step - warmup) / double(std::max(1, total - warmup));
    return min_lr + 0.5 * (max_lr - min_lr) * (1.0 + std::cos(3.14159265358979323846 * progress));
}

}  // namespace mha
