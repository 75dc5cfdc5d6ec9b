// Errors: checked at the edges, never exit. Library code throws mha::Error; the page's bindings catch
// it and hand JS a message, so nothing reachable from the page calls abort().
#pragma once
#include <stdexcept>
#include <string>

namespace mha {

struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// throws Error("msg (file:line)"); out of line so the check macro stays small at every call site
[[noreturn]] void fail(const char* file, int line, const std::string& msg);

// user-facing validation: throws Error(message), without a source location, when message is not empty
inline void throw_if_invalid(const std::string& message) {
    if (!message.empty()) throw Error(message);
}

}  // namespace mha

// internal invariant or argument check; user-facing validation returns messages instead (config.hpp)
#define MHA_CHECK(cond, msg)                                    \
    do {                                                        \
        if (!(cond)) ::mha::fail(__FILE__, __LINE__, (msg));    \
    } while (0)
