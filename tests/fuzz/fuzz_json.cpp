// libFuzzer target: the JSON parser alone (core/io/json_mini.hpp), under the default limits and under the
// safetensors header's (duplicate keys allowed) with tight depth, string and value limits.
// Properties besides "no crash, no UB": a failure is a null value and a message "... at byte N" with N within
// the input; a success dumps to text that parses back to the same dump; any UTF-8 string survives quote().
// Inputs: tests/fuzz/corpus/json/. Run: scripts/fuzz.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "json_mini.hpp"

using namespace mha;

namespace {

// the N of "... at byte N"
bool error_offset(const std::string& err, std::size_t& at) {
    const std::string tag = " at byte ";
    const std::size_t k = err.rfind(tag);
    if (k == std::string::npos || k + tag.size() >= err.size()) return false;
    at = 0;
    for (std::size_t i = k + tag.size(); i < err.size(); ++i) {
        if (err[i] < '0' || err[i] > '9') return false;
        at = at * 10 + std::size_t(err[i] - '0');
    }
    return true;
}

// every string of v (keys included) is valid UTF-8
bool strings_valid(const json::Value& v) {
    if (v.is(json::Kind::string) && !json::valid_utf8(v.s)) return false;
    for (const auto& x : v.items)
        if (!strings_valid(x)) return false;
    for (const auto& m : v.members)
        if (!json::valid_utf8(m.first) || !strings_valid(m.second)) return false;
    return true;
}

void parse_and_check(std::string_view text, const json::ParseLimits& limits) {
    json::Value v;
    const std::string err = json::parse(text, v, limits);
    if (!err.empty()) {
        std::size_t at = 0;
        FUZZ_CHECK(error_offset(err, at), "a message without its byte offset: " + err);
        FUZZ_CHECK(at <= text.size(), "the offset is past the input: " + err);
        FUZZ_CHECK(v.is(json::Kind::null) && v.items.empty() && v.members.empty(), "a failed parse left a value");
        return;
    }
    FUZZ_CHECK(strings_valid(v), "a parsed string is not UTF-8");
    const std::string once = json::dump(v);
    json::Value again;
    json::ParseLimits loose = limits;
    loose.max_bytes = once.size() + 1;  // escapes may make the dump longer than the input
    loose.max_string = std::max(loose.max_string, once.size());
    const std::string err2 = json::parse(once, again, loose);
    FUZZ_CHECK(err2.empty(), "the dump of a parsed value does not parse: " + err2 + " in " + once);
    FUZZ_CHECK(json::dump(again) == once, "dump, parse, dump is not a fixed point: " + once);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    parse_and_check(text, json::ParseLimits{});
    json::ParseLimits tight;
    tight.max_depth = 3, tight.max_string = 16, tight.max_values = 32, tight.reject_duplicate_keys = false;
    parse_and_check(text, tight);

    // any UTF-8 string, quoted, parses back to itself
    if (json::valid_utf8(text)) {
        json::Value s;
        const std::string err = json::parse(json::quote(text), s);
        FUZZ_CHECK(err.empty() && s.is(json::Kind::string) && s.s == text, "quote does not round trip: " + err);
    }
    return 0;
}
