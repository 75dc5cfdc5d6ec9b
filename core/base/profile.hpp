// A tiny per-op profiler for one training step (scripts/bench's "where the time goes").
//
// Off by default: the sink is a thread-local pointer, null unless a `ProfileSession` is alive on this thread, so
// when nobody is profiling a `ProfileLap` costs one call (reading the sink, when it is made) and then one branch
// per lap. Measured with profiling on, the step's median time moved within the noise of a shared machine against
// unprofiled steps interleaved with it (scripts/bench; docs/experiments.md, "Speed of the kernels").
//
// Call sites mark laps, one line before each call, so the code they time is left exactly as it is:
//   ProfileLap lap;                 // nothing is timed yet
//   lap("layernorm");  layernorm_forward(...);
//   lap("attention");  attention_forward(...);     // ends "layernorm", starts "attention"
//   // the last lap ends when `lap` goes out of scope (or at lap.stop())
// Laps nest: a lap opened inside a callee (say "dinp" inside linear_backward, called during the lap "qkv") is
// recorded as the child "qkv/dinp". Every node keeps its inclusive time; `rows()` reports exclusive times
// (a node minus its children), so the rows add up to the time spent inside top-level laps, and whatever the
// caller timed around them that no lap covered is the caller's "other / unattributed".
//
// Clock: std::chrono::steady_clock (in wasm, performance.now(): 5 µs ticks in a cross-origin-isolated Chromium
// worker, 100 µs otherwise, so short laps are quantised; their sum over many calls is still unbiased).
#pragma once
#include <chrono>
#include <string>
#include <vector>

namespace mha {

class Profile {
public:
    // one op kind: its path ("qkv/dinp"), exclusive seconds and how often it ran, over everything recorded
    struct Row {
        std::string path;
        double seconds;
        long calls;
    };

    // noexcept: in wasm, a call that may throw, made from a function with a cleanup (every function holding a
    // ProfileLap), goes through one of Emscripten's JS exception trampolines (invoke_vi, invoke_vii), so each lap
    // made a wasm -> JS -> wasm round trip besides the clock's own call into JS. Without it the profiler's overhead
    // in the Chromium worker is smaller (measured: docs/experiments.md, "Speed of the kernels"). enter can fail
    // only on a failed allocation, which then ends the program: only scripts/bench's profile ever opens a lap.
    void enter(const char* label) noexcept;  // label: a string literal (kept by pointer, compared by content)
    void leave() noexcept;                   // a leave without a lap open is ignored
    std::vector<Row> rows() const;       // exclusive times, in first-seen order (depth first)
    double total_seconds() const;        // inclusive time of the top-level laps = the sum of rows()
    void clear();

private:
    struct Node {
        const char* label;
        int parent;  // -1 for a top-level lap
        double seconds = 0;
        long calls = 0;
        std::vector<int> children;
    };
    using Clock = std::chrono::steady_clock;
    std::vector<Node> nodes_;
    std::vector<int> roots_;
    std::vector<std::pair<int, Clock::time_point>> open_;  // the laps open now, innermost last
};

// this thread's sink (null: profiling off)
Profile*& profile_sink();

// Turns profiling on for this thread while it lives, into `profile`; restores the previous sink after.
class ProfileSession {
public:
    explicit ProfileSession(Profile& profile) : previous_(profile_sink()) { profile_sink() = &profile; }
    ~ProfileSession() { profile_sink() = previous_; }
    ProfileSession(const ProfileSession&) = delete;
    ProfileSession& operator=(const ProfileSession&) = delete;

private:
    Profile* previous_;
};

// Consecutive laps at one call site (see the top of this file). Reads the sink once, when it is made.
class ProfileLap {
public:
    ProfileLap() : sink_(profile_sink()) {}
    explicit ProfileLap(const char* label) : ProfileLap() { (*this)(label); }
    ~ProfileLap() { stop(); }
    ProfileLap(const ProfileLap&) = delete;
    ProfileLap& operator=(const ProfileLap&) = delete;

    // ends the running lap of this object, if any, and starts `label`
    void operator()(const char* label) {
        if (sink_) {
            if (open_) sink_->leave();
            sink_->enter(label);
            open_ = true;
        }
    }
    void stop() {
        if (sink_ && open_) {
            sink_->leave();
            open_ = false;
        }
    }

private:
    Profile* sink_;
    bool open_ = false;
};

}  // namespace mha
