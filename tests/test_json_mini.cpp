// The strict JSON parser under the safetensors header: what it accepts, exact integers, escapes to UTF-8, and a
// message with the byte offset for everything the grammar forbids.
#include <catch2/catch.hpp>

#include <string>

#include "json_mini.hpp"

using namespace mha;

namespace {
// the parse error for text ("" when it parses)
std::string err_of(const std::string& text, const json::ParseLimits& limits = {}) {
    json::Value v;
    return json::parse(text, v, limits);
}
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

// ---------------------------------------------------------------- accepted input

TEST_CASE("json parses objects, arrays, literals and numbers in order", "[json]") {
    json::Value v;
    REQUIRE(json::parse(" {\"a\": [1, -2, 3.5, 1e3, true, false, null], \"b\": {}, \"c\": \"x\"}\r\n\t", v) == "");
    REQUIRE(v.is(json::Kind::object));
    REQUIRE(v.members.size() == 3);
    CHECK(v.members[0].first == "a");
    CHECK(v.members[2].first == "c");
    const json::Value* a = v.find("a");
    REQUIRE(a);
    REQUIRE(a->items.size() == 7);
    CHECK(a->items[0].is(json::Kind::integer));
    CHECK(a->items[0].i == 1);
    CHECK(a->items[1].i == -2);
    CHECK(a->items[2].is(json::Kind::number));
    CHECK(a->items[2].d == 3.5);
    CHECK(a->items[3].is(json::Kind::number));  // an exponent makes it a double, even when whole
    CHECK(a->items[3].d == 1000.0);
    CHECK(a->items[4].is(json::Kind::boolean));
    CHECK(a->items[4].b);
    CHECK_FALSE(a->items[5].b);
    CHECK(a->items[6].is(json::Kind::null));
    CHECK(v.find("b")->is(json::Kind::object));
    CHECK(v.find("c")->s == "x");
    CHECK(v.find("missing") == nullptr);
    // a scalar is a document too
    REQUIRE(json::parse("-0", v) == "");
    CHECK(v.is(json::Kind::integer));
    CHECK(v.i == 0);
}

TEST_CASE("json integers are exact over the whole int64 range and rejected beyond it", "[json]") {
    json::Value v;
    REQUIRE(json::parse("9223372036854775807", v) == "");
    CHECK(v.i == INT64_MAX);
    REQUIRE(json::parse("-9223372036854775808", v) == "");
    CHECK(v.i == INT64_MIN);
    REQUIRE(json::parse("9007199254740993", v) == "");  // 2^53 + 1: a double would round it
    CHECK(v.i == 9007199254740993LL);
    CHECK(has(err_of("9223372036854775808"), "int64 range at byte 0"));
    CHECK(has(err_of("[-9223372036854775809]"), "int64 range at byte 1"));
    CHECK(has(err_of("99999999999999999999999"), "int64 range"));
    CHECK(has(err_of("1e400"), "too large for a double"));
    REQUIRE(json::parse("1e-400", v) == "");  // underflow to 0 is fine
    CHECK(v.d == 0.0);
}

TEST_CASE("json string escapes and surrogate pairs decode to UTF-8", "[json]") {
    json::Value v;
    REQUIRE(json::parse(R"("q\" b\\ s\/ \b\f\n\r\t")", v) == "");
    CHECK(v.s == "q\" b\\ s/ \b\f\n\r\t");
    REQUIRE(json::parse(R"("caf\u00e9 \u20AC \ud83d\ude00")", v) == "");
    CHECK(v.s == "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
    REQUIRE(json::parse(R"("a\u0000b")", v) == "");
    CHECK(v.s == std::string("a\0b", 3));
    // raw UTF-8 passes through unchanged
    REQUIRE(json::parse("\"\xC3\xA9\xF0\x9F\x98\x80\"", v) == "");
    CHECK(v.s == "\xC3\xA9\xF0\x9F\x98\x80");
}

// ---------------------------------------------------------------- rejected input

TEST_CASE("json syntax errors name the problem and its byte offset", "[json]") {
    CHECK(err_of("") == "empty input, expected a JSON value at byte 0");
    CHECK(err_of("   ") == "empty input, expected a JSON value at byte 3");
    CHECK(err_of(R"({"a" 1})") == "unexpected character '1', expected ':' after an object key at byte 5");
    CHECK(err_of("[1,]") == "unexpected character ']', expected a value at byte 3");
    CHECK(err_of(R"({"a":1,})") == "unexpected character '}', expected a string key at byte 7");
    CHECK(err_of("{a:1}") == "unexpected character 'a', expected a string key at byte 1");
    CHECK(err_of("[1 2]") == "unexpected character '2', expected ',' or ']' at byte 3");
    CHECK(err_of("{} x") == "unexpected character 'x' after the JSON value at byte 3");
    CHECK(err_of("[1, 2") == "unterminated array, expected ',' or ']' at byte 5");
    CHECK(err_of(R"({"a": "xyz)") == "unterminated string at byte 6");
    CHECK(err_of("tru") == "invalid literal, expected 'true' at byte 0");
    CHECK(err_of("nul1") == "invalid literal, expected 'null' at byte 0");
    CHECK(err_of("NaN") == "unexpected character 'N', expected a value at byte 0");
    CHECK(err_of("012") == "leading zeros are not allowed at byte 0");
    CHECK(err_of("1.") == "expected a digit, found end of input at byte 2");
    CHECK(err_of("-") == "expected a digit, found end of input at byte 1");
    CHECK(err_of("1e+") == "expected a digit, found end of input at byte 3");
    CHECK(err_of(".5") == "unexpected character '.', expected a value at byte 0");
    CHECK(err_of("// c\n{}") == "unexpected character '/', expected a value at byte 0");
    CHECK(err_of("\xEF\xBB\xBF{}") == "unexpected byte 0xEF, expected a value at byte 0");  // no BOM
}

TEST_CASE("json strings reject bad escapes, control characters, lone surrogates and invalid UTF-8", "[json]") {
    CHECK(err_of(R"("a\x")") == "invalid escape '\\x' at byte 2");
    CHECK(err_of(R"("\u12G4")") == "\\u must be followed by 4 hex digits at byte 1");
    CHECK(err_of(R"("\u12")") == "\\u must be followed by 4 hex digits at byte 1");
    CHECK(err_of(R"("\ude00")") == "lone low surrogate \\ude00 at byte 1");
    CHECK(err_of(R"("\ud83d")") == "high surrogate not followed by a \\u low surrogate at byte 1");
    CHECK(err_of(R"("\ud83dx")") == "high surrogate not followed by a \\u low surrogate at byte 1");
    CHECK(err_of(R"("\ud83d\u0041")") == "high surrogate not followed by a low surrogate at byte 1");
    CHECK(err_of("\"a\nb\"") == "unescaped control character in a string at byte 2");
    CHECK(err_of("\"a\x01\"") == "unescaped control character in a string at byte 2");
    // overlong '/', an encoded surrogate, a code point above U+10FFFF, a stray continuation, a cut sequence
    for (const char* bad : {"\"\xC0\xAF\"", "\"\xED\xA0\x80\"", "\"\xF4\x90\x80\x80\"", "\"\x80\"", "\"\xE2\x82\""})
        CHECK(err_of(bad) == "invalid UTF-8 in a string at byte 1");
}

TEST_CASE("json limits stop depth bombs, huge strings and too many values", "[json]") {
    std::string ok(16, '['), deep(17, '[');
    ok += std::string(16, ']');
    deep += std::string(17, ']');
    CHECK(err_of(ok) == "");
    CHECK(err_of(deep) == "nesting deeper than 16 levels at byte 16");
    // a megabyte of '[' stops at the limit, without recursing a million times
    CHECK(err_of(std::string(1 << 20, '[')) == "nesting deeper than 16 levels at byte 16");
    CHECK(err_of(R"({"a":{"b":)" + std::string(100, '[')) == "nesting deeper than 16 levels at byte 24");

    json::ParseLimits small;
    small.max_bytes = 10;
    CHECK(err_of("[1,2,3,4,5]", small) == "input is 11 bytes, more than the limit of 10 at byte 10");
    small = json::ParseLimits{};
    small.max_string = 4;
    CHECK(err_of(R"(["abcd"])", small) == "");
    CHECK(err_of(R"(["abcde"])", small) == "string longer than 4 bytes at byte 1");
    CHECK(err_of(R"({"abcde": 1})", small) == "string longer than 4 bytes at byte 1");
    small = json::ParseLimits{};
    small.max_values = 4;
    CHECK(err_of("[1,2,3]", small) == "");
    CHECK(err_of("[1,2,3,4]", small) == "more than 4 values in the document at byte 7");
}

TEST_CASE("json duplicate keys are rejected unless the caller checks them", "[json]") {
    CHECK(err_of(R"({"a":1,"b":2,"a":3})") == R"(duplicate key "a" at byte 13)");
    CHECK(err_of(R"({"x":{"k":1,"k":1}})") == R"(duplicate key "k" at byte 12)");
    json::ParseLimits lax;
    lax.reject_duplicate_keys = false;
    json::Value v;
    REQUIRE(json::parse(R"({"a":1,"a":2})", v, lax) == "");
    REQUIRE(v.members.size() == 2);
    CHECK(v.find("a")->i == 1);  // find gives the first
}

TEST_CASE("json failed parse leaves a null value", "[json]") {
    json::Value v;
    REQUIRE(json::parse(R"({"a":[1,2]})", v) == "");
    REQUIRE_FALSE(json::parse(R"({"a":[1,2})", v).empty());
    CHECK(v.is(json::Kind::null));
    CHECK(v.members.empty());
}

// ---------------------------------------------------------------- writing

TEST_CASE("json quote escapes quotes, backslashes and control characters", "[json]") {
    CHECK(json::quote("plain") == R"("plain")");
    CHECK(json::quote("a\"b\\c") == R"("a\"b\\c")");
    CHECK(json::quote("\n\r\t\b\f") == R"("\n\r\t\b\f")");
    CHECK(json::quote(std::string("\x01\x1f\0", 3)) == R"("\u0001\u001f\u0000")");
    CHECK(json::quote("caf\xC3\xA9") == "\"caf\xC3\xA9\"");  // utf-8 is copied, not escaped
    // every byte string that is valid UTF-8 survives quote -> parse
    const std::string nasty = std::string("x\"\\/\x7f\x00\x1b", 7) + "\xF0\x9F\x98\x80";
    json::Value v;
    REQUIRE(json::parse(json::quote(nasty), v) == "");
    CHECK(v.s == nasty);
}

TEST_CASE("json dump writes compact text that parses back to the same values", "[json]") {
    const std::string text = R"({"a":[1,-9223372036854775808,0.1,1.0,true,false,null],"b":{"c":"d\n"},"e":[]})";
    json::Value v;
    REQUIRE(json::parse(text, v) == "");
    CHECK(json::dump(v) == R"({"a":[1,-9223372036854775808,0.10000000000000001,1.0,true,false,null],"b":{"c":"d\n"},"e":[]})");
    json::Value back;
    REQUIRE(json::parse(json::dump(v), back) == "");
    CHECK(json::dump(back) == json::dump(v));
    CHECK(back.find("a")->items[2].d == 0.1);
    CHECK(back.find("a")->items[3].is(json::Kind::number));
}

TEST_CASE("json valid_utf8 follows the Unicode table", "[json]") {
    CHECK(json::valid_utf8(""));
    CHECK(json::valid_utf8("abc\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF"));
    CHECK_FALSE(json::valid_utf8("\xC1\xBF"));          // overlong
    CHECK_FALSE(json::valid_utf8("\xE0\x80\xAF"));      // overlong
    CHECK_FALSE(json::valid_utf8("\xED\xBF\xBF"));      // surrogate
    CHECK_FALSE(json::valid_utf8("\xF8\x88\x80\x80"));  // 5-byte form
    CHECK_FALSE(json::valid_utf8("\xC3"));              // cut
}
