#include "worked_example.hpp"

#include <cmath>
#include <limits>
#include <tuple>

#include "attention.hpp"
#include "config.hpp"
#include "kernels.hpp"

namespace mha {

WorkedExampleInput lesson_worked_example() {
    WorkedExampleInput in;
    in.x = {1, 0, 1, 0,  0, 1, 0, 1,  1, 1, 0, 0};
    std::vector<double> eye(16, 0.0);
    for (int i = 0; i < 4; ++i) eye[i * 4 + i] = 1.0;
    in.wq = in.wk = in.wv = in.wo = eye;
    return in;
}

namespace {
// (in,out) matrix w (D,D) -> the (out,in) layout mha_forward and the kernels use
xt::xtensor<double, 2> out_in(const std::vector<double>& w, int D) {
    xt::xtensor<double, 2> r({std::size_t(D), std::size_t(D)});
    for (int i = 0; i < D; ++i)
        for (int o = 0; o < D; ++o) r(o, i) = w[i * D + o];
    return r;
}

std::string check_matrix(const char* name, const std::vector<double>& m, std::size_t n) {
    if (m.size() != n) return std::string(name) + " must have " + std::to_string(n) + " numbers.";
    for (double v : m)
        if (!std::isfinite(v) || std::abs(v) > 1e6) return std::string(name) + " holds a number that is not finite or above 1e6 in size.";
    return "";
}
}  // namespace

std::string run_worked_example(const WorkedExampleInput& in, WorkedExample& ex) {
    const int T = in.T, D = in.D, H = in.H;
    if (T < 1 || T > kWorkedMaxT) return "T must be 1 to " + std::to_string(kWorkedMaxT) + ".";
    if (D < 1 || D > kWorkedMaxD) return "D must be 1 to " + std::to_string(kWorkedMaxD) + ".";
    std::string err = validate_heads(D, H);
    if (!err.empty()) return err;
    const std::size_t DD = std::size_t(D) * D;
    for (auto [name, m, n] : {std::tuple<const char*, const std::vector<double>*, std::size_t>{"X", &in.x, std::size_t(T) * D},
                              {"W_Q", &in.wq, DD}, {"W_K", &in.wk, DD}, {"W_V", &in.wv, DD}, {"W_O", &in.wo, DD}}) {
        err = check_matrix(name, *m, n);
        if (!err.empty()) return err;
    }
    WorkedExample r;
    const int hs = D / H;
    r.T = T, r.D = D, r.H = H, r.hs = hs;
    r.x = in.x;
    r.wo = in.wo;

    // the layer itself: weights in (out,in) layout, zero biases
    MhaWeights<double> w = mha_zero_weights<double>(D);
    w.wq = out_in(in.wq, D), w.wk = out_in(in.wk, D), w.wv = out_in(in.wv, D), w.wo = out_in(in.wo, D);
    xt::xtensor<double, 3> x({1, std::size_t(T), std::size_t(D)});
    std::copy(in.x.begin(), in.x.end(), x.begin());
    const MhaResult<double> full = mha_forward(x, w, H);
    MhaWeights<double> w_concat = w;  // W_O = I: the output is the concat of the heads
    w_concat.wo = xt::zeros<double>({std::size_t(D), std::size_t(D)});
    for (int i = 0; i < D; ++i) w_concat.wo(i, i) = 1.0;
    const MhaResult<double> concat = mha_forward(x, w_concat, H);

    // the per-head weight slices: columns h*hs .. h*hs+hs-1 of the (in,out) matrices
    auto slices = [&](const std::vector<double>& m) {
        std::vector<double> s(std::size_t(H) * D * hs);
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < D; ++i)
                for (int j = 0; j < hs; ++j) s[(h * D + i) * hs + j] = m[i * D + head_channel(h, j, H, hs, HeadOrder::canonical)];
        return s;
    };
    r.wq_h = slices(in.wq), r.wk_h = slices(in.wk), r.wv_h = slices(in.wv);

    // Q, K, V (T,D) = X W, then split into heads (H,T,hs) exactly as the layer does
    auto project_split = [&](const xt::xtensor<double, 2>& w_oi) {
        std::vector<double> full_proj(std::size_t(T) * D), heads(full_proj.size());
        matmul_nt(full_proj.data(), x.data(), w_oi.data(), static_cast<const double*>(nullptr), T, D, D, false);
        split_heads(heads.data(), full_proj.data(), 1, T, H, hs, HeadOrder::canonical);
        return heads;
    };
    r.q = project_split(w.wq), r.k = project_split(w.wk), r.v = project_split(w.wv);

    // scores, scaled, masked: what goes into the softmax, per head
    const std::size_t TT = std::size_t(T) * T;
    r.scores.assign(H * TT, 0.0);
    for (int h = 0; h < H; ++h)
        matmul_nt(r.scores.data() + h * TT, r.q.data() + h * T * hs, r.k.data() + h * T * hs,
                  static_cast<const double*>(nullptr), T, T, hs, false);
    const double scale = 1.0 / std::sqrt(double(hs));
    r.scaled = r.scores;
    for (double& s : r.scaled) s *= scale;
    r.masked = r.scaled;
    for (int h = 0; h < H; ++h)
        for (int t = 0; t < T; ++t)
            for (int s = t + 1; s < T; ++s) r.masked[h * TT + t * T + s] = -std::numeric_limits<double>::infinity();

    r.att.assign(full.att.begin(), full.att.end());            // (1,H,T,T)
    r.concat.assign(concat.out.begin(), concat.out.end());     // (1,T,D)
    r.heads.assign(std::size_t(H) * T * hs, 0.0);
    split_heads(r.heads.data(), r.concat.data(), 1, T, H, hs, HeadOrder::canonical);
    r.out.assign(full.out.begin(), full.out.end());
    ex = std::move(r);
    return "";
}

}  // namespace mha
