// The repeated-random-segment task: BOS, random filler, a segment, the same segment again, filler; y the next
// token; lengths and offsets within bounds; the position helpers (counted from the segment) agree with the
// sequences; probes fixed by their seed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "config.hpp"
#include "induction_task.hpp"
#include "prng.hpp"

using namespace mha;

TEST_CASE("induction task arguments that cannot work are clear messages", "[data]") {
    CHECK(validate_induction_task(32, 16, 2, 15).empty());
    CHECK(validate_induction_task(3, 2, 1, 1).empty());
    CHECK_FALSE(validate_induction_task(2, 16, 1, 1).empty());    // T too short for BOS + two copies
    // in the user's terms: what T must be, then what was given
    CHECK(validate_induction_task(2, 16, 1, 1) == "For the induction task the context length T must be a whole number from 3 to " +
                                                    std::to_string(Limits::max_seq_len) + ", not 2.");
    CHECK_FALSE(validate_induction_task(32, 1, 2, 8).empty());    // no symbols besides BOS
    CHECK_FALSE(validate_induction_task(32, 16, 0, 8).empty());   // empty segment
    CHECK_FALSE(validate_induction_task(32, 16, 9, 8).empty());   // min > max
    const std::string err = validate_induction_task(32, 16, 2, 16);  // 1 + 16 + 16 > 32
    CHECK(err.find("(T-1)/2 = 15") != std::string::npos);
    int x[64], y[64], L[2], start[2];
    Rng rng(1);
    CHECK_THROWS(fill_shifted_batch(rng, 2, 32, 16, 2, 16, x, y, L, start));
}

TEST_CASE("induction batches repeat the segment at a random offset and y is the next token", "[data]") {
    const int B = 64, T = 32, V = 16, min_len = 2, max_len = 15;
    std::vector<int> x(B * T), y(B * T), seg_len(B), seg_start(B);
    Rng rng(2024);
    int shortest = T, longest = 0, earliest = T, latest_gap = T;  // latest_gap: how far the latest start is from T-2L
    for (int step = 0; step < 20; ++step) {
        fill_shifted_batch(rng, B, T, V, min_len, max_len, x.data(), y.data(), seg_len.data(), seg_start.data());
        for (int b = 0; b < B; ++b) {
            const int* x_b = &x[b * T];
            const int* y_b = &y[b * T];
            const int L = seg_len[b], s = seg_start[b];
            REQUIRE(L >= min_len);
            REQUIRE(L <= max_len);
            REQUIRE(s >= 1);
            REQUIRE(s <= T - 2 * L);  // both copies fit
            shortest = std::min(shortest, L);
            longest = std::max(longest, L);
            earliest = std::min(earliest, s);
            latest_gap = std::min(latest_gap, T - 2 * L - s);
            REQUIRE(x_b[0] == INDUCTION_BOS);
            for (int t = 1; t < T; ++t) REQUIRE((x_b[t] >= 1 && x_b[t] < V));  // BOS only at 0
            for (int i = 0; i < L; ++i) REQUIRE(x_b[s + L + i] == x_b[s + i]);  // the second copy
            for (int t = 0; t + 1 < T; ++t) REQUIRE(y_b[t] == x_b[t + 1]);     // next token
            REQUIRE((y_b[T - 1] >= 1 && y_b[T - 1] < V));
            // the helpers, on u = t - (s - 1) (the positions of a segment right after BOS): L positions in each
            // copy, L-1 predictable targets, each copied from the first copy
            int n_first = 0, n_repeat = 0, n_target = 0;
            for (int t = 0; t < T; ++t) {
                const int u = t - (s - 1);
                n_first += in_first_copy(u, L);
                n_repeat += in_repeat(u, L);
                if (in_repeat(u, L)) REQUIRE(x_b[t] == x_b[t - L]);
                if (repeat_target(u, L)) {
                    ++n_target;
                    REQUIRE(in_first_copy(induction_source(u, L), L));
                    REQUIRE(y_b[t] == x_b[induction_source(u, L) + s - 1]);
                }
            }
            REQUIRE(n_first == L);
            REQUIRE(n_repeat == L);
            REQUIRE(n_target == L - 1);
        }
    }
    // both ends of the length range occur, and of the offset range
    CHECK(shortest == min_len);
    CHECK(longest == max_len);
    CHECK(earliest == 1);
    CHECK(latest_gap == 0);
}

TEST_CASE("induction batches are deterministic per seed", "[data]") {
    const int B = 4, T = 20, V = 10;
    std::vector<int> x1(B * T), y1(B * T), l1(B), s1(B), x2(B * T), y2(B * T), l2(B), s2(B), x3(B * T), y3(B * T), l3(B), s3(B);
    Rng a(5), b(5), c(6);
    fill_shifted_batch(a, B, T, V, 3, 9, x1.data(), y1.data(), l1.data(), s1.data());
    fill_shifted_batch(b, B, T, V, 3, 9, x2.data(), y2.data(), l2.data(), s2.data());
    fill_shifted_batch(c, B, T, V, 3, 9, x3.data(), y3.data(), l3.data(), s3.data());
    CHECK(x1 == x2);
    CHECK(y1 == y2);
    CHECK(l1 == l2);
    CHECK(s1 == s2);
    CHECK(x1 != x3);
}

TEST_CASE("the induction probe is BOS and a segment twice, fixed by its seed", "[data]") {
    const int L = 10, V = 64;
    const std::vector<int> p = induction_probe(L, V, 99);
    REQUIRE(p.size() == static_cast<std::size_t>(2 * L + 1));
    CHECK(p[0] == INDUCTION_BOS);
    for (int i = 1; i <= L; ++i) {
        CHECK((p[i] >= 1 && p[i] < V));
        CHECK(p[L + i] == p[i]);
    }
    CHECK(induction_probe(L, V, 99) == p);
    CHECK(induction_probe(L, V, 100) != p);
    // the Rng form draws the same tokens
    Rng rng(99);
    std::vector<int> q(2 * L + 1);
    induction_probe(rng, L, V, q.data());
    CHECK(q == p);
}
