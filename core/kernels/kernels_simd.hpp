// xsimd kernels (xsimd 8.1 dialect: batch<T> of the default arch, load_unaligned, fma, hadd, scalar
// tails). Natively the arch is what the compiler flags allow (AVX2+FMA by default); in wasm it is SSE2,
// which emscripten lowers to SIMD128. Each kernel has a twin in kernels_ref.hpp and a test that they agree
// for every tail size.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>
#include <vector>

#include <xsimd/xsimd.hpp>

#include "kernels_ref.hpp"

#if !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
#define MHA_HAVE_SIMD 1

namespace mha::simd {

// a · b + c for the matmuls' register blocks, the polynomials of exp and GELU, and the benchmark's fma ceiling loop:
// xsimd::fma (natively one fused instruction; in wasm SIMD128 a multiply and an add), or with relaxed SIMD (the
// page's second module, -mrelaxed-simd) f32x4.relaxed_madd, fused where the CPU has FMA. Emscripten 3.1.6's clang 14
// knows it only as the prototype __builtin_wasm_fma_f32x4 (p·q + r), whose opcode scripts/relaxed_simd.mjs rewrites
// to the standard one after the link. Natively and in mha.wasm madd is xsimd::fma, so only the relaxed module's bits
// depend on it. The running sums of LayerNorm and the softmax backward, and AdamW, keep xsimd::fma: fused, the sums
// ran 10-15% slower in node and AdamW no faster (docs/experiments.md, "Relaxed SIMD").
template <class B>
inline B madd(const B& a, const B& b, const B& c) {
#if defined(__wasm_relaxed_simd__)
    if constexpr (std::is_same_v<typename B::value_type, float>) {
        using f32x4 = float __attribute__((vector_size(16)));
        return B(__m128(__builtin_wasm_fma_f32x4(f32x4(__m128(a)), f32x4(__m128(b)), f32x4(__m128(c)))));
    }
#endif
    return xsimd::fma(a, b, c);
}

// ---------------------------------------------------------------- A · b (broadcast-multiply along N)
// out (M,N) [+]= A · b (K,N) [+ bias (N)], where A is (M,K) read as a[m*lda + k] or, with ATRANS, the transpose
// of a (K,M) read as a[k*lda + m]: one kernel serves a·b, aᵀ·b and (through a packed bᵀ) a·bᵀ.
// The register block is MR rows × NB batches of columns; its MR·NB accumulators stay in registers over all of
// K, and each k costs NB loads of b, MR broadcasts of a and MR·NB multiply-adds. The block is sized to the
// register file: with 16 vector registers (SSE2, AVX2) 6×2 batches, 12 accumulators + 2 of b + 1 broadcast = 15
// registers (BLIS's Haswell shape); with 32 (AVX-512) 8×2; in wasm SIMD128 4×2, as V8 has 16 xmm but keeps one as
// scratch, and no FMA (a multiply-add is a multiply and an add, on separate ports) unless relaxed SIMD's (madd).
template <class T>
struct MatmulBlock {
    static constexpr int NB = 2;
#if defined(__AVX512F__)
    static constexpr int MR = 8;
#elif defined(__EMSCRIPTEN__)
    // V8 keeps xmm15 as scratch: 6×2 spills, and ran slower than 4×2; with relaxed SIMD's fused multiply-add (no
    // product register) 5×2 and 6×2 ran slower than 4×2 too (measured: docs/experiments.md, "Speed of the kernels")
    static constexpr int MR = 4;
#else
    static constexpr int MR = 6;
#endif
};

// out_rows (R,N) [+]= A_rows · b[:, n..n+NB·W) for the NB·W columns from n. A_rows is a strip of R rows of A
// transposed, strip[k*lds + r] (lds >= R), so each k reads R neighbours through one pointer; or, with ROWS, R rows
// read in place, strip[r*lds + k].
template <class T, int R, int NB, bool ROWS = false, class Arch = xsimd::default_arch>
inline void mm_block(T* out_rows, int ld, const T* strip, int lds, const T* b, int ldb, const T* bias, int n, int K,
                     bool accumulate) {
    using batch = xsimd::batch<T, Arch>;
    constexpr int W = static_cast<int>(batch::size);
    batch acc[R][NB];
    for (int j = 0; j < NB; ++j) {
        const batch start = bias ? batch::load_unaligned(bias + n + j * W) : batch(T(0));
        for (int r = 0; r < R; ++r) acc[r][j] = start;
    }
    const T* bk = b;
    const T* ak = strip;
    for (int k = 0; k < K; ++k, bk += ldb, ak += ROWS ? 1 : lds) {
        batch bv[NB];
        for (int j = 0; j < NB; ++j) bv[j] = batch::load_unaligned(bk + j * W);
        for (int r = 0; r < R; ++r) {
            const batch ar(ROWS ? ak[r * lds] : ak[r]);
            for (int j = 0; j < NB; ++j) acc[r][j] = madd(ar, bv[j], acc[r][j]);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int j = 0; j < NB; ++j) {
            T* o = out_rows + std::size_t(r) * ld + n + j * W;
            if (accumulate) acc[r][j] += batch::load_unaligned(o);
            acc[r][j].store_unaligned(o);
        }
}

// Where the columns of b (K,N) are: row-major (ld floats apart), or packed in panels, the columns n0 .. n0+P-1
// (P = NB·W, one register block's width) as K rows of P floats, panel after panel, the last panel's columns past N
// zero (mm_last_columns reads them). A register block then reads one contiguous stream. Row-major, the rows of a
// (K,256) b are 1 kB apart and all fall into 4 of the 64 sets of a 48 kB 12-way L1, so a block's K rows evict each
// other (and the K = 256 rows of a (256,64) b fill 16 sets 16 deep). In panels tiny-char's shapes with a side of 256
// ran faster in node, the 64×64 weights the same; weight gradients (matmul_tn) gained nothing (measured:
// docs/experiments.md, "Speed of the kernels").
template <class T>
struct BView {
    static constexpr int P = MatmulBlock<T>::NB * static_cast<int>(xsimd::batch<T>::size);
    const T* p;
    int N, K;  // row-major: N is the row stride; panels: N columns of K rows
    bool panels;
    static BView rows(const T* b, int ld) { return {b, ld, 0, false}; }
    static BView packed(const T* b, int N, int K) { return {b, N, K, true}; }
    const T* at(int n) const { return panels ? p + std::size_t(n / P) * P * K + n % P : p + n; }
    int ld() const { return panels ? P : N; }
};

// floats in b (K,N) packed in panels, the last one padded to P columns
template <class T>
std::size_t panels_size(int N, int K) {
    constexpr int P = BView<T>::P;
    return std::size_t((N + P - 1) / P) * P * K;
}

// The scratch buffer b is packed into, at least n floats: it grows to the largest operand once, and then no step
// allocates. One per thread and scalar type, shared by matmul_nt, matmul_nt_causal, and matmul_nn and
// matmul_nn_times (through nn_b_view): none of them calls another, and each packs and reads it within one call.
template <class T>
T* packing_buffer(std::size_t n) {
    thread_local std::vector<T> buf;
    if (buf.size() < n) buf.resize(n);
    return buf.data();
}

// a panel's K rows of P floats: columns w .. P-1 (past N, in the last panel) <- 0
template <class T>
void zero_panel_padding(T* panel, int w, int K) {
    constexpr int P = BView<T>::P;
    for (int k = 0; k < K && w < P; ++k)
        std::fill(panel + std::size_t(k) * P + w, panel + std::size_t(k + 1) * P, T(0));
}

// bp (K,N) in panels (panels_size floats) <- b (K,N) row-major
template <class T>
void pack_panels(T* bp, const T* b, int N, int K) {
    constexpr int P = BView<T>::P;
    for (int n0 = 0; n0 < N; n0 += P) {
        const int w = std::min(P, N - n0);
        T* panel = bp + std::size_t(n0) * K;
        for (int k = 0; k < K; ++k)
            for (int j = 0; j < w; ++j) panel[std::size_t(k) * P + j] = b[std::size_t(k) * N + n0 + j];
        zero_panel_padding(panel, w, K);
    }
}

// The narrowest batch mm_rows runs: natively with AVX-512 a 32-byte one (see mm_rows), elsewhere the default
#if defined(__AVX512F__)
using NarrowArch = xsimd::avx2;
#else
using NarrowArch = xsimd::default_arch;
#endif

// out_rows[:, n..N), the w = N - n last columns (fewer than a narrow batch), from b in padded panels: one narrow
// batch of the panel, its columns past N the padding's zeros, computed in a small scratch of which the first w
// columns are kept. Each kept column is the scalar loop's sum (bias, the multiply-adds in k order, then the old value
// added) as a lane. Faster than the scalar loop per row it replaced, on a /tmp driver natively and in lm_head's
// forward natively and in the Chromium worker (measured: docs/experiments.md, "Speed of the kernels").
// The scalar loop stays in mm_rows: moved into this function, it made clang's wasm matmul_tn, which never comes
// here, much slower in node (measured: the same).
template <class T, int R, bool ROWS>
inline void mm_last_columns(T* out_rows, int ld, const T* strip, int lds, const BView<T>& b, const T* bias, int n,
                            int N, int K, bool accumulate) {
    constexpr int V = static_cast<int>(xsimd::batch<T, NarrowArch>::size);
    const int w = N - n;
    alignas(64) T cols[R * V];  // (R,V): the block's rows, its columns n .. n+V-1
    alignas(64) T bias_cols[V];
    for (int j = 0; j < V; ++j) bias_cols[j] = bias && j < w ? bias[n + j] : T(0);
    for (int r = 0; r < R && accumulate; ++r)
        for (int j = 0; j < V; ++j) cols[r * V + j] = j < w ? out_rows[std::size_t(r) * ld + n + j] : T(0);
    mm_block<T, R, 1, ROWS, NarrowArch>(cols, V, strip, lds, b.at(n), b.ld(), bias ? bias_cols : nullptr, 0, K,
                                        accumulate);
    for (int r = 0; r < R; ++r)
        for (int j = 0; j < w; ++j) out_rows[std::size_t(r) * ld + n + j] = cols[r * V + j];
}

// R rows of out from their strip, columns 0 .. N-1: full column blocks, one narrower block for a leftover batch,
// then the last columns (mm_last_columns, or scalar). ld (>= N) is the row stride of both out and b: the causal
// products compute a left part of each row block of a (T,T) out, whose rows stay T apart.
template <class T, int R, bool ROWS = false>
inline void mm_rows(T* out_rows, const T* strip, int lds, const BView<T>& b, const T* bias, int N, int ld, int K,
                    bool accumulate) {
    constexpr int W = static_cast<int>(xsimd::batch<T>::size);
    constexpr int NB = MatmulBlock<T>::NB;
    static_assert(NB == 2, "the tail below handles one leftover batch");
    int n = 0;
    for (; n + NB * W <= N; n += NB * W)
        mm_block<T, R, NB, ROWS>(out_rows, ld, strip, lds, b.at(n), b.ld(), bias, n, K, accumulate);
    if (n + W <= N) {
        mm_block<T, R, 1, ROWS>(out_rows, ld, strip, lds, b.at(n), b.ld(), bias, n, K, accumulate);
        n += W;
    }
#if defined(__AVX512F__)
    // a 32-byte batch for what is left: with 16-float batches, 8-wide heads (hs = 8 at H = 8) would otherwise all
    // run on the scalar tail below (measured: docs/experiments.md, "Speed of the kernels", native AVX-512 at H = 8)
    constexpr int HW = static_cast<int>(xsimd::batch<T, NarrowArch>::size);
    if (n + HW <= N) {
        mm_block<T, R, 1, ROWS, NarrowArch>(out_rows, ld, strip, lds, b.at(n), b.ld(), bias, n, K, accumulate);
        n += HW;
    }
#endif
    if (n < N && b.panels)
        return mm_last_columns<T, R, ROWS>(out_rows, ld, strip, lds, b, bias, n, N, K, accumulate);
    for (; n < N; ++n) {  // scalar tail columns: a row-major b has no padding to read past N
        const T* bn = b.at(n);
        const int ldn = b.ld();
        for (int r = 0; r < R; ++r) {
            T s = bias ? bias[n] : T(0);
            for (int k = 0; k < K; ++k)
                s += (ROWS ? strip[std::size_t(r) * lds + k] : strip[std::size_t(k) * lds + r]) *
                     bn[std::size_t(k) * ldn];
            T& o = out_rows[std::size_t(r) * ld + n];
            o = accumulate ? o + s : s;
        }
    }
}

// rows m .. m+rows-1 (rows <= R) in one block of that height
template <class T, int R, bool ROWS>
inline void mm_tail_rows(int rows, T* out_rows, const T* strip, int lds, const BView<T>& b, const T* bias, int N,
                         int ld, int K, bool accumulate) {
    if constexpr (R > 0) {
        if (rows == R) return mm_rows<T, R, ROWS>(out_rows, strip, lds, b, bias, N, ld, K, accumulate);
        mm_tail_rows<T, R - 1, ROWS>(rows, out_rows, strip, lds, b, bias, N, ld, K, accumulate);
    }
}

// whether matmul_blocked reads A's rows in place (ROWS) for an out N columns wide, or copies strips (see below)
template <class T>
constexpr bool mm_rows_in_place(int N) {
    return N < 4 * MatmulBlock<T>::NB * static_cast<int>(xsimd::batch<T>::size);
}

// rows r < R of a (read a[r*lda + k]) -> strip s[k*lds + r], k < K (lds >= R): the transposed copy matmul_blocked's
// kernel reads, and a quarter of a packed panel of bᵀ. With 4-float batches and R = 4 (wasm) each 4×4 tile is moved
// by 4 loads, 8 zips and 4 stores. On the qkvo forward (1024×64×64) in node the tiles ran faster than the scalar
// copy, close to the kernel rows alone (measured: docs/experiments.md, "Speed of the kernels").
template <class T, int R>
inline void copy_strip(T* s, int lds, const T* a, int lda, int K) {
    using batch = xsimd::batch<T>;
    int k = 0;
    if constexpr (R == 4 && batch::size == 4 && std::is_same<T, float>::value) {
        using wide = xsimd::batch<double, typename batch::arch_type>;  // a pair of floats as one lane
        for (; k + 4 <= K; k += 4) {
            const batch r0 = batch::load_unaligned(a + k), r1 = batch::load_unaligned(a + lda + k);
            const batch r2 = batch::load_unaligned(a + 2 * std::size_t(lda) + k);
            const batch r3 = batch::load_unaligned(a + 3 * std::size_t(lda) + k);
            // t01 = (r0k0 r1k0 r0k1 r1k1), t23 = (r2k0 r3k0 r2k1 r3k1), likewise for k2, k3 from the high halves
            const wide t01 = xsimd::bitwise_cast<wide>(xsimd::zip_lo(r0, r1)), t23 = xsimd::bitwise_cast<wide>(xsimd::zip_lo(r2, r3));
            const wide u01 = xsimd::bitwise_cast<wide>(xsimd::zip_hi(r0, r1)), u23 = xsimd::bitwise_cast<wide>(xsimd::zip_hi(r2, r3));
            xsimd::bitwise_cast<batch>(xsimd::zip_lo(t01, t23)).store_unaligned(s + std::size_t(k) * lds);
            xsimd::bitwise_cast<batch>(xsimd::zip_hi(t01, t23)).store_unaligned(s + std::size_t(k + 1) * lds);
            xsimd::bitwise_cast<batch>(xsimd::zip_lo(u01, u23)).store_unaligned(s + std::size_t(k + 2) * lds);
            xsimd::bitwise_cast<batch>(xsimd::zip_hi(u01, u23)).store_unaligned(s + std::size_t(k + 3) * lds);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int kk = k; kk < K; ++kk) s[std::size_t(kk) * lds + r] = a[std::size_t(r) * lda + kk];
}

// bt (K,N) in panels (see BView) <- b (N,K) transposed (rows ldb apart); BView::packed(bt, N, K) reads it. In wasm
// a whole panel (8 columns) is two 4-row strips of 4×4 tiles: q kᵀ and dy vᵀ pack a head's (T,hs) k or v per call.
template <class T>
void pack_transposed_panels(T* bt, const T* b, int ldb, int N, int K) {
    constexpr int P = BView<T>::P;
    constexpr bool tiles = xsimd::batch<T>::size == 4 && P == 8 && std::is_same<T, float>::value;
    for (int n0 = 0; n0 < N; n0 += P) {
        const int w = std::min(P, N - n0);
        T* panel = bt + std::size_t(n0) * K;
        const T* rows = b + std::size_t(n0) * ldb;
        if (tiles && w == P) {
            copy_strip<T, 4>(panel, P, rows, ldb, K);
            copy_strip<T, 4>(panel + 4, P, rows + 4 * std::size_t(ldb), ldb, K);
            continue;
        }
        for (int j = 0; j < w; ++j)
            for (int k = 0; k < K; ++k) panel[std::size_t(k) * P + j] = rows[std::size_t(j) * ldb + k];
        zero_panel_padding(panel, w, K);
    }
}

// One row block of matmul_blocked: out rows m .. m+rows-1 (rows <= MR; out and b have row stride ld), columns
// 0 .. N-1, summed over k = 0 .. K-1. ATRANS reads its strip in place; otherwise A's rows are read in place
// (in_place) or first copied to a (K,rows) strip.
template <class T, bool ATRANS>
inline void mm_row_block(T* out, const T* a, int lda, const BView<T>& b, const T* bias, int m, int rows, int N, int ld,
                         int K, bool in_place, bool accumulate) {
    constexpr int MR = MatmulBlock<T>::MR;
    T* out_rows = out + std::size_t(m) * ld;
    if constexpr (ATRANS) {
        mm_tail_rows<T, MR, false>(rows, out_rows, a + m, lda, b, bias, N, ld, K, accumulate);
    } else if (in_place) {
        mm_tail_rows<T, MR, true>(rows, out_rows, a + std::size_t(m) * lda, lda, b, bias, N, ld, K, accumulate);
    } else {
        thread_local std::vector<T> strip_buf;  // grows once to the largest K, then no step allocates
        if (strip_buf.size() < std::size_t(K) * MR) strip_buf.resize(std::size_t(K) * MR);
        T* strip = strip_buf.data();
        const T* rows_at = a + std::size_t(m) * lda;
        if (rows == MR) {
            copy_strip<T, MR>(strip, MR, rows_at, lda, K);
        } else {
            for (int r = 0; r < rows; ++r)
                for (int k = 0; k < K; ++k) strip[std::size_t(k) * rows + r] = rows_at[std::size_t(r) * lda + k];
        }
        mm_tail_rows<T, MR, false>(rows, out_rows, strip, rows, b, bias, N, ld, K, accumulate);
    }
}

// out (M,N) [+]= A · b (K,N) [+ bias (N)]. A is a (M,K) read a[m*lda + k], or with ATRANS the transpose of a
// (K,M) read a[k*lda + m]. ATRANS reads its strips in place; otherwise, when out has four column blocks or more,
// each MR rows of a are first copied to a (K,MR) strip (MR·K copies against MR·N·K multiply-adds), so the inner
// loop has one pointer and constant offsets (in wasm, MR row pointers with strides ran the tiny-char shapes slower
// than the strips: docs/experiments.md, "Speed of the kernels"); a narrower out (the attention's (T,hs)
// products) reads its rows in place.
template <class T, bool ATRANS>
void matmul_blocked(T* out, const T* a, int lda, const BView<T>& b, const T* bias, int M, int N, int K,
                    bool accumulate) {
    constexpr int MR = MatmulBlock<T>::MR;
    const bool in_place = mm_rows_in_place<T>(N);
    for (int m = 0; m < M; m += MR)
        mm_row_block<T, ATRANS>(out, a, lda, b, bias, m, std::min(MR, M - m), N, N, K, in_place, accumulate);
}

// how the nn products read b (K,N): a b of more than two panels is first packed in panels (K·N copies against
// M·N·K multiply-adds; see BView), a narrower one is read row-major
template <class T>
BView<T> nn_b_view(const T* b, int N, int K) {
    if (N <= 2 * BView<T>::P) return BView<T>::rows(b, N);
    T* packed = packing_buffer<T>(panels_size<T>(N, K));
    pack_panels(packed, b, N, K);
    return BView<T>::packed(packed, N, K);
}

// out (M,N) [+]= a (M,K) · b (K,N)
template <class T>
void matmul_nn(T* out, const T* a, const T* b, int M, int N, int K, bool accumulate) {
    matmul_blocked<T, false>(out, a, K, nn_b_view(b, N, K), nullptr, M, N, K, accumulate);
}

// out (M,N) = (a (M,K) · b (K,N)) ⊙ factor (M,N), element by element: the gradient of a Linear's input times
// the saved derivative of the op that made that input (mlp.proj's dinp times gelu'), in one pass. Each row block
// of the product goes to a small scratch (MR rows, in L1) and leaves it multiplied into out; the product alone,
// (M,N) floats written and read again by the multiply's own pass, is never stored. The values are matmul_nn's,
// then one multiply each: the same bits as matmul_nn followed by gelu_backward_saved.
template <class T>
void matmul_nn_times(T* out, const T* factor, const T* a, const T* b, int M, int N, int K) {
    using batch = xsimd::batch<T>;
    constexpr int MR = MatmulBlock<T>::MR, W = static_cast<int>(batch::size);
    const BView<T> bv = nn_b_view(b, N, K);
    thread_local std::vector<T> scratch;  // (MR,N): grows once to the widest N, then no step allocates
    if (scratch.size() < std::size_t(MR) * N) scratch.resize(std::size_t(MR) * N);
    const bool in_place = mm_rows_in_place<T>(N);
    for (int m = 0; m < M; m += MR) {
        const int rows = std::min(MR, M - m);
        mm_row_block<T, false>(scratch.data(), a + std::size_t(m) * K, K, bv, nullptr, 0, rows, N, N, K, in_place,
                               false);
        const std::size_t at = std::size_t(m) * N, n = std::size_t(rows) * N, n_vec = n - n % W;
        for (std::size_t i = 0; i < n_vec; i += W)
            (batch::load_unaligned(factor + at + i) * batch::load_unaligned(scratch.data() + i))
                .store_unaligned(out + at + i);
        for (std::size_t i = n_vec; i < n; ++i) out[at + i] = factor[at + i] * scratch[i];
    }
}

// out (M,N) [+]= a (K,M)ᵀ · b (K,N). In a weight gradient K is the batch's tokens (1024 for tiny-char), so K is
// walked in chunks of TN_CHUNK rows, each added to out: a chunk of a and b (128 × (M + N) floats, 160 kB for
// mlp.fc's 256 + 64) is re-read by every column block of out from near caches, where the whole K streamed both
// from further away. Faster on tiny-char's 256×64×1024 in wasm and natively; chunks of 64 and 256 gave less
// (measured: docs/experiments.md, "Speed of the kernels"). The sums are taken in
// another order than one pass (chunk by chunk), within the twins' tolerance for two orders.
constexpr int TN_CHUNK = 128;
template <class T>
void matmul_tn(T* out, const T* a, const T* b, int M, int N, int K, bool accumulate) {
    if (K == 0) {  // a sum of nothing; a and b may be null then, and no pointer is offset from them
        if (!accumulate) std::fill(out, out + std::size_t(M) * N, T(0));
        return;
    }
    for (int k0 = 0; k0 < K; k0 += TN_CHUNK)
        matmul_blocked<T, true>(out, a + std::size_t(k0) * M, M, BView<T>::rows(b + std::size_t(k0) * N, N), nullptr,
                                M, N, std::min(TN_CHUNK, K - k0), accumulate || k0 > 0);
}

// out (M,N) [+]= a (K,M)ᵀ · b (K,N) as matmul_tn, and colsum (M) += Σ_k a[k,:] (null: no sum): a Linear's dweight
// and its dbias, both from dout = a, which the bias's column sum read a second time in a pass of its own. Where a
// register block's rows are one batch (wasm: MR = W = 4), each chunk's rows m .. m+3 of aᵀ are first copied to a
// contiguous (kc,4) strip, a batch load and store per k, and that batch is added to colsum on its way: colsum's
// lanes sum over k in order, the same bits as ref::column_sum_add. The kernel then reads the strip with constant
// offsets instead of a's rows M apart (1 kB for mlp.fc's M = 256, which puts a chunk's 128 rows into 4 of L1's 64
// sets). Faster for mlp.fc's 256x64x1024 in node, the narrower shapes within the machine's noise, and all dweight
// and dbias rows of the Chromium worker's H = 4 step together faster (measured:
// docs/experiments.md, "Speed of the kernels"). The product's sums are matmul_tn's,
// bit for bit. Elsewhere (native: MR = 6 or 8 rows against 8 or 16 lanes) matmul_tn, then the sum.
template <class T>
constexpr bool tn_colsum_one_pass() {
    return MatmulBlock<T>::MR == static_cast<int>(xsimd::batch<T>::size);
}
template <class T>
void matmul_tn_colsum(T* out, T* colsum, const T* a, const T* b, int M, int N, int K, bool accumulate) {
    using batch = xsimd::batch<T>;
    constexpr int MR = MatmulBlock<T>::MR;
    if constexpr (!tn_colsum_one_pass<T>()) {
        matmul_tn(out, a, b, M, N, K, accumulate);
        if (colsum) ref::column_sum_add(colsum, a, K, M);
    } else {
        if (K == 0) return matmul_tn(out, a, b, M, N, K, accumulate);  // a sum of nothing (colsum keeps its values)
        alignas(64) T strip[TN_CHUNK * MR];  // (kc, rows) of aᵀ, rows = MR but in the last row block
        for (int k0 = 0; k0 < K; k0 += TN_CHUNK) {
            const int kc = std::min(TN_CHUNK, K - k0);
            const BView<T> bk = BView<T>::rows(b + std::size_t(k0) * N, N);
            for (int m = 0; m < M; m += MR) {
                const int rows = std::min(MR, M - m);
                const T* am = a + std::size_t(k0) * M + m;  // am[k*M + r] = a[k0 + k, m + r]
                if (rows == MR) {
                    batch sum = colsum ? batch::load_unaligned(colsum + m) : batch(T(0));
                    for (int k = 0; k < kc; ++k) {
                        const batch v = batch::load_unaligned(am + std::size_t(k) * M);
                        v.store_aligned(strip + k * MR);
                        sum += v;
                    }
                    if (colsum) sum.store_unaligned(colsum + m);
                } else {
                    for (int k = 0; k < kc; ++k)
                        for (int r = 0; r < rows; ++r) {
                            strip[k * rows + r] = am[std::size_t(k) * M + r];
                            if (colsum) colsum[m + r] += strip[k * rows + r];
                        }
                }
                mm_tail_rows<T, MR, false>(rows, out + std::size_t(m) * N, strip, rows, bk, nullptr, N, N, kc,
                                           accumulate || k0 > 0);
            }
        }
    }
}

// ---------------------------------------------------------------- causal attention products, twins of ref::*_causal
// Per (b,h) a causal attention head forms three (T,T)·(T,hs) products with a lower-triangular (T,T) side (att, or
// dpre: zero above the diagonal, as the causal softmax rows and their backward write them) and two (T,T) score
// products of which only the lower triangle is read. These drivers do only the causal part, at the granularity of
// the register block, with matmul_blocked's row blocks. What they skip are exact zeros (x·0 added to a sum changes
// nothing, a sum starting at +0 stays +0), so for finite inputs each entry they compute is bitwise the entry of the
// full product where the vector kernel sums it (the same multiply-adds in the same order). Columns on mm_rows'
// scalar tail (a head size that is not a multiple of the narrowest batch) are left to the compiler's contraction
// of a*b+s, which g++ -O3 with FMA may choose differently for another trip count: within the twins' tolerance.

// the narrowest column block mm_rows runs as vectors: a causal row block's columns are rounded up to it
template <class S>
constexpr int mm_column_step() {
    return static_cast<int>(xsimd::batch<S, NarrowArch>::size);
}

// out (T,T) = a (T,K) · b (T,K)ᵀ on and below the diagonal (q kᵀ, dy vᵀ); a's and b's rows are lda and ldb apart
// (>= K: a head's rows inside a (B,T,D) projection). Row block m .. m+R-1 computes its columns 0 .. m+R-1,
// rounded up to mm_column_step (at most T); the rest of its rows, above the diagonal, is not written (the causal
// softmax rows and their backward overwrite it with zeros, and read only s <= t).
template <class S>
void matmul_nt_causal(S* out, const S* a, int lda, const S* b, int ldb, int T, int K) {
    constexpr int MR = MatmulBlock<S>::MR, G = mm_column_step<S>();
    S* packed = packing_buffer<S>(panels_size<S>(T, K));  // bᵀ (K,T) in panels
    pack_transposed_panels(packed, b, ldb, T, K);
    const BView<S> bt = BView<S>::packed(packed, T, K);
    const bool in_place = mm_rows_in_place<S>(T);  // as matmul_nt's (T,T) out: the same path per entry
    for (int m = 0; m < T; m += MR) {
        const int rows = std::min(MR, T - m);
        const int cols = std::min(T, (m + rows + G - 1) / G * G);
        mm_row_block<S, false>(out, a, lda, bt, nullptr, m, rows, cols, T, K, in_place, false);
    }
}

// out (T,N) [+]= a (T,T) · b (T,N), a zero above the diagonal (att v, dpre k); the rows of out and b are ld apart
// (>= N). Row block m .. m+R-1 sums over s < m+R: a row t's terms for s > t are exact zeros at the end of its sum.
// a is read only up to column m+R-1.
template <class S>
void matmul_nn_causal(S* out, const S* a, const S* b, int T, int N, int ld, bool accumulate) {
    constexpr int MR = MatmulBlock<S>::MR;
    const bool in_place = mm_rows_in_place<S>(N);
    for (int m = 0; m < T; m += MR) {
        const int rows = std::min(MR, T - m);
        mm_row_block<S, false>(out, a, T, BView<S>::rows(b, ld), nullptr, m, rows, N, ld, m + rows, in_place,
                               accumulate);
    }
}

// out (T,N) [+]= a (T,T)ᵀ · b (T,N), a zero above the diagonal (dv += attᵀ dy, dk += dpreᵀ q); the rows of out and
// b are ld apart (>= N). Out row s sums a[t,s] b[t] over t >= s: row block s0 .. s0+R-1 starts its sum at t = s0
// (the terms before are exact zeros).
// t is walked in matmul_tn's chunks of TN_CHUNK from t = 0, so every partial sum is the one matmul_tn adds.
template <class S>
void matmul_tn_causal(S* out, const S* a, const S* b, int T, int N, int ld, bool accumulate) {
    constexpr int MR = MatmulBlock<S>::MR;
    for (int m = 0; m < T; m += MR) {
        const int rows = std::min(MR, T - m);
        for (int k0 = m / TN_CHUNK * TN_CHUNK; k0 < T; k0 += TN_CHUNK) {
            const int kb = std::max(k0, m), ke = std::min(k0 + TN_CHUNK, T);  // this chunk's t, from the block's row
            mm_row_block<S, true>(out, a + std::size_t(kb) * T, T, BView<S>::rows(b + std::size_t(kb) * ld, ld),
                                  nullptr, m, rows, N, ld, ke - kb, false, accumulate || k0 > m);
        }
    }
}

// ---------------------------------------------------------------- a kernel's constants as batches
// What a kernel's batches of constants (ExpConstants, GeluConstants) are made from, once per kernel call: in wasm
// a writable copy of the values, which the compiler cannot fold into v128.const; natively the constexpr values,
// which fold as literals. V8 builds a v128.const again at each use inside a loop (movq r10,imm64; vmovq;
// vpunpcklqdq, seen with node --print-wasm-code), where a splat made before the loop stays in a register or is
// reloaded from its spill slot. GELU's small path had eleven such constants per batch: in the Chromium worker the
// forward GELU of an H = 4 step got much faster, in node 20's older V8 a little, bit for bit the same (measured:
// docs/experiments.md, "Speed of the kernels").
template <class Values>
const auto& constants_for_batches() {
#if defined(__EMSCRIPTEN__)
    static auto table = Values::values;  // constant-initialised and never written, but not const
    return table;
#else
    return Values::values;
#endif
}

// ---------------------------------------------------------------- e^x of a batch, for the softmax rows and GELU
// exp_batch's constants for float, as batches (see constants_for_batches); doubles take xsimd::exp and need none
template <class T>
struct ExpConstants {};
template <>
struct ExpConstants<float> {
    struct Values {
        // 1.5·2^23; 1/ln 2; ln 2 in two parts (xsimd's log_2hi, log_2lo); the polynomial; 1; exp's upper bound;
        // inf; the floor below which e^x is 0 (see exp_batch)
        static constexpr std::array<float, 13> values = {12582912.0f,     1.44269504088896341f, 0.693359375f,
                                                         -2.12194440e-4f, 1.3997796e-03f,       8.3955629e-03f,
                                                         4.1665401e-02f,  1.6666277e-01f,       5.0000000e-01f,
                                                         1.0f,            88.3762626647949f,    INFINITY,
                                                         -88.0f};
    };
    using batch = xsimd::batch<float>;
    using ibatch = xsimd::batch<int32_t, batch::arch_type>;
    const std::array<float, 13>& v = constants_for_batches<Values>();
    batch magic = batch(v[0]), log2e = batch(v[1]), minus_ln2_hi = batch(-v[2]), minus_ln2_lo = batch(-v[3]);
    batch p0 = batch(v[4]), p1 = batch(v[5]), p2 = batch(v[6]), p3 = batch(v[7]), p4 = batch(v[8]);
    batch one = batch(v[9]), upper = batch(v[10]), infinity = batch(v[11]), floor = batch(v[12]);
    ibatch exponent_bias = xsimd::bitwise_cast<ibatch>(one);  // 1.0f's bits are 127 << 23
};

// max(x, floor) lane by lane, where a NaN lane of x stays NaN, in one instruction: x86's maxps (floor > x ? floor :
// x) natively; in wasm f32x4.pmax (x < floor ? floor : x), which V8 lowers to one maxps, where Emscripten's
// _mm_max_ps is a compare and a bitselect (four instructions in V8)
inline xsimd::batch<float> floor_at(const xsimd::batch<float>& x, const xsimd::batch<float>& floor) {
#if defined(__EMSCRIPTEN__)
    return xsimd::batch<float>((__m128)wasm_f32x4_pmax((v128_t)x.data, (v128_t)floor.data));  // bit casts
#else
    return xsimd::max(floor, x);
#endif
}

// xsimd::exp's own reduction and polynomial for float (Cephes expf: x = k ln2 + r, |r| <= ln2/2, e^r = 1 + r +
// r² p(r)) and its bounds (0 at or below -88.38, +inf at or above 88.38; NaN stays NaN through the product), in
// fewer instructions: k rounded by adding 1.5·2^23 (which leaves k in the sum's low bits) instead of SSE2's emulated
// nearbyint, and 2^k built from those bits instead of a float -> int conversion. In V8's optimised code
// (node --print-wasm-code) xsimd::exp in the softmax row was about 75 machine instructions per batch, this one
// about 45, and faster per batch in node, and a head's causal softmax rows with it, with the two changes to the row
// below (measured: docs/experiments.md, "Speed of the kernels"). Doubles take xsimd::exp.
// The softmax rows, whose arguments x − max are never positive, pass UPPER = false and skip the upper bound's
// compare and select: for x <= 0 and NaN the result is the same bits.
template <class T, bool UPPER = true>
inline xsimd::batch<T> exp_batch(const xsimd::batch<T>& x_in, const ExpConstants<T>& c) {
    using batch = xsimd::batch<T>;
    if constexpr (!std::is_same<T, float>::value) {
        return xsimd::exp(x_in);
    } else {
        using ibatch = typename ExpConstants<T>::ibatch;
        // x at or below -88 as -88, whose k is -127 and whose 2^k below is 0: e^x is 0 there, as it is for every
        // x <= -87.68 (k = -127), and as xsimd's bound gives below -88.38. A NaN stays NaN.
        const batch x = floor_at(x_in, c.floor);
        const batch t = madd(x, c.log2e, c.magic);  // x/ln2 + 1.5·2^23: k in t's low bits, for |x/ln2| < 2^22
        const batch k = t - c.magic;
        batch r = madd(k, c.minus_ln2_hi, x);  // x − k ln2_hi: the product is exact (ln2_hi's trailing zeros)
        r = madd(k, c.minus_ln2_lo, r);
        batch y = madd(c.p0, r, c.p1);
        y = madd(y, r, c.p2);
        y = madd(y, r, c.p3);
        y = madd(y, r, c.p4);
        const batch p = madd(y, r * r, r) + c.one;
        // t's low 9 bits are k mod 512, so (bits << 23) + (127 << 23) is the float 2^k for k in [-126, 127],
        // 0 for k = -127 and +inf for k = 128 (as xsimd's ldexp gives)
        const ibatch kbits = (xsimd::bitwise_cast<ibatch>(t) << 23) + c.exponent_bias;
        const batch e = p * xsimd::bitwise_cast<batch>(kbits);
        if constexpr (!UPPER) return e;
        return xsimd::select(x >= c.upper, c.infinity, e);
    }
}

// the same with its constants made here, for a call outside a loop
template <class T, bool UPPER = true>
inline xsimd::batch<T> exp_batch(const xsimd::batch<T>& x) {
    return exp_batch<T, UPPER>(x, ExpConstants<T>());
}

// GELU's small path's constants (gelu_sigma, tanh_small, gelu_grad), as batches (see constants_for_batches)
template <class T>
struct GeluConstants {
    struct Values {
        // k = sqrt(2/pi), c = 0.044715; 1, 1/2; tanh's polynomial range (5/8) and its odd polynomial (Cephes
        // tanhf's coefficients, used for float only); 2k and 2k·3c for gelu'
        static constexpr std::array<T, 12> values = {
            T(0.7978845608028654), T(0.7978845608028654 * 0.044715), T(1), T(0.5), T(0.625), T(-0.00570498873f),
            T(0.020639088f), T(-0.0537397154f), T(0.133314416f), T(-0.333332807f), T(2 * 0.7978845608028654),
            T(2 * 0.7978845608028654 * 3 * 0.044715)};
    };
    using batch = xsimd::batch<T>;
    const std::array<T, 12>& v = constants_for_batches<Values>();
    batch k = batch(v[0]), kc = batch(v[1]), one = batch(v[2]), half = batch(v[3]), small = batch(v[4]);
    batch t0 = batch(v[5]), t1 = batch(v[6]), t2 = batch(v[7]), t3 = batch(v[8]), t4 = batch(v[9]);
    batch two_k = batch(v[10]), two_k_c3 = batch(v[11]);
};

// tanh u for |u| < 5/8 in every lane: for float, the odd polynomial xsimd::tanh evaluates there (Cephes tanhf,
// the same coefficients and fma order, so natively and in mha.wasm the same bits; the relaxed module fuses each
// term, madd), without xsimd::tanh's own range test, sign handling and two branches, which gelu_sigma's test has
// already settled. Doubles take xsimd::tanh.
template <class T>
inline xsimd::batch<T> tanh_small(const xsimd::batch<T>& u, const GeluConstants<T>& c) {
    using batch = xsimd::batch<T>;
    if constexpr (!std::is_same<T, float>::value) {
        return xsimd::tanh(u);
    } else {
        const batch u2 = u * u;
        batch h = madd(u2, c.t0, c.t1);
        h = madd(u2, h, c.t2);
        h = madd(u2, h, c.t3);
        h = madd(u2, h, c.t4);
        return madd(h * u2, u, u);
    }
}

// ---------------------------------------------------------------- GELU (tanh form), twins of ref::gelu_*
// With s = σ(2u) = 0.5 (1 + tanh u), u = sqrt(2/pi) (x + 0.044715 x³):
//   gelu(x) = x s,   gelu'(x) = s (1 + 2 x sqrt(2/pi) (1 + 3·0.044715 x²) (1 − s))
// (0.5 x (1 − tanh² u) = 2 x s (1 − s)). Two ways to s, chosen per batch:
// - every lane small (|u| < 5/8, which early in training is nearly every batch): s = 0.5 + 0.5 tanh u through
//   the odd polynomial xsimd::tanh uses there (tanh_small), no exp;
// - else one exp: s = 1 / (1 + e), e = exp(−2u). xsimd::tanh computes both its polynomial and an exp-and-division
//   for a batch with lanes on both sides of 5/8, and this form is that exp and division alone. 1 − s is taken as
//   e·s where s is near 1 (e < 1): 1 − s cancels there, and times the large factor of a large x missed the double
//   twin by 1e-14. e overflows to inf for x below about −10 (float): s = 0, as σ is there, and 1 − s = 1.
// x = ±inf gives what the tanh form gives (+inf; NaN = −inf · 0 for −inf), and NaN stays NaN.

// u = x (k + k·c x²), x2 = x²: with s, 1 − s = 0.5 ± 0.5 tanh u below, two multiplies and an add fewer per batch
// than the formula as written (k (x + c x·x²), two fmas for s and 1 − s); GELU faster on a /tmp driver in node
// (measured: docs/experiments.md, "Speed of the kernels")
template <class T>
inline xsimd::batch<T> gelu_u(const xsimd::batch<T>& x, const xsimd::batch<T>& x2, const GeluConstants<T>& c) {
    return x * madd(c.kc, x2, c.k);
}

// whether every lane of u is in tanh_small's range
template <class T>
inline bool gelu_small(const xsimd::batch<T>& u, const GeluConstants<T>& c) {
    return xsimd::all(xsimd::abs(u) < c.small);
}

// s = σ(2u) and 1 − s for a u that gelu_small accepts
template <class T>
inline void gelu_sigma_small(const xsimd::batch<T>& u, xsimd::batch<T>& s, xsimd::batch<T>& one_minus_s,
                             const GeluConstants<T>& c) {
    const xsimd::batch<T> h = c.half * tanh_small(u, c);
    s = c.half + h;
    one_minus_s = c.half - h;
}

// s = σ(2u) and 1 − s for any u, either way
template <class T>
inline void gelu_sigma(const xsimd::batch<T>& u, xsimd::batch<T>& s, xsimd::batch<T>& one_minus_s,
                       const GeluConstants<T>& c) {
    using batch = xsimd::batch<T>;
    if (gelu_small(u, c)) return gelu_sigma_small(u, s, one_minus_s, c);
    // For double, −2u clamped to ±1000, beyond which exp is 0 or inf anyway: xsimd's double exp converts its
    // argument's multiple of ln 2 to an integer, out of range (undefined, UBSan reports it) for ±inf and huge
    // arguments (a NaN becomes one of the bounds, but x·s and gelu' stay NaN through x). exp_batch's float path
    // has no conversion and its own bounds give the same 0 and inf, so floats skip the clamp: in wasm it is two
    // compares and two selects, and the batches that take exp ran faster without it (measured:
    // docs/experiments.md, "Speed of the kernels").
    batch e;
    if constexpr (std::is_same<T, float>::value) e = exp_batch(T(-2) * u);
    else e = exp_batch(xsimd::clip(T(-2) * u, batch(T(-1000)), batch(T(1000))));
    const batch one = c.one;
    s = one / (one + e);
    one_minus_s = xsimd::select(e < one, e * s, one - s);
}

template <class T>
void gelu_forward(T* out, const T* inp, int N) {
    using batch = xsimd::batch<T>;
    constexpr int W = static_cast<int>(batch::size);
    const int n_vec = N - N % W;
    const GeluConstants<T> c;
    for (int i = 0; i < n_vec; i += W) {
        const batch x = batch::load_unaligned(inp + i);
        batch s, one_minus_s;
        gelu_sigma(gelu_u(x, x * x, c), s, one_minus_s, c);
        (x * s).store_unaligned(out + i);
    }
    ref::gelu_forward(out + n_vec, inp + n_vec, N - n_vec);
}

// gelu'(x) from s = σ(2u) and 1 − s (see gelu_sigma); x2 = x²
template <class T>
inline xsimd::batch<T> gelu_grad(const xsimd::batch<T>& x, const xsimd::batch<T>& x2, const xsimd::batch<T>& s,
                                 const xsimd::batch<T>& one_minus_s, const GeluConstants<T>& c) {
    // 2 k x (1 + 3c x²) as x (2k + 2k·3c x²), one multiply fewer
    return s * madd(x * madd(c.two_k_c3, x2, c.two_k), one_minus_s, c.one);
}

// twins of ref::gelu_forward_keep_grad and ref::gelu_backward_saved: the forward writes gelu and gelu' from one
// σ(2u), the backward is a multiply. In an H = 4 step in wasm the backward (which computed σ again, as
// ref::gelu_backward does) was the larger part of the two GELU passes (measured:
// docs/experiments.md, "Speed of the kernels").
// The forward takes two batches at a time, with one test whether both are small: one branch per pair and two
// independent chains through the polynomial; a pair that fails takes each batch either way with its u. Faster on
// a /tmp driver in node at every spread of the inputs, most at the small ones (as in the benchmark's steps, where
// every batch is small), and in the Chromium worker's H = 4 step (measured: docs/experiments.md, "Speed of the
// kernels").
template <class T>
void gelu_forward_keep_grad(T* out, T* grad, const T* inp, int N) {
    using batch = xsimd::batch<T>;
    constexpr int W = static_cast<int>(batch::size);
    const int n_vec = N - N % W;
    const GeluConstants<T> c;
    int i = 0;
    for (; i + 2 * W <= n_vec; i += 2 * W) {
        const batch x0 = batch::load_unaligned(inp + i), x1 = batch::load_unaligned(inp + i + W);
        const batch x2_0 = x0 * x0, x2_1 = x1 * x1;
        const batch u0 = gelu_u(x0, x2_0, c), u1 = gelu_u(x1, x2_1, c);
        batch s0, one_minus_s0, s1, one_minus_s1;
        if (xsimd::all((xsimd::abs(u0) < c.small) & (xsimd::abs(u1) < c.small))) {  // gelu_small of both
            gelu_sigma_small(u0, s0, one_minus_s0, c);
            gelu_sigma_small(u1, s1, one_minus_s1, c);
        } else {
            gelu_sigma(u0, s0, one_minus_s0, c);
            gelu_sigma(u1, s1, one_minus_s1, c);
        }
        (x0 * s0).store_unaligned(out + i);
        (x1 * s1).store_unaligned(out + i + W);
        gelu_grad(x0, x2_0, s0, one_minus_s0, c).store_unaligned(grad + i);
        gelu_grad(x1, x2_1, s1, one_minus_s1, c).store_unaligned(grad + i + W);
    }
    for (; i < n_vec; i += W) {
        const batch x = batch::load_unaligned(inp + i);
        const batch x2 = x * x;
        batch s, one_minus_s;
        gelu_sigma(gelu_u(x, x2, c), s, one_minus_s, c);
        (x * s).store_unaligned(out + i);
        gelu_grad(x, x2, s, one_minus_s, c).store_unaligned(grad + i);
    }
    ref::gelu_forward_keep_grad(out + n_vec, grad + n_vec, inp + n_vec, N - n_vec);
}

template <class T>
void gelu_backward_saved(T* dinp, const T* grad, const T* dout, int N, Dinp mode) {
    using batch = xsimd::batch<T>;
    constexpr int W = static_cast<int>(batch::size);
    const int n_vec = N - N % W;
    for (int i = 0; i < n_vec; i += W) {
        const batch g = batch::load_unaligned(grad + i), d = batch::load_unaligned(dout + i);
        (mode == Dinp::add ? xsimd::fma(g, d, batch::load_unaligned(dinp + i)) : g * d).store_unaligned(dinp + i);
    }
    ref::gelu_backward_saved(dinp + n_vec, grad + n_vec, dout + n_vec, N - n_vec, mode);
}

// ---------------------------------------------------------------- LayerNorm, twins of ref::layernorm_*
// sum of x[0..n) (batch accumulation + hadd + scalar tail)
template <class T>
inline T sum(const T* x, int n) {
    using batch = xsimd::batch<T>;
    constexpr int W = static_cast<int>(batch::size);
    const int n_vec = n - n % W;
    batch acc(T(0));
    for (int i = 0; i < n_vec; i += W) acc += batch::load_unaligned(x + i);
    T s = xsimd::hadd(acc);
    for (int i = n_vec; i < n; ++i) s += x[i];
    return s;
}

// one row of layernorm_forward: out (C), *mean, *rstd from x (C)
template <class S>
inline void layernorm_forward_row(S* o, S* mean, S* rstd, const S* x, const S* weight, const S* bias, int C) {
    using batch = xsimd::batch<S>;
    constexpr int W = static_cast<int>(batch::size);
    const int c_vec = C - C % W;
    const S m = sum(x, C) / C;
    const batch mb(m);
    batch acc(S(0));
    for (int i = 0; i < c_vec; i += W) {
        const batch d = batch::load_unaligned(x + i) - mb;
        acc = xsimd::fma(d, d, acc);
    }
    S var = xsimd::hadd(acc);
    for (int i = c_vec; i < C; ++i) var += (x[i] - m) * (x[i] - m);
    const S s = S(1) / std::sqrt(var / C + S(1e-5));
    const batch sb(s);
    for (int i = 0; i < c_vec; i += W)
        xsimd::fma((batch::load_unaligned(x + i) - mb) * sb, batch::load_unaligned(weight + i), batch::load_unaligned(bias + i))
            .store_unaligned(o + i);
    for (int i = c_vec; i < C; ++i) o[i] = (x[i] - m) * s * weight[i] + bias[i];
    *mean = m;
    *rstd = s;
}

// R rows of layernorm_forward in lock-step, for C a multiple of W: each row's operations in the same order as
// layernorm_forward_row (bitwise the same results), interleaved so that the rows' reductions (hadd, sqrt, divide:
// a row's latency chain) overlap, and the weight and bias are loaded once for the R rows.
template <class S, int R>
inline void layernorm_forward_group(S* out, S* mean, S* rstd, const S* inp, const S* weight, const S* bias, int C) {
    using batch = xsimd::batch<S>;
    constexpr int W = static_cast<int>(batch::size);
    batch acc[R], mb[R], sb[R];
    for (int r = 0; r < R; ++r) acc[r] = batch(S(0));
    for (int i = 0; i < C; i += W)
        for (int r = 0; r < R; ++r) acc[r] += batch::load_unaligned(inp + std::size_t(r) * C + i);
    for (int r = 0; r < R; ++r) {
        mean[r] = xsimd::hadd(acc[r]) / C;
        mb[r] = batch(mean[r]);
        acc[r] = batch(S(0));
    }
    for (int i = 0; i < C; i += W)
        for (int r = 0; r < R; ++r) {
            const batch d = batch::load_unaligned(inp + std::size_t(r) * C + i) - mb[r];
            acc[r] = xsimd::fma(d, d, acc[r]);
        }
    for (int r = 0; r < R; ++r) {
        rstd[r] = S(1) / std::sqrt(xsimd::hadd(acc[r]) / C + S(1e-5));
        sb[r] = batch(rstd[r]);
    }
    for (int i = 0; i < C; i += W) {
        const batch w = batch::load_unaligned(weight + i), b = batch::load_unaligned(bias + i);
        for (int r = 0; r < R; ++r)
            xsimd::fma((batch::load_unaligned(inp + std::size_t(r) * C + i) - mb[r]) * sb[r], w, b)
                .store_unaligned(out + std::size_t(r) * C + i);
    }
}

// the rows in groups of four when W divides C (faster than row by row and than groups of two on tiny-char's
// (1024,64) LayerNorm in node: docs/experiments.md, "Speed of the kernels"), the rest one by one
template <class S>
void layernorm_forward(S* out, S* mean, S* rstd, const S* inp, const S* weight, const S* bias, int N, int C) {
    constexpr int W = static_cast<int>(xsimd::batch<S>::size), R = 4;
    int n = 0;
    if (C % W == 0)
        for (; n + R <= N; n += R)
            layernorm_forward_group<S, R>(out + std::size_t(n) * C, mean + n, rstd + n, inp + std::size_t(n) * C,
                                          weight, bias, C);
    for (; n < N; ++n)
        layernorm_forward_row(out + std::size_t(n) * C, mean + n, rstd + n, inp + std::size_t(n) * C, weight, bias, C);
}

template <class S>
void layernorm_backward(S* dinp, S* dweight, S* dbias, const S* dout, const S* inp, const S* weight, const S* mean,
                        const S* rstd, int N, int C, Dinp mode) {
    using batch = xsimd::batch<S>;
    constexpr int W = static_cast<int>(batch::size);
    const int c_vec = C - C % W;
    for (int n = 0; n < N; ++n) {
        const S* x = inp + n * C;
        const S* dy = dout + n * C;
        S* dx = dinp + n * C;
        const batch mb(mean[n]), sb(rstd[n]);
        batch a1(S(0)), a2(S(0));
        for (int i = 0; i < c_vec; i += W) {
            const batch norm = (batch::load_unaligned(x + i) - mb) * sb;
            const batch dnorm = batch::load_unaligned(weight + i) * batch::load_unaligned(dy + i);
            a1 += dnorm;
            a2 = xsimd::fma(dnorm, norm, a2);
        }
        S dnorm_mean = xsimd::hadd(a1), dnorm_norm_mean = xsimd::hadd(a2);
        for (int i = c_vec; i < C; ++i) {
            const S norm = (x[i] - mean[n]) * rstd[n], dnorm = weight[i] * dy[i];
            dnorm_mean += dnorm;
            dnorm_norm_mean += dnorm * norm;
        }
        dnorm_mean /= C;
        dnorm_norm_mean /= C;
        const batch dm(dnorm_mean), dnm(dnorm_norm_mean);
        for (int i = 0; i < c_vec; i += W) {
            const batch norm = (batch::load_unaligned(x + i) - mb) * sb;
            const batch d = batch::load_unaligned(dy + i);
            const batch dnorm = batch::load_unaligned(weight + i) * d;
            (batch::load_unaligned(dbias + i) + d).store_unaligned(dbias + i);
            xsimd::fma(norm, d, batch::load_unaligned(dweight + i)).store_unaligned(dweight + i);
            const batch g = dnorm - dm - norm * dnm;
            (mode == Dinp::add ? xsimd::fma(g, sb, batch::load_unaligned(dx + i)) : g * sb).store_unaligned(dx + i);
        }
        for (int i = c_vec; i < C; ++i) {
            const S norm = (x[i] - mean[n]) * rstd[n], dnorm = weight[i] * dy[i];
            dbias[i] += dy[i];
            dweight[i] += norm * dy[i];
            const S g = (dnorm - dnorm_mean - norm * dnorm_norm_mean) * rstd[n];
            dx[i] = mode == Dinp::add ? dx[i] + g : g;
        }
    }
}

// ---------------------------------------------------------------- softmax exponentials, twin of ref::exp_shift_sum
template <class S>
S exp_shift_sum(S* x, int n, S shift) {
    using batch = xsimd::batch<S>;
    constexpr int W = static_cast<int>(batch::size);
    const int n_vec = n - n % W;
    const batch sh(shift);
    const ExpConstants<S> c;
    batch acc(S(0));
    for (int i = 0; i < n_vec; i += W) {
        const batch e = exp_batch(batch::load_unaligned(x + i) - sh, c);
        e.store_unaligned(x + i);
        acc += e;
    }
    return xsimd::hadd(acc) + ref::exp_shift_sum(x + n_vec, n - n_vec, shift);
}

// the largest lane of v (xsimd 8.1 has no horizontal max): two swizzles and maxes for 4 floats, else through memory
template <class S>
inline S hmax(const xsimd::batch<S>& v) {
    using batch = xsimd::batch<S>;
    if constexpr (batch::size == 4 && std::is_same<S, float>::value) {
        using idx = xsimd::batch<uint32_t, typename batch::arch_type>;
        const batch a = xsimd::max(v, xsimd::swizzle(v, xsimd::batch_constant<idx, 2, 3, 0, 1>()));
        return xsimd::max(a, xsimd::swizzle(a, xsimd::batch_constant<idx, 1, 0, 3, 2>())).get(0);
    } else {
        alignas(64) S lanes[batch::size];  // xsimd 8.1 has no horizontal max
        v.store_aligned(lanes);
        S m = lanes[0];
        for (std::size_t i = 1; i < batch::size; ++i) m = lanes[i] > m ? lanes[i] : m;
        return m;
    }
}

// ---------------------------------------------------------------- the lanes of a row's last batch
// A batch whose lane i holds i: compared with the count of a row's live entries in its last batch, it masks the rest.
template <class S>
inline xsimd::batch<S> lane_indices() {
    using batch = xsimd::batch<S>;
    static_assert(batch::size <= 16, "lane_indices covers the batch");
    alignas(64) static const S index[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    return batch::load_aligned(index);
}

// ---------------------------------------------------------------- causal softmax rows, twins of ref::softmax_causal_row*
// The same element-wise operations as the twins in batches (the scaled scores and the normalisation are bitwise
// the same; only the sums' order differs): these loops ran scalar over every (B,H,T,T) score, twice per step.
// The forward row runs its last, partly live batch whole: its lanes at s >= n (the masked future, inside the row
// of T) take -inf in the max and exp(-1000) = 0 in the sum, and end as the exact 0 they must hold (-1000 is below
// the least argument whose exp is not 0 in float and in double, and unlike exp(-inf) it keeps xsimd's double exp
// clear of an out-of-range float -> integer conversion, which UBSan reports). Rows are short (t + 1 live entries),
// so most ended in a scalar tail through libm's exp: without it the forward softmax of an H = 4 step in node is
// faster (measured: docs/experiments.md, "Speed of the kernels"). Only where that batch would pass the row's end T is
// the rest scalar.
template <class S>
void softmax_causal_row(S* x, int n, int T, S scale, const ExpConstants<S>& c) {
    using batch = xsimd::batch<S>;
    constexpr int W = static_cast<int>(batch::size);
    int n_vec = (n + W - 1) / W * W;  // whole batches, the last one partly live
    if (n_vec > T) n_vec = n - n % W;
    const batch sc(scale), lanes_at = lane_indices<S>();
    const auto live = lanes_at < batch(S(n - (n_vec - W)));  // the lanes of the last batch at s < n
    batch mx(-INFINITY);
    for (int s = 0; s < n_vec; s += W) {
        const batch v = batch::load_unaligned(x + s) * sc;
        v.store_unaligned(x + s);
        mx = xsimd::max(mx, s + W > n ? xsimd::select(live, v, batch(S(-INFINITY))) : v);
    }
    S maxval = hmax(mx);
    for (int s = n_vec; s < n; ++s) {
        x[s] *= scale;
        if (x[s] > maxval) maxval = x[s];
    }
    const batch mv(maxval);
    batch acc(S(0));
    for (int s = 0; s < n_vec; s += W) {
        batch a = batch::load_unaligned(x + s) - mv;
        if (s + W > n) a = xsimd::select(live, a, batch(S(-1000)));
        const batch e = exp_batch<S, false>(a, c);  // x − max <= 0
        e.store_unaligned(x + s);
        acc += e;
    }
    const S inv = S(1) / (xsimd::hadd(acc) + ref::exp_shift_sum(x + n_vec, n - n_vec, maxval));
    const batch iv(inv);
    for (int s = 0; s < n_vec; s += W) (batch::load_unaligned(x + s) * iv).store_unaligned(x + s);
    for (int s = n_vec; s < n; ++s) x[s] *= inv;
    int z = std::max(n, n_vec);
    for (; z + W <= T; z += W) batch(S(0)).store_unaligned(x + z);
    for (; z < T; ++z) x[z] = S(0);
}
template <class S>
void softmax_causal_row(S* x, int n, int T, S scale) {
    softmax_causal_row(x, n, T, scale, ExpConstants<S>());
}

// R rows of a head's (T,T) scores in lock-step, rows t0 .. t0+R-1 (row t has n = t+1 live entries). The caller
// (softmax_causal) starts a group at a multiple of R, and R divides the batch width W and W divides T, so the
// group's rows all end in the same batch: the whole batches up to t0 - t0 % W + W, the last partly live (row r:
// its lanes below t0 + r + 1 - last). Each row is the same operations in the same order as softmax_causal_row, so
// the same bits; what changes is that R rows' chains (max, exp and sum, the division) overlap, and that a group
// pays the setup of one row. Grouped, the 64 heads of one H = 4 layer ran faster than row by row in node, bitwise
// the same outputs (measured: docs/experiments.md, "Speed of the kernels").
// The max is taken over the raw scores and then scaled: for scale > 0 rounding is monotonic, so
// fl(max x · scale) = max fl(x · scale), the max of the scaled row, and the scaled scores need no store.
// Every pass walks the batches in the outer loop and the R rows in the inner one, the normalisation and the zeros
// above the diagonal too: the group's rows share their trip counts, so a head ends T/R such loops where a loop per
// row ended T (each exit likely a mispredicted branch: the trip count changes from row to row). Faster than those
// two passes row by row, in node and in the Chromium worker, the same bits (measured: docs/experiments.md, "Speed
// of the kernels").
template <class S, int R>
inline void softmax_causal_group(S* x, int t0, int T, S scale, const ExpConstants<S>& c) {
    using batch = xsimd::batch<S>;
    constexpr int W = static_cast<int>(batch::size);
    const int last = t0 - t0 % W;  // the last batch, partly live; n_vec = last + W
    const batch sc(scale), lanes_at = lane_indices<S>();
    batch mx[R], mv[R], acc[R];
    for (int r = 0; r < R; ++r) mx[r] = batch(S(-INFINITY));
    for (int s = 0; s < last; s += W)
        for (int r = 0; r < R; ++r) mx[r] = xsimd::max(mx[r], batch::load_unaligned(x + std::size_t(r) * T + s));
    for (int r = 0; r < R; ++r) {
        const auto live = lanes_at < batch(S(t0 + r + 1 - last));
        mx[r] = xsimd::max(mx[r], xsimd::select(live, batch::load_unaligned(x + std::size_t(r) * T + last),
                                                batch(S(-INFINITY))));
        mv[r] = batch(hmax(mx[r]) * scale);
        acc[r] = batch(S(0));
    }
    for (int s = 0; s < last; s += W)
        for (int r = 0; r < R; ++r) {
            S* xr = x + std::size_t(r) * T + s;
            const batch e = exp_batch<S, false>(batch::load_unaligned(xr) * sc - mv[r], c);  // <= 0
            e.store_unaligned(xr);
            acc[r] += e;
        }
    for (int r = 0; r < R; ++r) {
        S* xr = x + std::size_t(r) * T + last;
        const auto live = lanes_at < batch(S(t0 + r + 1 - last));
        const batch e =
            exp_batch<S, false>(xsimd::select(live, batch::load_unaligned(xr) * sc - mv[r], batch(S(-1000))), c);
        e.store_unaligned(xr);
        acc[r] += e;
    }
    batch iv[R];
    for (int r = 0; r < R; ++r) iv[r] = batch(S(1) / xsimd::hadd(acc[r]));
    for (int s = 0; s <= last; s += W)
        for (int r = 0; r < R; ++r) {
            S* xr = x + std::size_t(r) * T + s;
            (batch::load_unaligned(xr) * iv[r]).store_unaligned(xr);
        }
    const batch zero(S(0));
    for (int z = last + W; z < T; z += W)
        for (int r = 0; r < R; ++r) zero.store_unaligned(x + std::size_t(r) * T + z);
}

// a head's (T,T) scores: row t ← softmax_causal_row(x + t*T, t + 1, T, scale). When W divides T (and scale > 0,
// as 1/√hs is), in groups of R = min(4, W) rows (softmax_causal_group); else row by row.
template <class S>
void softmax_causal(S* x, int T, S scale) {
    constexpr int W = static_cast<int>(xsimd::batch<S>::size), R = W < 4 ? W : 4;
    const ExpConstants<S> c;
    int t = 0;
    if (T % W == 0 && scale > S(0))
        for (; t < T; t += R) softmax_causal_group<S, R>(x + std::size_t(t) * T, t, T, scale, c);
    for (; t < T; ++t) softmax_causal_row(x + std::size_t(t) * T, t + 1, T, scale, c);
}

// The backward row runs its last, partly live batch whole, as the forward row does: its lanes at s >= n take d as 0
// (select, so that junk there, which the causal score products leave, is never multiplied), add 0 to the dot and end
// 0. Only where that batch would pass the row's end T is the rest scalar. With the grouping below, the backward rows
// of an H = 8 tiny-char step natively (AVX-512, where a row's scalar tail was up to 15 entries) took 0.14–0.15 ms
// against 0.25–0.27 row by row with tails; in node 0.29–0.31 against 0.31–0.33 (measured: docs/experiments.md,
// "Speed of the kernels").
template <class S>
void softmax_causal_row_backward(S* d, const S* att, int n, int T, S scale) {
    using batch = xsimd::batch<S>;
    constexpr int W = static_cast<int>(batch::size);
    int n_vec = (n + W - 1) / W * W;  // whole batches, the last one partly live
    if (n_vec > T) n_vec = n - n % W;
    const auto live = lane_indices<S>() < batch(S(n - (n_vec - W)));  // the last batch's lanes at s < n
    const batch zero(S(0));
    batch acc(S(0));
    for (int s = 0; s < n_vec; s += W) {
        const batch dv = s + W > n ? xsimd::select(live, batch::load_unaligned(d + s), zero) : batch::load_unaligned(d + s);
        acc = xsimd::fma(batch::load_unaligned(att + s), dv, acc);
    }
    S dot = xsimd::hadd(acc);
    for (int s = n_vec; s < n; ++s) dot += att[s] * d[s];
    const batch sc(scale), dt(dot);
    for (int s = 0; s < n_vec; s += W) {
        const batch g = sc * batch::load_unaligned(att + s) * (batch::load_unaligned(d + s) - dt);
        (s + W > n ? xsimd::select(live, g, zero) : g).store_unaligned(d + s);
    }
    for (int s = n_vec; s < n; ++s) d[s] = scale * att[s] * (d[s] - dot);
    int z = std::max(n, n_vec);
    for (; z + W <= T; z += W) zero.store_unaligned(d + z);
    for (; z < T; ++z) d[z] = S(0);
}

// R rows of a head's backward in lock-step, rows t0 .. t0+R-1, grouped as softmax_causal_group groups the forward
// (R divides W, W divides T, t0 a multiple of R: the group's rows end in the same batch, from last = t0 - t0 % W).
// Each row is softmax_causal_row_backward's operations in the same order, so the same bits; R rows' dot products
// overlap their chains, and each pass runs batches outside and rows inside, as the forward group does.
template <class S, int R>
inline void softmax_causal_backward_group(S* d, const S* att, int t0, int T, S scale) {
    using batch = xsimd::batch<S>;
    constexpr int W = static_cast<int>(batch::size);
    const int last = t0 - t0 % W;
    const batch zero(S(0)), sc(scale), lanes_at = lane_indices<S>();
    batch acc[R], dt[R];
    for (int r = 0; r < R; ++r) acc[r] = zero;
    for (int s = 0; s < last; s += W)
        for (int r = 0; r < R; ++r) {
            const std::size_t at = std::size_t(r) * T + s;
            acc[r] = xsimd::fma(batch::load_unaligned(att + at), batch::load_unaligned(d + at), acc[r]);
        }
    for (int r = 0; r < R; ++r) {
        const std::size_t at = std::size_t(r) * T + last;
        const auto live = lanes_at < batch(S(t0 + r + 1 - last));
        acc[r] = xsimd::fma(batch::load_unaligned(att + at), xsimd::select(live, batch::load_unaligned(d + at), zero), acc[r]);
        dt[r] = batch(xsimd::hadd(acc[r]));
    }
    for (int s = 0; s < last; s += W)
        for (int r = 0; r < R; ++r) {
            const std::size_t at = std::size_t(r) * T + s;
            (sc * batch::load_unaligned(att + at) * (batch::load_unaligned(d + at) - dt[r])).store_unaligned(d + at);
        }
    for (int r = 0; r < R; ++r) {
        const std::size_t at = std::size_t(r) * T + last;
        const auto live = lanes_at < batch(S(t0 + r + 1 - last));
        const batch g = sc * batch::load_unaligned(att + at) * (batch::load_unaligned(d + at) - dt[r]);
        xsimd::select(live, g, zero).store_unaligned(d + at);
    }
    for (int z = last + W; z < T; z += W)
        for (int r = 0; r < R; ++r) zero.store_unaligned(d + std::size_t(r) * T + z);
}

// a head's (T,T): row t ← softmax_causal_row_backward(d + t*T, att + t*T, t + 1, T, scale); when W divides T in
// groups of R = min(4, W) rows (softmax_causal_backward_group), else row by row
template <class S>
void softmax_causal_backward(S* d, const S* att, int T, S scale) {
    constexpr int W = static_cast<int>(xsimd::batch<S>::size), R = W < 4 ? W : 4;
    int t = 0;
    if (T % W == 0)
        for (; t < T; t += R)
            softmax_causal_backward_group<S, R>(d + std::size_t(t) * T, att + std::size_t(t) * T, t, T, scale);
    for (; t < T; ++t) softmax_causal_row_backward(d + std::size_t(t) * T, att + std::size_t(t) * T, t + 1, T, scale);
}

// ---------------------------------------------------------------- AdamW, twin of ref::adamw
template <class S>
void adamw(S* p, const S* g, S* m, S* v, std::size_t n, S b1, S b2, S eps, S decay, S step, S inv_sqrt_bc2) {
    using batch = xsimd::batch<S>;
    constexpr std::size_t W = batch::size;
    const std::size_t n_vec = n - n % W;
    const batch vb1(b1), vb2(b2), c1(S(1) - b1), c2(S(1) - b2), veps(eps), vdecay(decay), vstep(step), vbc(inv_sqrt_bc2);
    for (std::size_t i = 0; i < n_vec; i += W) {
        const batch gi = batch::load_unaligned(g + i);
        const batch mi = xsimd::fma(vb1, batch::load_unaligned(m + i), c1 * gi);
        const batch vi = xsimd::fma(vb2, batch::load_unaligned(v + i), c2 * gi * gi);
        mi.store_unaligned(m + i);
        vi.store_unaligned(v + i);
        const batch pi = batch::load_unaligned(p + i) * vdecay - vstep * mi / xsimd::fma(xsimd::sqrt(vi), vbc, veps);
        pi.store_unaligned(p + i);
    }
    ref::adamw(p + n_vec, g + n_vec, m + n_vec, v + n_vec, n - n_vec, b1, b2, eps, decay, step, inv_sqrt_bc2);
}

// ---------------------------------------------------------------- a · bᵀ through a packed bᵀ
// out (M,N) [+]= a (M,K) · b (N,K)ᵀ + bias (N); bias may be null.
// Packs bᵀ (K,N) in panels (see BView) once (O(NK), against O(MNK) of work) into a scratch buffer that only ever
// grows, then runs the broadcast-FMA kernel, which needs no horizontal sum per output (the dot-product form it
// replaced needed one per output, and was the largest single cost of a training step in the first callgrind profile).
template <class T>
void matmul_nt(T* out, const T* a, const T* b, const T* bias, int M, int N, int K, bool accumulate) {
    T* packed = packing_buffer<T>(panels_size<T>(N, K));
    pack_transposed_panels(packed, b, K, N, K);
    // the bias starts the accumulators
    matmul_blocked<T, false>(out, a, K, BView<T>::packed(packed, N, K), bias, M, N, K, accumulate);
}

}  // namespace mha::simd

#endif  // XSIMD_NO_SUPPORTED_ARCHITECTURE
