// Allocations the Catch2 suite can break and count: the test binary replaces every form of operator new and delete
// (alloc_hook.cpp); tests/fuzz/fuzz_run.cpp links the same file.
//   mha::test::FailAllocation fail(3);      // the 3rd allocation from now throws std::bad_alloc (once)
//   mha::test::reset_peak_bytes();  ...;  std::size_t peak = mha::test::peak_bytes() - before;
#pragma once
#include <cstddef>

namespace mha::test {

// while alive, the n-th allocation through operator new from now (1 = the next) throws std::bad_alloc; the ones
// after it succeed again. fired(): whether it has. Destroying it disarms what has not fired.
class FailAllocation {
public:
    explicit FailAllocation(long n);
    ~FailAllocation();
    FailAllocation(const FailAllocation&) = delete;
    FailAllocation& operator=(const FailAllocation&) = delete;
    bool fired() const;
};

// the bytes operator new holds now, and the most it has held since reset_peak_bytes() (the allocator's usable sizes,
// so a little above what was asked for); false from counting_bytes() where the platform cannot say a block's size
bool counting_bytes();
std::size_t live_bytes();
std::size_t peak_bytes();
void reset_peak_bytes();  // the peak starts again from what is live now

}  // namespace mha::test
