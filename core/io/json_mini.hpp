// A small strict JSON parser and writer (RFC 8259), only for file headers we read and write ourselves:
// safetensors today. Strict means we reject what the grammar does not allow: no comments, no trailing commas,
// no leading zeros, no NaN, no invalid UTF-8, no lone surrogates, no integers outside int64.
// Limits (depth, input size, string length, value count) come first, so a hostile header cannot exhaust the
// stack or memory. Malformed input is an error value ("expected ':' after an object key at byte 17"),
// never an exception.
//
// worked example:
//   json::Value v;
//   std::string err = json::parse(R"({"shape": [2, 3]})", v);   // err == ""
//   const json::Value* s = v.find("shape");                      // s->items[1].i == 3
//   json::quote("a\"b\n") == R"("a\"b\n")"
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mha::json {

enum class Kind { null, boolean, integer, number, string, array, object };

// "null", "a boolean", "an integer", ... for error messages
const char* kind_name(Kind k);

// One parsed value. Only the fields of its kind are meaningful. Integers without fraction or exponent are
// kept exactly as int64 (kind integer); everything else numeric is a double (kind number).
struct Value {
    Kind kind = Kind::null;
    bool b = false;                                       // boolean
    std::int64_t i = 0;                                   // integer
    double d = 0.0;                                       // number (also set for integers, rounded)
    std::string s;                                        // string, UTF-8
    std::vector<Value> items;                             // array
    std::vector<std::pair<std::string, Value>> members;   // object, in input order

    bool is(Kind k) const { return kind == k; }
    // the first member called key, or nullptr (also when this is not an object)
    const Value* find(std::string_view key) const;
};

struct ParseLimits {
    int max_depth = 16;                       // nested arrays/objects; the parser recurses once per level
    std::size_t max_bytes = 1u << 20;         // whole input
    std::size_t max_string = 1u << 16;        // bytes of one decoded string (keys included)
    std::size_t max_values = 1u << 16;        // values in the whole document, bounds the memory we build
    bool reject_duplicate_keys = true;        // the RFC only says SHOULD be unique; callers may check themselves
};

// Parses all of text (surrounding whitespace allowed, nothing else). Returns "" and fills out, or returns a
// message ending in "at byte N" (0-based offset into text) and leaves out null.
std::string parse(std::string_view text, Value& out, const ParseLimits& limits = {});

// ---------------------------------------------------------------- writing

// s as a JSON string literal with its quotes: " \ and control characters escaped, other bytes copied (the
// caller passes UTF-8; check with valid_utf8 when it comes from outside).
std::string quote(std::string_view s);
void append_quoted(std::string& out, std::string_view s);

// compact JSON text for v (no spaces, members in order); doubles with 17 significant digits
std::string dump(const Value& v);

// true when s is well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF)
bool valid_utf8(std::string_view s);

}  // namespace mha::json
