// The repeated-random-segment task: BOS, a segment, the same segment again, filler; y the next token;
// lengths within bounds; the position helpers agree with the sequences; probes fixed by their seed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "induction_task.hpp"
#include "prng.hpp"

using namespace mha;

TEST_CASE("induction task arguments that cannot work are clear messages", "[data]") {
    CHECK(validate_induction_task(32, 16, 2, 15).empty());
    CHECK(validate_induction_task(3, 2, 1, 1).empty());
    CHECK_FALSE(validate_induction_task(2, 16, 1, 1).empty());    // T too short for BOS + two copies
    CHECK_FALSE(validate_induction_task(32, 1, 2, 8).empty());    // no symbols besides BOS
    CHECK_FALSE(validate_induction_task(32, 16, 0, 8).empty());   // empty segment
    CHECK_FALSE(validate_induction_task(32, 16, 9, 8).empty());   // min > max
    const std::string err = validate_induction_task(32, 16, 2, 16);  // 1 + 16 + 16 > 32
    CHECK(err.find("(T-1)/2 = 15") != std::string::npos);
    int x[64], y[64], L[2];
    Rng rng(1);
    CHECK_THROWS(fill_batch(rng, 2, 32, 16, 2, 16, x, y, L));
}

TEST_CASE("induction batches repeat the segment after BOS and y is the next token", "[data]") {
    const int B = 64, T = 32, V = 16, min_len = 2, max_len = 15;
    std::vector<int> x(B * T), y(B * T), seg_len(B);
    Rng rng(2024);
    int shortest = T, longest = 0;
    for (int step = 0; step < 20; ++step) {
        fill_batch(rng, B, T, V, min_len, max_len, x.data(), y.data(), seg_len.data());
        for (int b = 0; b < B; ++b) {
            const int* x_b = &x[b * T];
            const int* y_b = &y[b * T];
            const int L = seg_len[b];
            REQUIRE(L >= min_len);
            REQUIRE(L <= max_len);
            shortest = std::min(shortest, L);
            longest = std::max(longest, L);
            REQUIRE(x_b[0] == INDUCTION_BOS);
            for (int t = 1; t < T; ++t) REQUIRE((x_b[t] >= 1 && x_b[t] < V));  // BOS only at 0
            for (int i = 1; i <= L; ++i) REQUIRE(x_b[L + i] == x_b[i]);       // the second copy
            for (int t = 0; t + 1 < T; ++t) REQUIRE(y_b[t] == x_b[t + 1]);     // next token
            REQUIRE((y_b[T - 1] >= 1 && y_b[T - 1] < V));
            // the helpers: L positions in each copy, L-1 predictable targets, each copied from the first copy
            int n_first = 0, n_repeat = 0, n_target = 0;
            for (int t = 0; t < T; ++t) {
                n_first += in_first_copy(t, L);
                n_repeat += in_repeat(t, L);
                if (in_repeat(t, L)) REQUIRE(x_b[t] == x_b[t - L]);
                if (repeat_target(t, L)) {
                    ++n_target;
                    REQUIRE(in_first_copy(induction_source(t, L), L));
                    REQUIRE(y_b[t] == x_b[induction_source(t, L)]);
                }
            }
            REQUIRE(n_first == L);
            REQUIRE(n_repeat == L);
            REQUIRE(n_target == L - 1);
        }
    }
    // both ends of the length range occur
    CHECK(shortest == min_len);
    CHECK(longest == max_len);
}

TEST_CASE("induction batches are deterministic per seed", "[data]") {
    const int B = 4, T = 20, V = 10;
    std::vector<int> x1(B * T), y1(B * T), l1(B), x2(B * T), y2(B * T), l2(B), x3(B * T), y3(B * T), l3(B);
    Rng a(5), b(5), c(6);
    fill_batch(a, B, T, V, 3, 9, x1.data(), y1.data(), l1.data());
    fill_batch(b, B, T, V, 3, 9, x2.data(), y2.data(), l2.data());
    fill_batch(c, B, T, V, 3, 9, x3.data(), y3.data(), l3.data());
    CHECK(x1 == x2);
    CHECK(y1 == y2);
    CHECK(l1 == l2);
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
