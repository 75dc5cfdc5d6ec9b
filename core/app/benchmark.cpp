#include "benchmark.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "error.hpp"
#include "kernels.hpp"
#include "prng.hpp"
#include "train.hpp"

namespace mha {

namespace {

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// floats per SIMD register of the kernels (4 for SSE2 and wasm SIMD128, 8 for AVX2, 16 for AVX-512)
int simd_lanes() {
#if defined(MHA_HAVE_SIMD)
    return static_cast<int>(xsimd::batch<float>::size);
#else
    return 1;
#endif
}

// ---------------------------------------------------------------- the machine's single-core SIMD ceiling
// Independent accumulator chains, operands in registers, enough iterations; the best over several chain counts,
// so no single choice of ours under-states it. Three loops:
//   mul+add  K chains acc_m[j] *= x and K chains acc_a[j] += y: both floating-point pipes busy (1 flop per lane
//            per instruction). wasm SIMD128 has no FMA, so this is its ceiling.
//   mul+add, one operand  KM chains acc_m[j] *= x beside KA chains acc_a[j] += x: a register fewer, so more chains
//            fit in V8's 15 allocatable xmm registers (KM + KA + 1), and more multiply chains than add chains. On an
//            Intel Xeon (model 207) mul+add (6), mul+add (7) (which spills) and fma (12) measured less in node than
//            8:6 and 9:5 of this loop, and a matmul in node ran above an fma (12) ceiling in one run of scripts/bench
//            (measured: docs/experiments.md, "Speed of the kernels"). Our
//            reading, not checked with counters: the multiplies, at a longer latency than the adds, need more chains
//            to keep their ports busy than K = 6 gives them.
//   fma      K chains acc[j] = fma(acc[j], x, y) (2 flops per lane), the kernels' own multiply-add (simd::madd):
//            the native ceiling, and relaxed SIMD's (f32x4.relaxed_madd, fused where the CPU has FMA). In plain wasm
//            it is a multiply then a dependent add, so each chain is twice as long and needs twice the chains; with
//            enough of them it keeps both pipes busy too, and in V8 it can beat the mul+add loop (register
//            allocation).
// x is close to 1 and y tiny, and the chains restart from 1 every round, so nothing overflows or goes denormal.
// Operands are read through volatile: as compile-time constants, V8 rebuilds a v128 constant at every use and the
// loop measures that instead of arithmetic.
// Instruction mix checked 2026-11-23 (emscripten 3.1.6 -O3, g++ 12 -O3):
//   wasm-objdump -d build/wasm/tests/bench/mha_bench_web.wasm: the mul+add loop's body is only local.get /
//     f32x4.mul / f32x4.add / local.set and the counter, no v128.const and no memory access inside the loop.
//   objdump -d build/native/core/mha-bench: the fma loop is vfmadd...ps on registers only (ymm with avx2, zmm
//     with avx512); the mul+add loop is vmulps/vaddps on registers.
constexpr int kPeakIters = 1 << 20;  // per timed round: about a millisecond, 200 ticks of Chromium's 5 µs timer

struct PeakResult {
    const char* loop;
    int chains;      // per kind: mul+add runs `chains` multiply chains and `chains` add chains
    int add_chains;  // mul+add, one operand: its add chains (`chains` is its multiply chains); else 0
    double gflops;
};

#if defined(MHA_HAVE_SIMD)
using PeakBatch = xsimd::batch<float>;

// One timed round, out of line and called again every round: V8 runs a wasm function first in its baseline
// compiler (Liftoff: few registers, spills) and swaps in the optimised code only at a later call (there is no
// on-stack replacement for wasm), so a loop inlined into a function called once would be measured in Liftoff.
// The accumulators are loaded into locals on entry and stored back on exit. The call goes through a volatile
// function pointer: binaryen (wasm-opt, at link time) ignores noinline and inlined the rounds into their caller.
// acc_io holds the K multiply chains, then the K add chains
template <int K>
__attribute__((noinline)) void mul_add_round(PeakBatch* acc_io, const float* xy, int iters) {
    const PeakBatch x(xy[0]), y(xy[1]);  // into locals: loaded once, not constants V8 would rebuild at each use
    PeakBatch am[K], aa[K];
    for (int j = 0; j < K; ++j) am[j] = acc_io[j], aa[j] = acc_io[K + j];
    for (int i = 0; i < iters; ++i) {
        for (int j = 0; j < K; ++j) am[j] = am[j] * x;
        for (int j = 0; j < K; ++j) aa[j] = aa[j] + y;
    }
    for (int j = 0; j < K; ++j) acc_io[j] = am[j], acc_io[K + j] = aa[j];
}

// acc_io holds the KM multiply chains, then the KA add chains; x ≈ 1 is both operands (the add chains grow by
// about 1 a step, to about 10⁶ in a round: no overflow, no denormal)
template <int KM, int KA>
__attribute__((noinline)) void mul_add_one_operand_round(PeakBatch* acc_io, const float* xy, int iters) {
    const PeakBatch x(xy[0]);
    PeakBatch am[KM], aa[KA];
    for (int j = 0; j < KM; ++j) am[j] = acc_io[j];
    for (int j = 0; j < KA; ++j) aa[j] = acc_io[KM + j];
    for (int i = 0; i < iters; ++i) {
        for (int j = 0; j < KM; ++j) am[j] = am[j] * x;
        for (int j = 0; j < KA; ++j) aa[j] = aa[j] + x;
    }
    for (int j = 0; j < KM; ++j) acc_io[j] = am[j];
    for (int j = 0; j < KA; ++j) acc_io[KM + j] = aa[j];
}

template <int K>
__attribute__((noinline)) void fma_round(PeakBatch* acc_io, const float* xy, int iters) {
    const PeakBatch x(xy[0]), y(xy[1]);
    PeakBatch acc[K];
    for (int j = 0; j < K; ++j) acc[j] = acc_io[j];
    for (int i = 0; i < iters; ++i)
        for (int j = 0; j < K; ++j) acc[j] = simd::madd(acc[j], x, y);
    for (int j = 0; j < K; ++j) acc_io[j] = acc[j];
}

// The best GFLOP/s over timed rounds (at least 5, and for `seconds`) of one round function on NACC accumulators;
// flops_per_iter: the round's flops per iteration of its loop.
template <int NACC>
double best_round_gflops(void (*round)(PeakBatch*, const float*, int), double flops_per_iter, double seconds) {
    volatile float xs = 0.9999999f, ys = 1e-7f;  // x close to 1, y tiny; volatile: not compile-time constants
    const float xy[2] = {xs, ys};
    double best = 0;
    float sink = 0;
    const double end = now_seconds() + seconds;
    int rounds = 0;
    do {
        PeakBatch acc[NACC];
        for (int j = 0; j < NACC; ++j) acc[j] = PeakBatch(1.0f + 0.001f * j);
        const double t0 = now_seconds();
        void (*volatile timed_round)(PeakBatch*, const float*, int) = round;
        timed_round(acc, xy, kPeakIters);
        const double dt = now_seconds() - t0;
        best = std::max(best, flops_per_iter * double(kPeakIters) / dt * 1e-9);
        for (int j = 0; j < NACC; ++j) sink += xsimd::hadd(acc[j]);  // keeps the loop alive
    } while (++rounds < 5 || now_seconds() < end);
    if (sink == 12345.678f) std::printf(" ");
    return best;
}

constexpr double kPeakLanes = double(PeakBatch::size);

// K multiplies beside K adds per iteration: 2K instructions, 1 flop per lane each
template <int K>
double mul_add_gflops(double seconds) {
    return best_round_gflops<2 * K>(&mul_add_round<K>, 2.0 * K * kPeakLanes, seconds);
}

// KM multiplies beside KA adds per iteration, 1 flop per lane each
template <int KM, int KA>
double mul_add_one_operand_gflops(double seconds) {
    return best_round_gflops<KM + KA>(&mul_add_one_operand_round<KM, KA>, double(KM + KA) * kPeakLanes, seconds);
}

// K FMAs per iteration (in wasm a multiply, then an add on its result), 2 flops per lane each
template <int K>
double fma_gflops(double seconds) {
    return best_round_gflops<K>(&fma_round<K>, 2.0 * K * kPeakLanes, seconds);
}
#else
template <int K>
double mul_add_gflops(double) { return 0; }
template <int KM, int KA>
double mul_add_one_operand_gflops(double) { return 0; }
template <int K>
double fma_gflops(double) { return 0; }
#endif

// every loop and chain count tried; the ceiling is the best of them
struct PeakLoop {
    const char* loop;
    int chains, add_chains;  // as in PeakResult
    double (*best_gflops)(double seconds);
};
// mul+add: 2K accumulators + 2 operands; V8 has 16 xmm registers (one its scratch), so K = 7 is the most that fits
const PeakLoop kPeakLoops[] = {
    {"mul+add", 3, 0, &mul_add_gflops<3>},
    {"mul+add", 4, 0, &mul_add_gflops<4>},
    {"mul+add", 5, 0, &mul_add_gflops<5>},
    {"mul+add", 6, 0, &mul_add_gflops<6>},
    {"mul+add", 7, 0, &mul_add_gflops<7>},
    {"mul+add", 8, 0, &mul_add_gflops<8>},
    {"mul+add, one operand", 7, 7, &mul_add_one_operand_gflops<7, 7>},
    {"mul+add, one operand", 8, 6, &mul_add_one_operand_gflops<8, 6>},
    {"mul+add, one operand", 9, 5, &mul_add_one_operand_gflops<9, 5>},
    {"fma", 6, 0, &fma_gflops<6>},
    {"fma", 8, 0, &fma_gflops<8>},
    {"fma", 10, 0, &fma_gflops<10>},
    {"fma", 12, 0, &fma_gflops<12>},
    {"fma", 14, 0, &fma_gflops<14>},
    {"fma", 16, 0, &fma_gflops<16>},
};
constexpr int kNumPeakLoops = sizeof(kPeakLoops) / sizeof(kPeakLoops[0]);

// Each loop's best over two passes of the sweep, seconds apart, so that no loop is judged on one stretch of a VM
// whose clock moves: in one pass fma (12) won node's sweep over mul+add (6), 35.9 to 35.0.
std::vector<PeakResult> measure_peaks(double seconds) {
    std::vector<PeakResult> peaks;
    for (const PeakLoop& l : kPeakLoops) peaks.push_back({l.loop, l.chains, l.add_chains, 0});
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < kNumPeakLoops; ++i)
            peaks[i].gflops = std::max(peaks[i].gflops, kPeakLoops[i].best_gflops(seconds / (2 * kNumPeakLoops)));
    return peaks;
}

// ---------------------------------------------------------------- one matmul shape
struct MatmulResult {
    std::string name;
    int M, N, K;
    double gflops;
};

template <class F>
double time_best(F&& f, double seconds) {
    f();  // warm-up (and the packing buffer's one allocation)
    double best = 1e30;
    const double end = now_seconds() + seconds;
    int runs = 0;
    while (now_seconds() < end || runs < 3) {
        const double t0 = now_seconds();
        f();
        best = std::min(best, now_seconds() - t0);
        ++runs;
    }
    return best;
}

MatmulResult bench_matmul(const std::string& name, int M, int N, int K, double seconds) {
    Rng rng(1);
    std::vector<float> a(std::size_t(M) * K), b(std::size_t(K) * N), out(std::size_t(M) * N), bias(N);
    for (auto& x : a) x = rng.uniform() - 0.5f;
    for (auto& x : b) x = rng.uniform() - 0.5f;
    double t = 0;
    if (name.rfind("nt", 0) == 0)  // a (M,K) · b (N,K)ᵀ + bias: a Linear forward
        t = time_best([&] { matmul_nt(out.data(), a.data(), b.data(), bias.data(), M, N, K, false); }, seconds);
    else if (name.rfind("nn", 0) == 0)  // dinp = dout · W
        t = time_best([&] { matmul_nn(out.data(), a.data(), b.data(), M, N, K, true); }, seconds);
    else  // dW = doutᵀ · inp
        t = time_best([&] { matmul_tn(out.data(), a.data(), b.data(), M, N, K, true); }, seconds);
    return {name, M, N, K, 2.0 * M * N * K / t * 1e-9};
}

// ---------------------------------------------------------------- training steps of tiny-char
ModelConfig tiny_char(int heads, AttentionVariant variant = AttentionVariant::canonical) {
    ModelConfig cfg;
    cfg.vocab_size = 65, cfg.d_model = 64, cfg.n_heads = heads, cfg.n_layers = 2, cfg.max_seq_len = 64;
    cfg.variant = variant;
    return cfg;
}

Trainer tiny_char_trainer(const ModelConfig& cfg, int steps) {
    TrainConfig tc;
    tc.batch = 16, tc.seq_len = 64, tc.steps = steps + 5, tc.warmup = 2;
    return Trainer(cfg, tc, [](Rng& rng, int B, int T, int* x, int* y) {
        for (int i = 0; i < B * T; ++i) x[i] = int(rng.below(65));
        for (int i = 0; i < B * T; ++i) y[i] = x[(i + 1) % (B * T)];
    });
}

struct TrainingResult {
    int heads;
    double ms_median, ms_min, tokens_per_s;
    int steps;
    // with a ceiling loop run between the steps (else NaN and 0): each step's GFLOP/s over the ceiling measured
    // right after it, the median and the range of those shares; the median and the best of those ceilings
    double share_beside = NAN, share_beside_min = NAN, share_beside_max = NAN, ceiling_beside_median = NAN;
    double ceiling_beside_max = 0;
};

// a number for the JSON, null where it is not finite (JSON has no NaN)
std::string json_number(double x) {
    if (!std::isfinite(x)) return "null";
    std::ostringstream o;
    o.precision(4);
    o << x;
    return o.str();
}

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Every step timed on its own; the median is the figure (robust to a neighbour's burst on a shared machine).
// With `beside`, that ceiling loop runs (its minimum of five rounds, about 10 ms) after every timed step, and each
// step's share of the peak is taken against the ceiling of its own moment: on the shared VMs the benchmark runs on,
// the clock moves by a sixth from one stretch of seconds to the next (measured: docs/experiments.md, "Speed of the
// kernels", Method), so a step time and a ceiling taken seconds apart compare two clocks. The ceiling rounds touch
// no memory, so the next step finds its caches as the last one left them.
TrainingResult bench_training(int heads, int steps, AttentionVariant variant = AttentionVariant::canonical,
                              const PeakLoop* beside = nullptr) {
    Trainer trainer = tiny_char_trainer(tiny_char(heads, variant), steps + 3);
    for (int i = 0; i < 3; ++i) trainer.step();  // warm-up: buffers allocated, caches warm
    const double flops = training_step_flops(tiny_char(heads, variant), 16, 64);
    std::vector<double> dt(steps), shares, ceilings;
    for (int i = 0; i < steps; ++i) {
        const double t0 = now_seconds();
        trainer.step();
        dt[i] = now_seconds() - t0;
        const double ceiling = beside ? beside->best_gflops(0) : 0;
        if (ceiling <= 0) continue;  // no ceiling asked for, or none measured (a build without SIMD)
        ceilings.push_back(ceiling);
        shares.push_back(flops / dt[i] * 1e-9 / ceiling);
    }
    const double median = median_of(dt);
    TrainingResult r{heads, median * 1e3, *std::min_element(dt.begin(), dt.end()) * 1e3, 16.0 * 64.0 / median, steps};
    if (!shares.empty()) {
        r.share_beside = median_of(shares);
        r.share_beside_min = *std::min_element(shares.begin(), shares.end());
        r.share_beside_max = *std::max_element(shares.begin(), shares.end());
        r.ceiling_beside_median = median_of(ceilings);
        r.ceiling_beside_max = *std::max_element(ceilings.begin(), ceilings.end());
    }
    return r;
}

void write_profile_json(std::ostringstream& js, const StepProfile& p, int heads) {
    js << "{\"workload\":\"tiny-char\",\"heads\":" << heads << ",\"steps\":" << p.steps << ",\"step_ms\":" << p.step_ms
       << ",\"step_ms_on\":" << p.step_ms_on << ",\"step_ms_off\":" << p.step_ms_off
       << ",\"unattributed_ms\":" << p.unattributed_ms << ",\"rows\":[";
    for (std::size_t i = 0; i < p.rows.size(); ++i)
        js << (i ? "," : "") << "{\"op\":\"" << p.rows[i].op << "\",\"ms\":" << p.rows[i].ms
           << ",\"calls\":" << p.rows[i].calls << "}";
    js << "]}";
}

}  // namespace

// ---------------------------------------------------------------- the step's flops and its profile
double training_step_flops(const ModelConfig& c, int B, int T) {
    const double D = c.d_model, Dkv = double(c.kv_heads()) * c.head_dim(), L = c.n_layers, V = c.vocab_size;
    const double weights = L * (D * (D + 2 * Dkv) + D * D + (c.mlp ? 8 * D * D : 0)) + V * D;  // qkv, out, mlp; head
    const double attention = L * 2 * T * D;  // q kᵀ (T,T,hs) and att·v (T,hs,T) over H heads: T·D each per token
    const double forward_per_token = 2 * (weights + attention);
    return 3 * double(B) * T * forward_per_token;
}

StepProfile profile_training_steps(Trainer& trainer, int steps) {
    MHA_CHECK(steps >= 1, "profile at least one step");
    struct Profiled {
        double seconds;
        std::vector<Profile::Row> rows;
    };
    std::vector<Profiled> on;
    std::vector<double> off;
    for (int i = 0; i < steps; ++i) {
        // a step without the profiler, then one with it: the pairs see the same load, so their medians compare
        double t0 = now_seconds();
        trainer.step();
        off.push_back(now_seconds() - t0);
        Profile profile;
        {
            ProfileSession session(profile);
            t0 = now_seconds();
            trainer.step();
        }
        on.push_back({now_seconds() - t0, profile.rows()});
    }
    // the profile is the mean over the faster half of the profiled steps: a step a neighbour's burst or the
    // scheduler interrupted would put its pause into whichever op it hit
    std::sort(on.begin(), on.end(), [](const Profiled& a, const Profiled& b) { return a.seconds < b.seconds; });
    const int kept = std::max(1, steps / 2);
    StepProfile p;
    p.steps = kept;
    for (int i = 0; i < kept; ++i) {
        p.step_ms += on[i].seconds * 1e3 / kept;
        for (const Profile::Row& r : on[i].rows) {
            auto row = std::find_if(p.rows.begin(), p.rows.end(), [&](const StepProfile::Row& x) { return x.op == r.path; });
            if (row == p.rows.end()) row = p.rows.insert(p.rows.end(), StepProfile::Row{r.path, 0, 0});
            row->ms += r.seconds * 1e3 / kept;
            row->calls += double(r.calls) / kept;
        }
    }
    double attributed = 0;
    for (const StepProfile::Row& r : p.rows) attributed += r.ms;
    p.unattributed_ms = p.step_ms - attributed;
    std::sort(off.begin(), off.end());
    std::vector<double> on_s;
    for (const Profiled& x : on) on_s.push_back(x.seconds);  // already sorted
    p.step_ms_off = off[off.size() / 2] * 1e3;
    p.step_ms_on = on_s[on_s.size() / 2] * 1e3;
    return p;
}

std::string run_benchmarks(bool quick, int profile_heads) {
    const double t = quick ? 0.05 : 0.5;
    std::ostringstream js;
    js.precision(4);
    const std::vector<PeakResult> peaks = measure_peaks(quick ? 0.3 : 3.0);
    int winner = 0;
    for (int i = 0; i < kNumPeakLoops; ++i)
        if (peaks[i].gflops > peaks[winner].gflops) winner = i;
    // the shapes of tiny-char (B*T = 1024 rows, D = 64, MLP 4D = 256, V = 65)
    const struct { const char* name; int M, N, K; } shapes[] = {
        {"nt qkvo forward", 1024, 64, 64},   {"nt mlp.fc forward", 1024, 256, 64},
        {"nt mlp.proj forward", 1024, 64, 256}, {"nt lm_head forward", 1024, 65, 64},
        {"nn dinp of mlp.fc", 1024, 64, 256}, {"tn dweight of mlp.fc", 256, 64, 1024},
        {"nt large square", 256, 256, 256},
    };
    // The winning loop runs again beside every matmul shape, between the training steps and after them, and the
    // ceiling is its best round over all of them: on a shared VM that changes speed from one stretch of seconds to
    // the next, a ceiling taken only at the start, in a slow stretch, fell below the matmuls measured in a fast one
    // (measured: docs/experiments.md, "Speed of the kernels", Method).
    // Rounds next to each matmul share its stretch.
    double again = 0;
    const double beside = quick ? 0.02 : 0.15;
    std::vector<MatmulResult> matmuls;
    for (const auto& s : shapes) {
        again = std::max(again, kPeakLoops[winner].best_gflops(beside));
        matmuls.push_back(bench_matmul(s.name, s.M, s.N, s.K, t));
        again = std::max(again, kPeakLoops[winner].best_gflops(beside));
    }
    std::vector<TrainingResult> trainings;
    for (int h : {1, 4, 8}) {
        trainings.push_back(bench_training(h, quick ? 3 : 31, AttentionVariant::canonical, &kPeakLoops[winner]));
        again = std::max(again, trainings.back().ceiling_beside_max);
    }
    again = std::max(again, kPeakLoops[winner].best_gflops(quick ? 0.1 : 1.0));
    PeakResult peak = peaks[winner];
    peak.gflops = std::max(peak.gflops, again);

    js << "{\"simd\":\"" << simd_arch_name() << "\",\"simd_lanes\":" << simd_lanes() << ",\"peak_gflops\":"
       << peak.gflops << ",\"peak\":{\"loop\":\"" << peak.loop << "\",\"chains\":" << peak.chains
       << ",\"add_chains\":" << peak.add_chains << ",\"sweep_gflops\":" << peaks[winner].gflops
       << ",\"again_gflops\":" << again
       << ",\"counting\":\"a multiply-add is 2 flops\",\"sweep\":[";
    for (std::size_t i = 0; i < peaks.size(); ++i)
        js << (i ? "," : "") << "{\"loop\":\"" << peaks[i].loop << "\",\"chains\":" << peaks[i].chains
           << ",\"add_chains\":" << peaks[i].add_chains << ",\"gflops\":" << peaks[i].gflops << "}";
    js << "]},\"matmuls\":[";
    bool first = true;
    for (const MatmulResult& r : matmuls) {
        js << (first ? "" : ",") << "{\"name\":\"" << r.name << "\",\"M\":" << r.M << ",\"N\":" << r.N << ",\"K\":" << r.K
           << ",\"gflops\":" << r.gflops << ",\"share_of_peak\":" << (peak.gflops > 0 ? r.gflops / peak.gflops : 0) << "}";
        first = false;
    }
    js << "],\"training\":[";
    first = true;
    for (const TrainingResult& r : trainings) {
        const double flops = training_step_flops(tiny_char(r.heads), 16, 64);
        const double gflops = flops / (r.ms_median * 1e-3) * 1e-9;
        js << (first ? "" : ",") << "{\"workload\":\"tiny-char\",\"heads\":" << r.heads << ",\"ms_per_step\":"
           << r.ms_median << ",\"ms_min\":" << r.ms_min << ",\"steps\":" << r.steps << ",\"tokens_per_s\":"
           << r.tokens_per_s << ",\"gflop_per_step\":" << flops * 1e-9 << ",\"gflops\":" << gflops
           << ",\"share_of_peak\":" << (peak.gflops > 0 ? gflops / peak.gflops : 0)
           << ",\"peak_beside_gflops\":" << json_number(r.ceiling_beside_median)
           << ",\"share_of_peak_beside\":" << json_number(r.share_beside)
           << ",\"share_of_peak_beside_min\":" << json_number(r.share_beside_min)
           << ",\"share_of_peak_beside_max\":" << json_number(r.share_beside_max) << "}";
        first = false;
    }
    // where the time of one tiny-char step goes, at H = profile_heads (the mean over several profiled steps)
    js << "],\"profile\":";
    {
        const int pairs = quick ? 3 : 20;
        Trainer trainer = tiny_char_trainer(tiny_char(profile_heads), 2 * pairs + 3);
        for (int i = 0; i < 3; ++i) trainer.step();
        write_profile_json(js, profile_training_steps(trainer, pairs), profile_heads);
    }
    // every attention variant of the "Break it" panel on tiny-char with H = 4: what each costs per step
    js << ",\"variants\":[";
    for (int v = 0; v < kNumVariants; ++v) {
        const TrainingResult r = bench_training(4, quick ? 2 : 15, static_cast<AttentionVariant>(v));
        js << (v ? "," : "") << "{\"variant\":\"" << variant_name(static_cast<AttentionVariant>(v))
           << "\",\"heads\":4,\"ms_per_step\":" << r.ms_median << ",\"tokens_per_s\":" << r.tokens_per_s << "}";
    }
    js << "]}";
    return js.str();
}

}  // namespace mha
