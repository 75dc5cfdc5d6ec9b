// Every form of operator new and delete of the test binary, on malloc and free (so that AddressSanitizer sees the
// pairs match): an allocation that fails on purpose (FailAllocation) and a count of the bytes held (live and peak).
// The counters are atomics: test_induction trains on a second thread.
#include "alloc_hook.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

#if defined(__GLIBC__)
#include <malloc.h>  // malloc_usable_size: native builds only (the estimate test is native)
#define MHA_TEST_COUNTS_BYTES 1
#endif

namespace {

std::atomic<long> fail_in{0};     // > 0: the fail_in-th allocation from now fails
std::atomic<bool> failed{false};  // the armed failure has happened
std::atomic<std::size_t> live{0}, peak{0};

void count(void* p, bool add) {
#ifdef MHA_TEST_COUNTS_BYTES
    if (!p) return;
    const std::size_t n = malloc_usable_size(p);
    if (!add) {
        live.fetch_sub(n, std::memory_order_relaxed);
        return;
    }
    const std::size_t now = live.fetch_add(n, std::memory_order_relaxed) + n;
    std::size_t was = peak.load(std::memory_order_relaxed);
    while (now > was && !peak.compare_exchange_weak(was, now, std::memory_order_relaxed)) {
    }
#else
    (void)p, (void)add;
#endif
}

void* allocate(std::size_t n, std::size_t align = 0) {
    if (fail_in.load(std::memory_order_relaxed) > 0 && fail_in.fetch_sub(1) == 1) {
        failed = true;
        return nullptr;
    }
    if (n == 0) n = 1;
    void* p = align <= alignof(std::max_align_t) ? std::malloc(n)
                                                  : std::aligned_alloc(align, (n + align - 1) / align * align);
    count(p, true);
    return p;
}
void* allocate_or_throw(std::size_t n, std::size_t align = 0) {
    if (void* p = allocate(n, align)) return p;
    throw std::bad_alloc();
}
void release(void* p) {
    count(p, false);
    std::free(p);
}

}  // namespace

void* operator new(std::size_t n) { return allocate_or_throw(n); }
void* operator new[](std::size_t n) { return allocate_or_throw(n); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate_or_throw(n, std::size_t(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate_or_throw(n, std::size_t(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return allocate(n, std::size_t(a)); }
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return allocate(n, std::size_t(a)); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }

namespace mha::test {

FailAllocation::FailAllocation(long n) {
    failed = false;
    fail_in = n;
}
FailAllocation::~FailAllocation() { fail_in = 0; }
bool FailAllocation::fired() const { return failed; }

bool counting_bytes() {
#ifdef MHA_TEST_COUNTS_BYTES
    return true;
#else
    return false;
#endif
}
std::size_t live_bytes() { return live.load(); }
std::size_t peak_bytes() { return peak.load(); }
void reset_peak_bytes() { peak = live.load(); }

}  // namespace mha::test
