// Every xsimd kernel equals its scalar twin for all tail sizes and odd shapes, in float32 and float64.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels.hpp"
#include "test_util.hpp"

using namespace mha;

namespace {
// sizes that cover every remainder modulo the SIMD widths (4 in wasm/SSE2, 8 for AVX2 floats, 16 for AVX-512)
const std::vector<int> kSizes = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65};

// tolerance for a K-long float sum computed in two different orders
template <class T>
double sum_tolerance(int K) {
    return (sizeof(T) == 4 ? 2e-6 : 1e-14) * K;
}

template <class T>
void check_all_shapes() {
    int cases = 0;
    for (int M : kSizes)
        for (int N : kSizes)
            for (int K : {1, 3, 4, 8, 13, 17, 64, 67}) {
                const auto a = test::random_vector<T>(std::size_t(M) * K, 1000 + M);
                const auto bt = test::random_vector<T>(std::size_t(N) * K, 2000 + N);  // (N,K)
                const auto b = test::random_vector<T>(std::size_t(K) * N, 3000 + N);   // (K,N)
                const auto at = test::random_vector<T>(std::size_t(K) * M, 4000 + M);  // (K,M)
                const auto bias = test::random_vector<T>(N, 5000 + N);
                const auto init = test::random_vector<T>(std::size_t(M) * N, 6000 + M * N);
                for (bool accumulate : {false, true}) {
                    std::vector<T> want = init, got = init;
                    ref::matmul_nt(want.data(), a.data(), bt.data(), bias.data(), M, N, K, accumulate);
                    matmul_nt(got.data(), a.data(), bt.data(), bias.data(), M, N, K, accumulate);
                    INFO("nt M=" << M << " N=" << N << " K=" << K << " accumulate=" << accumulate);
                    REQUIRE(test::max_abs_diff(got, want) <= sum_tolerance<T>(K));

                    want = init, got = init;
                    ref::matmul_nt(want.data(), a.data(), bt.data(), static_cast<const T*>(nullptr), M, N, K, accumulate);
                    matmul_nt(got.data(), a.data(), bt.data(), static_cast<const T*>(nullptr), M, N, K, accumulate);
                    REQUIRE(test::max_abs_diff(got, want) <= sum_tolerance<T>(K));

                    want = init, got = init;
                    ref::matmul_nn(want.data(), a.data(), b.data(), M, N, K, accumulate);
                    matmul_nn(got.data(), a.data(), b.data(), M, N, K, accumulate);
                    INFO("nn");
                    REQUIRE(test::max_abs_diff(got, want) <= sum_tolerance<T>(K));

                    want = init, got = init;
                    ref::matmul_tn(want.data(), at.data(), b.data(), M, N, K, accumulate);
                    matmul_tn(got.data(), at.data(), b.data(), M, N, K, accumulate);
                    INFO("tn");
                    REQUIRE(test::max_abs_diff(got, want) <= sum_tolerance<T>(K));
                    ++cases;
                }
            }
    CHECK(cases == int(kSizes.size() * kSizes.size() * 8 * 2));
}
}  // namespace

TEST_CASE("xsimd matmuls equal the scalar reference for every tail size (float32)", "[kernels]") {
    check_all_shapes<float>();
}

TEST_CASE("xsimd matmuls equal the scalar reference for every tail size (float64)", "[kernels]") {
    check_all_shapes<double>();
}

TEST_CASE("the a^T b matmul walks long K in chunks: a chunk boundary anywhere, bias-free, accumulating or not",
          "[kernels]") {
    // matmul_tn adds K in chunks of 128 rows (a weight gradient's K is the batch's tokens): K on both sides of one
    // and of several chunk boundaries, with tails in M and N
    for (int K : {0, 127, 128, 129, 300, 1024})
        for (int M : {5, 64})
            for (int N : {3, 65})
                for (bool accumulate : {false, true}) {
                    const auto at = test::random_vector<float>(std::size_t(K) * M, 7000 + K + M);  // (K,M)
                    const auto b = test::random_vector<float>(std::size_t(K) * N, 8000 + K + N);   // (K,N)
                    const auto init = test::random_vector<float>(std::size_t(M) * N, 9000 + M * N);
                    std::vector<float> want = init, got = init;
                    ref::matmul_tn(want.data(), at.data(), b.data(), M, N, K, accumulate);
                    matmul_tn(got.data(), at.data(), b.data(), M, N, K, accumulate);
                    INFO("tn M=" << M << " N=" << N << " K=" << K << " accumulate=" << accumulate);
                    REQUIRE(test::max_abs_diff(got, want) <= sum_tolerance<float>(std::max(K, 1)));
                }
}

TEST_CASE("a Linear's dweight and dbias in one call: matmul_tn's product and the column sum, bit for bit",
          "[kernels]") {
    // matmul_tn_colsum copies a's rows through a strip in wasm (summing them on the way) and reads them in place
    // elsewhere: either way the product must be matmul_tn's and the sum ref::column_sum_add's, to the bit (the same
    // multiply-adds and additions in the same order). M covers a last row block of every height, K chunk
    // boundaries and the empty sum; a null colsum asks for the product alone.
    for (int K : {0, 1, 5, 127, 128, 129, 300})
        for (int M : {1, 3, 4, 5, 8, 13, 64})
            for (int N : {3, 8, 17, 64})
                for (bool accumulate : {false, true}) {
                    const auto at = test::random_vector<float>(std::size_t(K) * M, 7100 + K + M);  // (K,M)
                    const auto b = test::random_vector<float>(std::size_t(K) * N, 8100 + K + N);   // (K,N)
                    const auto init = test::random_vector<float>(std::size_t(M) * N, 9100 + M * N);
                    const auto sum0 = test::random_vector<float>(M, 9900 + M);
                    std::vector<float> want = init, got = init, want_sum = sum0, got_sum = sum0;
                    matmul_tn(want.data(), at.data(), b.data(), M, N, K, accumulate);
                    ref::column_sum_add(want_sum.data(), at.data(), K, M);
                    matmul_tn_colsum(got.data(), got_sum.data(), at.data(), b.data(), M, N, K, accumulate);
                    INFO("M=" << M << " N=" << N << " K=" << K << " accumulate=" << accumulate);
                    REQUIRE(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
                    REQUIRE(std::memcmp(got_sum.data(), want_sum.data(), want_sum.size() * sizeof(float)) == 0);
                    got = init;
                    matmul_tn_colsum(got.data(), static_cast<float*>(nullptr), at.data(), b.data(), M, N, K,
                                     accumulate);
                    REQUIRE(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
                }
    // and the sum is the column sums themselves (not only its twin's): a with a[k,m] = m + 1 sums to K (m + 1)
    const int K = 300, M = 6, N = 4;
    std::vector<float> a(std::size_t(K) * M), b(std::size_t(K) * N, 1.0f), out(M * N), sum(M, 0.5f);
    for (int k = 0; k < K; ++k)
        for (int m = 0; m < M; ++m) a[std::size_t(k) * M + m] = float(m + 1);
    matmul_tn_colsum(out.data(), sum.data(), a.data(), b.data(), M, N, K, false);
    for (int m = 0; m < M; ++m) {
        CHECK(sum[m] == 0.5f + float(K * (m + 1)));
        CHECK(out[m * N] == float(K * (m + 1)));
    }
}

TEST_CASE("a Linear's dinp times gelu' in one pass: matmul_nn's product times the factor, bit for bit",
          "[kernels]") {
    // matmul_nn_times stages each row block of the product in a scratch and multiplies it into out: every entry
    // must be matmul_nn's, times the factor's entry (the two-pass way: matmul_nn, then gelu_backward_saved). M
    // covers every last row block, N b's widths with and without panels, row-major and packed.
    for (int M : {1, 3, 5, 8, 13, 64})
        for (int N : {1, 3, 4, 8, 17, 33, 64, 100})
            for (int K : {1, 7, 64}) {
                const auto a = test::random_vector<float>(std::size_t(M) * K, 4100 + M + K);
                const auto b = test::random_vector<float>(std::size_t(K) * N, 4200 + N + K);
                const auto factor = test::random_vector<float>(std::size_t(M) * N, 4300 + M * N);
                std::vector<float> product(std::size_t(M) * N), want(std::size_t(M) * N);
                matmul_nn(product.data(), a.data(), b.data(), M, N, K, false);
                gelu_backward_saved(want.data(), factor.data(), product.data(), M * N, Dinp::write);
                std::vector<float> got(std::size_t(M) * N, -7.0f);
                matmul_nn_times(got.data(), factor.data(), a.data(), b.data(), M, N, K);
                INFO("M=" << M << " N=" << N << " K=" << K);
                REQUIRE(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
                // and the twin: within the tolerance of a K-long sum in two orders, times the largest factor
                std::vector<float> ref_got(std::size_t(M) * N);
                ref::matmul_nn_times(ref_got.data(), factor.data(), a.data(), b.data(), M, N, K);
                double largest = 0;
                for (float f : factor) largest = std::max(largest, double(std::fabs(f)));
                REQUIRE(test::max_abs_diff(got, ref_got) <= sum_tolerance<float>(K) * largest);
            }
}

TEST_CASE("a wide b packed in panels: every width of the last panel, and the tiny-char shapes", "[kernels]") {
    // matmul_nt always packs bᵀ in panels of one register block's width (8, 16 or 32 columns: wasm, AVX2,
    // AVX-512), and matmul_nn packs a b wider than two panels. These widths leave a last panel of every width the
    // kernel's blocks cut differently (a whole batch, a half batch on AVX-512, scalar columns), on every build.
    for (int N : {72, 76, 84, 88, 100, 108, 120, 124, 136, 140, 256})
        for (int M : {5, 17})
            for (int K : {3, 64, 256})
                for (bool accumulate : {false, true}) {
                    const auto a = test::random_vector<float>(std::size_t(M) * K, 1100 + M + K);
                    const auto bt = test::random_vector<float>(std::size_t(N) * K, 1200 + N + K);  // (N,K)
                    const auto b = test::random_vector<float>(std::size_t(K) * N, 1300 + N + K);   // (K,N)
                    const auto bias = test::random_vector<float>(N, 1400 + N);
                    const auto init = test::random_vector<float>(std::size_t(M) * N, 1500 + M * N);
                    INFO("M=" << M << " N=" << N << " K=" << K << " accumulate=" << accumulate);
                    std::vector<float> want = init, got = init;
                    ref::matmul_nt(want.data(), a.data(), bt.data(), bias.data(), M, N, K, accumulate);
                    matmul_nt(got.data(), a.data(), bt.data(), bias.data(), M, N, K, accumulate);
                    REQUIRE(test::max_abs_diff(got, want) <= sum_tolerance<float>(K));
                    want = init, got = init;
                    ref::matmul_nn(want.data(), a.data(), b.data(), M, N, K, accumulate);
                    matmul_nn(got.data(), a.data(), b.data(), M, N, K, accumulate);
                    REQUIRE(test::max_abs_diff(got, want) <= sum_tolerance<float>(K));
                }
}
TEST_CASE("xsimd GELU forward and backward equal the scalar reference for every tail size", "[kernels]") {
    // standard deviation 3 (the tanh saturates at both ends; batches take the exp branch) and 0.2 (|u| < 5/8 in
    // whole batches: the polynomial branch). The backward is the training step's pair: the forward keeps gelu',
    // the backward multiplies by it; the reference computes gelu' again from x, in the textbook tanh form.
    for (double range : {3.0, 0.2}) for (int N : {1, 3, 4, 5, 8, 9, 16, 17, 33, 100}) for (Dinp mode : {Dinp::add, Dinp::write}) {
        const auto x = test::random_vector<float>(N, 70 + N, range);
        const auto dout = test::random_vector<float>(N, 80 + N);
        std::vector<float> want(N), got(N), kept(N), grad(N), gwant(N), dwant(N, 0.5f), dgot(N, 0.5f);
        ref::gelu_forward(want.data(), x.data(), N);
        gelu_forward(got.data(), x.data(), N);
        gelu_forward_keep_grad(kept.data(), grad.data(), x.data(), N);
        for (int i = 0; i < N; ++i) gwant[i] = ref::gelu_grad(x[i]);
        ref::gelu_backward(dwant.data(), x.data(), dout.data(), N, mode);
        gelu_backward_saved(dgot.data(), grad.data(), dout.data(), N, mode);
        INFO("N = " << N << " range " << range << (mode == Dinp::add ? " adding" : " writing"));
        CHECK(test::max_abs_diff(got, want) < 2e-6);   // xsimd's tanh and libm's agree to a few float ulp
        CHECK(test::max_abs_diff(kept, want) < 2e-6);
        CHECK(test::max_abs_diff(grad, gwant) < 2e-6);
        CHECK(test::max_abs_diff(dgot, dwant) < 2e-6);
        std::vector<double> x64(x.begin(), x.end()), w64(N), g64(N), kept64(N), grad64(N), gwant64(N);
        ref::gelu_forward(w64.data(), x64.data(), N);
        gelu_forward(g64.data(), x64.data(), N);
        gelu_forward_keep_grad(kept64.data(), grad64.data(), x64.data(), N);
        for (int i = 0; i < N; ++i) gwant64[i] = ref::gelu_grad(x64[i]);
        CHECK(test::max_abs_diff(g64, w64) < 1e-14);
        CHECK(test::max_abs_diff(kept64, w64) < 1e-14);
        CHECK(test::max_abs_diff(grad64, gwant64) < 1e-14);
    }
}

#if defined(MHA_HAVE_SIMD)
TEST_CASE("xsimd GELU forward in pairs of batches equals it batch by batch, bitwise", "[kernels]") {
    // gelu_forward_keep_grad takes two batches per branch (one test whether both are small); a batch alone takes
    // the single-batch loop. A wide lane now and then puts a small and a wide batch into the same pair.
    using batch = xsimd::batch<float>;
    constexpr int W = static_cast<int>(batch::size);
    for (int N : {8 * W, 8 * W + 3, 24 * W + 1, 64 * W}) {
        auto x = test::random_vector<float>(N, 150 + N, 0.2);
        for (int i = 0; i < N; i += 5 * W + 1) x[i] *= 40;  // a wide lane now and then
        std::vector<float> out(N), grad(N), out1(N), grad1(N);
        gelu_forward_keep_grad(out.data(), grad.data(), x.data(), N);
        for (int i = 0; i < N; i += W) {
            const int n = std::min(W, N - i);
            gelu_forward_keep_grad(out1.data() + i, grad1.data() + i, x.data() + i, n);
        }
        INFO("N = " << N);
        CHECK(std::memcmp(out.data(), out1.data(), N * sizeof(float)) == 0);
        CHECK(std::memcmp(grad.data(), grad1.data(), N * sizeof(float)) == 0);
    }
}
#endif

TEST_CASE("xsimd GELU keeps the scalar reference's values at the extremes: saturation, infinities, NaN",
          "[kernels]") {
    // the xsimd kernel computes σ(2u) through exp(−2u), which overflows to inf for x below about −10 (float) and
    // −90 (double); the reference computes tanh u. Sixteen values, so every lane of every width sees them; then the
    // same sixteen eight times over, each copy shifted by one, which every width's forward takes in pairs of batches.
    const double inf = INFINITY, nan = NAN;
    const std::vector<double> xs16 = {-inf, -1e30, -100, -20, -10, -9.5, -3, -0.0, 0.0, 1e-30, 3, 10, 20, 100, inf, nan};
    auto same = [](double got, double want, double tol) {
        if (std::isnan(want)) return std::isnan(got);
        if (std::isinf(want)) return got == want;
        return std::abs(got - want) <= tol;
    };
    auto check = [&](auto zero, const std::vector<double>& xs, double tol) {
        using T = decltype(zero);
        const int N = int(xs.size());
        std::vector<T> x(xs.begin(), xs.end()), want(N), got(N), dout(N, T(1)), dwant(N, T(0)), kept(N), dgot(N);
        ref::gelu_forward(want.data(), x.data(), N);
        gelu_forward(got.data(), x.data(), N);
        ref::gelu_backward(dwant.data(), x.data(), dout.data(), N, Dinp::write);
        gelu_forward_keep_grad(kept.data(), dgot.data(), x.data(), N);  // gelu and gelu' from one pass
        for (int i = 0; i < N; ++i) {
            INFO("x = " << x[i] << " (" << sizeof(T) * 8 << " bit, N = " << N << "): gelu " << got[i] << " vs "
                        << want[i] << ", gelu' " << dgot[i] << " vs " << dwant[i]);
            CHECK(same(got[i], want[i], tol));
            CHECK(same(kept[i], want[i], tol));
            CHECK(same(dgot[i], dwant[i], tol));
        }
        CHECK(got[15] != got[15]);  // NaN in, NaN out (the first copy is the sixteen as listed)
        CHECK(got[14] == T(inf));   // gelu(+inf) = +inf
    };
    std::vector<double> xs128;
    for (int c = 0; c < 8; ++c)
        for (int i = 0; i < 16; ++i) xs128.push_back(xs16[(i + c) % 16]);
    for (const std::vector<double>& xs : {xs16, xs128}) {
        check(0.0f, xs, 2e-6);
        check(0.0, xs, 1e-14);
    }
}

TEST_CASE("the reference matmul is right on a hand-checked case", "[kernels]") {
    // a (2,3), b (2,3): out = a bᵀ + bias
    const float a[6] = {1, 2, 3, 4, 5, 6};
    const float b[6] = {1, 0, -1, 2, 1, 0};
    const float bias[2] = {10, 20};
    float out[4];
    ref::matmul_nt(out, a, b, bias, 2, 2, 3, false);
    CHECK(out[0] == 10 + 1 - 3);
    CHECK(out[1] == 20 + 2 + 2);
    CHECK(out[2] == 10 + 4 - 6);
    CHECK(out[3] == 20 + 8 + 5);
}

TEST_CASE("the build reports the SIMD instruction set it compiled for", "[kernels]") {
    const std::string arch = simd_arch_name();
    INFO(arch);
#if defined(__EMSCRIPTEN__)
    CHECK(arch.find("wasm-simd128") != std::string::npos);
#else
    CHECK(arch != "scalar");
#endif
}

TEST_CASE("xsimd LayerNorm forward and backward equal the scalar reference for every tail size", "[kernels]") {
    // N = 9: two lock-step groups of four rows (where the batch width divides C) and a row alone
    for (int C : {1, 3, 4, 7, 8, 9, 16, 17, 64, 65}) {
        const int N = 9;
        const auto x = test::random_vector<float>(N * C, 90 + C, 2.0), w = test::random_vector<float>(C, 91 + C),
                   b = test::random_vector<float>(C, 92 + C), dy = test::random_vector<float>(N * C, 93 + C);
        std::vector<float> o1(N * C), o2(N * C), m1(N), m2(N), r1(N), r2(N);
        ref::layernorm_forward(o1.data(), m1.data(), r1.data(), x.data(), w.data(), b.data(), N, C);
        layernorm_forward(o2.data(), m2.data(), r2.data(), x.data(), w.data(), b.data(), N, C);
        INFO("C = " << C);
        CHECK(test::max_abs_diff(o2, o1) < 2e-5);
        CHECK(test::max_abs_diff(m2, m1) < 2e-5);
        CHECK(test::max_abs_diff(r2, r1) < 2e-5);
        for (Dinp mode : {Dinp::add, Dinp::write}) {
            INFO((mode == Dinp::add ? "adding" : "writing"));
            std::vector<float> dx1(N * C, 0.1f), dx2 = dx1, dw1(C, 0.2f), dw2 = dw1, db1(C, 0.3f), db2 = db1;
            ref::layernorm_backward(dx1.data(), dw1.data(), db1.data(), dy.data(), x.data(), w.data(), m1.data(), r1.data(), N, C, mode);
            layernorm_backward(dx2.data(), dw2.data(), db2.data(), dy.data(), x.data(), w.data(), m1.data(), r1.data(), N, C, mode);
            CHECK(test::max_abs_diff(dx2, dx1) < 2e-5);
            CHECK(test::max_abs_diff(dw2, dw1) < 2e-5);
            CHECK(test::max_abs_diff(db2, db1) < 2e-6);
        }
    }
}

#if defined(MHA_HAVE_SIMD)
TEST_CASE("xsimd LayerNorm forward in lock-step groups equals its rows one by one, bitwise", "[kernels]") {
    // layernorm_forward takes four rows at a time where the batch width divides C, the leftover rows one by one
    auto check = [](auto zero, int N, int C) {
        using S = decltype(zero);
        INFO("N = " << N << ", C = " << C << " (" << sizeof(S) * 8 << " bit)");
        const auto x = test::random_vector<S>(std::size_t(N) * C, 150 + C, 3.0),
                   w = test::random_vector<S>(C, 151 + C), b = test::random_vector<S>(C, 152 + C);
        std::vector<S> o1(std::size_t(N) * C), o2 = o1, m1(N), m2 = m1, r1(N), r2 = r1;
        layernorm_forward(o1.data(), m1.data(), r1.data(), x.data(), w.data(), b.data(), N, C);
        for (int n = 0; n < N; ++n)
            simd::layernorm_forward_row(o2.data() + std::size_t(n) * C, &m2[n], &r2[n], x.data() + std::size_t(n) * C,
                                        w.data(), b.data(), C);
        CHECK(std::memcmp(o1.data(), o2.data(), o1.size() * sizeof(S)) == 0);
        CHECK(std::memcmp(m1.data(), m2.data(), m1.size() * sizeof(S)) == 0);
        CHECK(std::memcmp(r1.data(), r2.data(), r1.size() * sizeof(S)) == 0);
    };
    for (int C : {4, 8, 16, 17, 32, 48, 64, 96})  // 48, 96: 1/C inexact, so / C and * (1/C) differ
        for (int N : {1, 4, 7, 8, 13}) {
            check(0.0f, N, C);
            check(0.0, N, C);
        }
}
#endif

TEST_CASE("xsimd AdamW equals the scalar reference for every tail size", "[kernels]") {
    for (int n : {1, 3, 4, 5, 8, 9, 17, 100}) {
        const auto g = test::random_vector<float>(n, 95 + n);
        auto p1 = test::random_vector<float>(n, 96 + n), m1 = test::random_vector<float>(n, 97 + n, 0.1);
        std::vector<float> v1(n);
        for (int i = 0; i < n; ++i) v1[i] = 0.01f * float(i + 1);
        auto p2 = p1, m2 = m1, v2 = v1;
        ref::adamw(p1.data(), g.data(), m1.data(), v1.data(), n, 0.9f, 0.95f, 1e-8f, 0.999f, 0.01f, 3.2f);
        adamw(p2.data(), g.data(), m2.data(), v2.data(), std::size_t(n), 0.9f, 0.95f, 1e-8f, 0.999f, 0.01f, 3.2f);
        INFO("n = " << n);
        CHECK(test::max_abs_diff(p2, p1) < 1e-6);
        CHECK(test::max_abs_diff(m2, m1) < 1e-7);
        CHECK(test::max_abs_diff(v2, v1) < 1e-7);
    }
}

#if defined(MHA_HAVE_SIMD)
TEST_CASE("the batch exp is libm's exp within 2 ulp, and 0, inf and NaN where xsimd's exp gives them", "[kernels]") {
    // a sweep over the whole float range of e^x, the softmax's and GELU's arguments, plus the bounds and specials
    using batch = xsimd::batch<float>;
    constexpr int W = static_cast<int>(batch::size);
    std::vector<float> xs;
    for (double x = -90.0; x <= 90.0; x += 0.0137) xs.push_back(float(x));
    for (float x : {0.0f, -0.0f, 1e-30f, -1e-30f, 0.5f * 0.693359375f, -88.0f, -88.37f, -88.38f, 88.37f, 88.38f,
                    -1000.0f, 1000.0f, 3e38f, -3e38f, INFINITY, -INFINITY, NAN})
        xs.push_back(x);
    while (xs.size() % W) xs.push_back(0.0f);
    int checked = 0;
    for (std::size_t i = 0; i < xs.size(); i += W) {
        alignas(64) float got[W];
        simd::exp_batch(batch::load_unaligned(xs.data() + i)).store_aligned(got);
        for (int l = 0; l < W; ++l) {
            const float x = xs[i + l];
            INFO("x = " << x << " got " << got[l]);
            if (std::isnan(x)) {
                CHECK(std::isnan(got[l]));
            } else if (x >= 88.3762626647949f) {
                CHECK(got[l] == INFINITY);
            } else if (x <= -88.3762626647949f) {
                CHECK(got[l] == 0.0f);
            } else {
                const double want = std::exp(double(x));
                // below FLT_MIN (x < -87.34) it gives 0 or a denormal, as xsimd's exp: within FLT_MIN
                CHECK(std::abs(got[l] - want) <= (want < FLT_MIN ? FLT_MIN : 2.0 * want * FLT_EPSILON));
                ++checked;
            }
        }
    }
    CHECK(checked > 12000);
}

TEST_CASE("the batch exp without its upper bound is the same bits for arguments <= 0 and NaN", "[kernels]") {
    // exp_batch<float, false>, for the softmax's x − max
    using batch = xsimd::batch<float>;
    constexpr int W = static_cast<int>(batch::size);
    std::vector<float> xs;
    for (double x = -100.0; x <= 0.0; x += 0.0071) xs.push_back(float(x));
    for (float x : {0.0f, -0.0f, -1e-30f, -87.33f, -88.0f, -88.37f, -88.38f, -1000.0f, -3e38f, -INFINITY, NAN})
        xs.push_back(x);
    while (xs.size() % W) xs.push_back(NAN);
    for (std::size_t i = 0; i < xs.size(); i += W) {
        const batch x = batch::load_unaligned(xs.data() + i);
        alignas(64) float bounded[W], lower_only[W];
        simd::exp_batch(x).store_aligned(bounded);
        simd::exp_batch<float, false>(x).store_aligned(lower_only);
        INFO("x from " << xs[i]);
        CHECK(std::memcmp(bounded, lower_only, sizeof bounded) == 0);
    }
}
#endif

TEST_CASE("xsimd softmax exponentials equal the scalar reference for every tail size", "[kernels]") {
    for (int n : {1, 2, 3, 4, 5, 8, 9, 17, 64, 65}) {
        auto x1 = test::random_vector<float>(n, 110 + n, 4.0);
        auto x2 = x1;
        const float s1 = ref::exp_shift_sum(x1.data(), n, 3.0f), s2 = exp_shift_sum(x2.data(), n, 3.0f);
        INFO("n = " << n);
        CHECK(s2 == Approx(s1).epsilon(1e-6));
        for (int i = 0; i < n; ++i) CHECK(x2[i] == Approx(x1[i]).epsilon(2e-6));
    }
}

TEST_CASE("xsimd causal softmax rows equal the scalar reference for every tail size", "[kernels]") {
    // (n live entries, row length T): every remainder of n and of T − n modulo the SIMD widths
    const int cases[][2] = {{1, 1}, {1, 3}, {3, 5}, {5, 17}, {17, 17}, {17, 65}, {33, 64}, {64, 65}, {65, 65}};
    for (const auto& c : cases) {
        const int n = c[0], T = c[1];
        INFO("n = " << n << " T = " << T);
        const auto pre = test::random_vector<float>(T, 120 + n, 4.0);
        auto want = pre, got = pre;
        ref::softmax_causal_row(want.data(), n, T, 0.25f);
        softmax_causal_row(got.data(), n, T, 0.25f);
        CHECK(test::max_abs_diff(got, want) < 2e-7);
        double sum = 0;
        for (int s = 0; s < n; ++s) sum += got[s];
        CHECK(sum == Approx(1.0).epsilon(1e-5));                 // a distribution over the live entries
        for (int s = n; s < T; ++s) CHECK(got[s] == 0.0f);       // the masked future is exactly 0

        const auto dy = test::random_vector<float>(T, 130 + n);
        auto dwant = dy, dgot = dy;
        ref::softmax_causal_row_backward(dwant.data(), want.data(), n, T, 0.25f);
        softmax_causal_row_backward(dgot.data(), want.data(), n, T, 0.25f);
        CHECK(test::max_abs_diff(dgot, dwant) < 2e-7);
        for (int s = n; s < T; ++s) CHECK(dgot[s] == 0.0f);
        auto djunk = dy;  // d past the live entries is not read either
        for (int s = n; s < T; ++s) djunk[s] = s % 2 ? NAN : INFINITY;
        softmax_causal_row_backward(djunk.data(), want.data(), n, T, 0.25f);
        CHECK(std::memcmp(djunk.data(), dgot.data(), djunk.size() * sizeof(float)) == 0);

        std::vector<double> p64(pre.begin(), pre.end()), w64 = p64;
        ref::softmax_causal_row(w64.data(), n, T, 0.25);
        softmax_causal_row(p64.data(), n, T, 0.25);
        CHECK(test::max_abs_diff(p64, w64) < 1e-15);

        // the masked future is not read: the causal score drivers leave it unwritten, so it may hold anything
        auto junk = pre;
        for (int s = n; s < T; ++s) junk[s] = s % 2 ? NAN : INFINITY;
        softmax_causal_row(junk.data(), n, T, 0.25f);
        CHECK(test::max_abs_diff(junk, want) < 2e-7);
        for (int s = n; s < T; ++s) CHECK(junk[s] == 0.0f);
    }
}

TEST_CASE("xsimd causal softmax of a whole head equals its rows one by one, bitwise", "[kernels]") {
    // softmax_causal runs rows in lock-step groups when the batch width divides T: every T mod each width, and a
    // scale <= 0, which takes the rows one by one. Above the diagonal the scores hold junk (NaN, inf): unread.
    auto check = [](auto zero, int T, double scale) {
        using S = decltype(zero);
        INFO("T = " << T << " scale " << scale << " (" << sizeof(S) * 8 << " bit)");
        const auto pre = test::random_vector<S>(std::size_t(T) * T, 140 + T, 4.0);
        std::vector<S> got = pre, rows = pre, want = pre;
        for (int t = 0; t < T; ++t)
            for (int s = t + 1; s < T; ++s) got[std::size_t(t) * T + s] = s % 2 ? S(NAN) : S(INFINITY);
        softmax_causal(got.data(), T, S(scale));
        for (int t = 0; t < T; ++t) softmax_causal_row(rows.data() + std::size_t(t) * T, t + 1, T, S(scale));
        ref::softmax_causal(want.data(), T, S(scale));
        CHECK(std::memcmp(got.data(), rows.data(), got.size() * sizeof(S)) == 0);
        CHECK(test::max_abs_diff(got, want) < (sizeof(S) == 4 ? 2e-7 : 1e-15));
    };
    for (int T : {1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 24, 32, 33, 48, 64, 65}) {
        check(0.0f, T, 0.25);
        check(0.0, T, 0.25);
    }
    check(0.0f, 64, -0.25);
    check(0.0f, 64, 0.0);
}

TEST_CASE("xsimd causal softmax backward of a whole head equals its rows one by one, bitwise", "[kernels]") {
    // softmax_causal_backward runs rows in lock-step groups when the batch width divides T (every T mod each width);
    // each row ends its last batch under a mask. att is zero above the diagonal, as the forward leaves it; d holds
    // junk there (NaN, inf: the causal score products leave it unwritten), which must not be read.
    auto check = [](auto zero, int T) {
        using S = decltype(zero);
        const S scale = S(0.25);
        INFO("T = " << T << " (" << sizeof(S) * 8 << " bit)");
        std::vector<S> att = test::random_vector<S>(std::size_t(T) * T, 150 + T, 4.0);
        ref::softmax_causal(att.data(), T, scale);
        const auto dy = test::random_vector<S>(std::size_t(T) * T, 160 + T);
        std::vector<S> got = dy, rows = dy, want = dy;
        for (int t = 0; t < T; ++t)
            for (int s = t + 1; s < T; ++s) got[std::size_t(t) * T + s] = s % 2 ? S(NAN) : S(INFINITY);
        softmax_causal_backward(got.data(), att.data(), T, scale);
        for (int t = 0; t < T; ++t)
            softmax_causal_row_backward(rows.data() + std::size_t(t) * T, att.data() + std::size_t(t) * T, t + 1, T, scale);
        ref::softmax_causal_backward(want.data(), att.data(), T, scale);
        CHECK(std::memcmp(got.data(), rows.data(), got.size() * sizeof(S)) == 0);
        CHECK(test::max_abs_diff(got, want) < (sizeof(S) == 4 ? 2e-7 : 1e-15));
        for (int t = 0; t < T; ++t)
            for (int s = t + 1; s < T; ++s) CHECK(got[std::size_t(t) * T + s] == S(0));
    };
    for (int T : {1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 24, 32, 33, 48, 64, 65}) {
        check(0.0f, T);
        check(0.0, T);
    }
}

namespace {
// a (T,T) lower-triangular operand as the causal softmax leaves att and dpre: random on and below the diagonal,
// exact zeros above it
template <class T>
std::vector<T> random_lower(int n, std::uint64_t seed) {
    auto a = test::random_vector<T>(std::size_t(n) * n, seed);
    for (int t = 0; t < n; ++t)
        for (int s = t + 1; s < n; ++s) a[std::size_t(t) * n + s] = T(0);
    return a;
}

// the lower triangle (s <= t) of a (T,T) row-major matrix
template <class T>
std::vector<T> lower_of(const std::vector<T>& m, int n) {
    std::vector<T> out;
    for (int t = 0; t < n; ++t)
        for (int s = 0; s <= t; ++s) out.push_back(m[std::size_t(t) * n + s]);
    return out;
}

// the same bits, not only equal values (+0 and -0 compare equal)
template <class T>
bool same_bits(const std::vector<T>& x, const std::vector<T>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

const std::vector<int> kCausalT = {1, 3, 5, 17, 64, 65};
const std::vector<int> kCausalHs = {1, 3, 4, 8, 16, 17, 64};

// pad > 0: the (T,hs) operands are the first hs columns of rows hs + pad wide, as a head inside a (B,T,D)
// projection; the columns between must come out as they went in
template <class T>
void check_causal_twins() {
    for (int n : kCausalT)
        for (int hs : kCausalHs)
            for (int pad : {0, 5}) {
                const int ld = hs + pad;
                INFO("T=" << n << " hs=" << hs << " row stride=" << ld);
                const auto a = test::random_vector<T>(std::size_t(n) * ld, 100 + n * hs);  // q (T,hs), rows ld apart
                const auto b = test::random_vector<T>(std::size_t(n) * ld, 200 + n * hs);  // k (T,hs)
                const auto lower = random_lower<T>(n, 300 + n);                              // att (T,T)
                std::vector<T> want(std::size_t(n) * n, T(7)), got = want;
                ref::matmul_nt_causal(want.data(), a.data(), ld, b.data(), ld, n, hs);
                matmul_nt_causal(got.data(), a.data(), ld, b.data(), ld, n, hs);
                REQUIRE(test::max_abs_diff(lower_of(got, n), lower_of(want, n)) <= sum_tolerance<T>(hs));
                for (int t = 0; t < n; ++t)  // the reference leaves what is above the diagonal alone
                    for (int s = t + 1; s < n; ++s) REQUIRE(want[std::size_t(t) * n + s] == T(7));
                for (bool accumulate : {false, true}) {
                    INFO("accumulate=" << accumulate);
                    const auto init = test::random_vector<T>(std::size_t(n) * ld, 400 + n * hs);
                    std::vector<T> w = init, g = init;
                    ref::matmul_nn_causal(w.data(), lower.data(), b.data(), n, hs, ld, accumulate);
                    matmul_nn_causal(g.data(), lower.data(), b.data(), n, hs, ld, accumulate);
                    REQUIRE(test::max_abs_diff(g, w) <= sum_tolerance<T>(n));  // the padding included
                    w = init, g = init;
                    ref::matmul_tn_causal(w.data(), lower.data(), b.data(), n, hs, ld, accumulate);
                    matmul_tn_causal(g.data(), lower.data(), b.data(), n, hs, ld, accumulate);
                    REQUIRE(test::max_abs_diff(g, w) <= sum_tolerance<T>(n));
                    for (int t = 0; t < n; ++t)
                        for (int c = hs; c < ld; ++c) REQUIRE(g[std::size_t(t) * ld + c] == init[std::size_t(t) * ld + c]);
                }
            }
}
}  // namespace

TEST_CASE("the causal reference products equal the full ones on the lower triangle", "[kernels]") {
    // independent of the fast kernels: the plain full products with the upper triangle of a set to zero
    for (int n : {1, 3, 5, 17})
        for (int hs : {1, 3, 8}) {
            INFO("T=" << n << " hs=" << hs);
            const auto a = test::random_vector<double>(std::size_t(n) * hs, 10 + n);
            const auto b = test::random_vector<double>(std::size_t(n) * hs, 20 + n);
            const auto lower = random_lower<double>(n, 30 + n);
            std::vector<double> full(std::size_t(n) * n), causal(full.size(), 0.0);
            ref::matmul_nt(full.data(), a.data(), b.data(), static_cast<const double*>(nullptr), n, n, hs, false);
            ref::matmul_nt_causal(causal.data(), a.data(), hs, b.data(), hs, n, hs);
            CHECK(test::max_abs_diff(lower_of(causal, n), lower_of(full, n)) < 1e-14);
            std::vector<double> want(std::size_t(n) * hs), got(want.size());
            ref::matmul_nn(want.data(), lower.data(), b.data(), n, hs, n, false);
            ref::matmul_nn_causal(got.data(), lower.data(), b.data(), n, hs, hs, false);
            CHECK(test::max_abs_diff(got, want) < 1e-14);
            ref::matmul_tn(want.data(), lower.data(), b.data(), n, hs, n, false);
            ref::matmul_tn_causal(got.data(), lower.data(), b.data(), n, hs, hs, false);
            CHECK(test::max_abs_diff(got, want) < 1e-14);
        }
}

TEST_CASE("xsimd causal products equal their scalar twins at awkward sizes (float32)", "[kernels]") {
    check_causal_twins<float>();
}

TEST_CASE("xsimd causal products equal their scalar twins at awkward sizes (float64)", "[kernels]") {
    check_causal_twins<double>();
}

TEST_CASE("the causal products are bitwise the full products on what causal attention reads", "[kernels]") {
    // the terms they skip are exact zeros, so on finite inputs every entry is the full product's to the bit where
    // it is summed by the vector kernel (explicit multiply-adds); columns on mm_rows' scalar tail (hs not a multiple
    // of the narrowest batch) are left to the compiler, which may contract a*b+s differently for another trip
    // count (g++ -O3 with FMA does): there they agree within the twins' tolerance. T = 130 and 300 cross
    // matmul_tn's chunks of 128.
#if defined(MHA_HAVE_SIMD)
    const int step = simd::mm_column_step<float>();
#else
    const int step = 1;
#endif
    for (int n : {1, 3, 5, 17, 64, 65, 130, 300})
        for (int hs : {1, 3, 4, 8, 16, 17, 64}) {
            INFO("T=" << n << " hs=" << hs);
            const auto a = test::random_vector<float>(std::size_t(n) * hs, 500 + n * hs);
            const auto b = test::random_vector<float>(std::size_t(n) * hs, 600 + n * hs);
            const auto lower = random_lower<float>(n, 700 + n);
            std::vector<float> full(std::size_t(n) * n), causal(full.size(), 0.0f);
            matmul_nt(full.data(), a.data(), b.data(), static_cast<const float*>(nullptr), n, n, hs, false);
            matmul_nt_causal(causal.data(), a.data(), hs, b.data(), hs, n, hs);
            REQUIRE(same_bits(lower_of(causal, n), lower_of(full, n)));  // same K = hs: every column path agrees
            const bool vector_columns = hs % step == 0;
            for (bool accumulate : {false, true}) {
                INFO("accumulate=" << accumulate << " vector columns=" << vector_columns);
                const auto init = test::random_vector<float>(std::size_t(n) * hs, 800 + n * hs);
                std::vector<float> want = init, got = init;
                matmul_nn(want.data(), lower.data(), b.data(), n, hs, n, accumulate);
                matmul_nn_causal(got.data(), lower.data(), b.data(), n, hs, hs, accumulate);
                if (vector_columns) REQUIRE(same_bits(got, want));
                else REQUIRE(test::max_abs_diff(got, want) <= sum_tolerance<float>(n));
                want = init, got = init;
                matmul_tn(want.data(), lower.data(), b.data(), n, hs, n, accumulate);
                matmul_tn_causal(got.data(), lower.data(), b.data(), n, hs, hs, accumulate);
                if (vector_columns) REQUIRE(same_bits(got, want));
                else REQUIRE(test::max_abs_diff(got, want) <= sum_tolerance<float>(n));
            }
        }
}
