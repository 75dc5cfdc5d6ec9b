#include "json_mini.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "utf8.hpp"

namespace mha::json {

const char* kind_name(Kind k) {
    switch (k) {
        case Kind::null: return "null";
        case Kind::boolean: return "a boolean";
        case Kind::integer: return "an integer";
        case Kind::number: return "a number";
        case Kind::string: return "a string";
        case Kind::array: return "an array";
        case Kind::object: return "an object";
    }
    return "an unknown value";
}

const Value* Value::find(std::string_view key) const {
    for (const auto& m : members)
        if (m.first == key) return &m.second;
    return nullptr;
}

// ---------------------------------------------------------------- utf-8

namespace {

// length of the well-formed UTF-8 sequence at p (n bytes available), or 0 if it is not one.
// the byte ranges are Table 3-7 of the Unicode standard: they exclude overlong forms, the surrogates
// U+D800..DFFF (ED A0..BF) and everything above U+10FFFF (F4 90.. and F5..FF).
std::size_t utf8_len(const unsigned char* p, std::size_t n) {
    const unsigned c = p[0];
    if (c < 0x80) return 1;
    std::size_t len = 0;
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c == 0xE0) len = 3, lo = 0xA0;
    else if (c >= 0xE1 && c <= 0xEC) len = 3;
    else if (c == 0xED) len = 3, hi = 0x9F;
    else if (c >= 0xEE && c <= 0xEF) len = 3;
    else if (c == 0xF0) len = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) len = 4;
    else if (c == 0xF4) len = 4, hi = 0x8F;
    else return 0;
    if (n < len || p[1] < lo || p[1] > hi) return 0;
    for (std::size_t k = 2; k < len; ++k)
        if (p[k] < 0x80 || p[k] > 0xBF) return 0;
    return len;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// ---------------------------------------------------------------- parser

// recursive descent over the RFC 8259 grammar; every method returns false after recording the first error
class Parser {
public:
    Parser(std::string_view text, const ParseLimits& limits) : t_(text), lim_(limits) {}

    std::string run(Value& out) {
        skip_ws();
        if (at_end()) {
            fail("empty input, expected a JSON value", pos_);
        } else if (value(out, 0)) {
            skip_ws();
            if (!at_end()) fail("unexpected " + describe(pos_) + " after the JSON value", pos_);
        }
        return err_;
    }

private:
    std::string_view t_;
    const ParseLimits& lim_;
    std::size_t pos_ = 0;
    std::size_t n_values_ = 0;
    std::string err_;

    bool fail(const std::string& msg, std::size_t at) {
        if (err_.empty()) err_ = msg + " at byte " + std::to_string(at);
        return false;
    }
    bool at_end() const { return pos_ >= t_.size(); }
    unsigned char peek() const { return static_cast<unsigned char>(t_[pos_]); }

    // "character 'x'", "byte 0xC3" or "end of input", for messages
    std::string describe(std::size_t at) const {
        if (at >= t_.size()) return "end of input";
        const unsigned char c = static_cast<unsigned char>(t_[at]);
        if (c >= 0x20 && c < 0x7F) return std::string("character '") + static_cast<char>(c) + "'";
        char buf[16];
        std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
        return buf;
    }

    void skip_ws() {
        while (!at_end()) {
            const char c = t_[pos_];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
            ++pos_;
        }
    }

    bool value(Value& v, int depth) {
        if (++n_values_ > lim_.max_values)
            return fail("more than " + std::to_string(lim_.max_values) + " values in the document", pos_);
        if (at_end()) return fail("unexpected end of input, expected a value", pos_);
        switch (peek()) {
            case '{': return object(v, depth + 1);
            case '[': return array(v, depth + 1);
            case '"': v.kind = Kind::string; return string(v.s);
            case 't': v.kind = Kind::boolean; v.b = true; return literal("true");
            case 'f': v.kind = Kind::boolean; v.b = false; return literal("false");
            case 'n': v.kind = Kind::null; return literal("null");
            default:
                if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return number(v);
                return fail("unexpected " + describe(pos_) + ", expected a value", pos_);
        }
    }

    bool literal(const char* word) {
        const std::string_view w(word);
        if (t_.substr(pos_, w.size()) != w) return fail("invalid literal, expected '" + std::string(w) + "'", pos_);
        pos_ += w.size();
        return true;
    }

    bool enter(int depth) {
        if (depth > lim_.max_depth)
            return fail("nesting deeper than " + std::to_string(lim_.max_depth) + " levels", pos_);
        return true;
    }

    bool array(Value& v, int depth) {
        if (!enter(depth)) return false;
        v.kind = Kind::array;
        ++pos_;  // '['
        skip_ws();
        if (!at_end() && peek() == ']') return ++pos_, true;
        for (;;) {
            skip_ws();
            v.items.emplace_back();
            if (!value(v.items.back(), depth)) return false;
            skip_ws();
            if (at_end()) return fail("unterminated array, expected ',' or ']'", pos_);
            if (peek() == ']') return ++pos_, true;
            if (peek() != ',') return fail("unexpected " + describe(pos_) + ", expected ',' or ']'", pos_);
            ++pos_;
        }
    }

    bool object(Value& v, int depth) {
        if (!enter(depth)) return false;
        v.kind = Kind::object;
        ++pos_;  // '{'
        skip_ws();
        std::vector<std::size_t> key_at;  // byte offset of each key, for the duplicate message
        if (!at_end() && peek() == '}') return ++pos_, true;
        for (;;) {
            skip_ws();
            if (at_end() || peek() != '"')
                return fail("unexpected " + describe(pos_) + ", expected a string key", pos_);
            key_at.push_back(pos_);
            v.members.emplace_back();
            auto& m = v.members.back();
            if (!string(m.first)) return false;
            skip_ws();
            if (at_end() || peek() != ':')
                return fail("unexpected " + describe(pos_) + ", expected ':' after an object key", pos_);
            ++pos_;
            skip_ws();
            if (!value(m.second, depth)) return false;
            skip_ws();
            if (at_end()) return fail("unterminated object, expected ',' or '}'", pos_);
            if (peek() == '}') {
                ++pos_;
                break;
            }
            if (peek() != ',') return fail("unexpected " + describe(pos_) + ", expected ',' or '}'", pos_);
            ++pos_;
        }
        if (lim_.reject_duplicate_keys && v.members.size() > 1) {
            // sort member indices by key (stable, so equal keys stay in input order); neighbours then collide
            std::vector<std::size_t> idx(v.members.size());
            for (std::size_t k = 0; k < idx.size(); ++k) idx[k] = k;
            std::stable_sort(idx.begin(), idx.end(),
                             [&](std::size_t a, std::size_t b) { return v.members[a].first < v.members[b].first; });
            for (std::size_t k = 1; k < idx.size(); ++k)
                if (v.members[idx[k]].first == v.members[idx[k - 1]].first)
                    return fail("duplicate key " + quote(v.members[idx[k]].first), key_at[idx[k]]);
        }
        return true;
    }

    bool string(std::string& out) {
        const std::size_t start = pos_;
        ++pos_;  // opening quote
        for (;;) {
            if (at_end()) return fail("unterminated string", start);
            if (out.size() > lim_.max_string)
                return fail("string longer than " + std::to_string(lim_.max_string) + " bytes", start);
            const unsigned char c = peek();
            if (c == '"') return ++pos_, true;
            if (c < 0x20) return fail("unescaped control character in a string", pos_);
            if (c == '\\') {
                if (!escape(out)) return false;
                continue;
            }
            if (c < 0x80) {
                out += static_cast<char>(c);
                ++pos_;
                continue;
            }
            const std::size_t len =
                utf8_len(reinterpret_cast<const unsigned char*>(t_.data()) + pos_, t_.size() - pos_);
            if (len == 0) return fail("invalid UTF-8 in a string", pos_);
            out.append(t_.data() + pos_, len);
            pos_ += len;
        }
    }

    // 4 hex digits after "\u" at pos_, or -1
    long hex4() {
        if (t_.size() - pos_ < 4) return -1;
        long cp = 0;
        for (int k = 0; k < 4; ++k) {
            const int h = hex_digit(t_[pos_ + k]);
            if (h < 0) return -1;
            cp = cp * 16 + h;
        }
        pos_ += 4;
        return cp;
    }

    bool escape(std::string& out) {
        const std::size_t at = pos_;
        ++pos_;  // backslash
        if (at_end()) return fail("unterminated escape", at);
        const char c = t_[pos_++];
        switch (c) {
            case '"': out += '"'; return true;
            case '\\': out += '\\'; return true;
            case '/': out += '/'; return true;
            case 'b': out += '\b'; return true;
            case 'f': out += '\f'; return true;
            case 'n': out += '\n'; return true;
            case 'r': out += '\r'; return true;
            case 't': out += '\t'; return true;
            case 'u': break;
            default: return fail("invalid escape '\\" + std::string(1, c) + "'", at);
        }
        long cp = hex4();
        if (cp < 0) return fail("\\u must be followed by 4 hex digits", at);
        if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("lone low surrogate \\u" + std::string(t_.substr(at + 2, 4)), at);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            // utf-16 pair: high 0xD800..DBFF then low 0xDC00..DFFF carry 10 bits each above U+10000
            if (t_.substr(pos_, 2) != "\\u")
                return fail("high surrogate not followed by a \\u low surrogate", at);
            pos_ += 2;
            const long lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) return fail("high surrogate not followed by a low surrogate", at);
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        utf8_append(out, static_cast<char32_t>(cp));
        return true;
    }

    bool digits() {
        if (at_end() || peek() < '0' || peek() > '9') return fail("expected a digit, found " + describe(pos_), pos_);
        while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
        return true;
    }

    bool number(Value& v) {
        const std::size_t start = pos_;
        const bool neg = peek() == '-';
        if (neg) ++pos_;
        if (!at_end() && peek() == '0') {
            ++pos_;
            if (!at_end() && peek() >= '0' && peek() <= '9') return fail("leading zeros are not allowed", start);
        } else if (!digits()) {
            return false;
        }
        const std::size_t int_end = pos_;
        bool is_int = true;
        if (!at_end() && peek() == '.') {
            ++pos_;
            if (!digits()) return false;
            is_int = false;
        }
        if (!at_end() && (peek() == 'e' || peek() == 'E')) {
            ++pos_;
            if (!at_end() && (peek() == '+' || peek() == '-')) ++pos_;
            if (!digits()) return false;
            is_int = false;
        }
        if (is_int) {
            // magnitude in uint64, at most 2^63 for a negative number and 2^63 - 1 for a positive one
            const std::uint64_t max_mag = neg ? (std::uint64_t(1) << 63) : (std::uint64_t(1) << 63) - 1;
            std::uint64_t mag = 0;
            for (std::size_t k = start + (neg ? 1 : 0); k < int_end; ++k) {
                const std::uint64_t d = static_cast<std::uint64_t>(t_[k] - '0');
                if (mag > (max_mag - d) / 10) return fail("integer outside the int64 range", start);
                mag = mag * 10 + d;
            }
            v.kind = Kind::integer;
            // -2^63 has no positive twin: negate in unsigned arithmetic, then convert (two's complement)
            v.i = neg ? static_cast<std::int64_t>(~mag + 1) : static_cast<std::int64_t>(mag);
            v.d = static_cast<double>(v.i);
            return true;
        }
        // the grammar is checked above, so strtod sees a plain C number (we never change the C locale)
        const std::string tok(t_.substr(start, pos_ - start));
        const double d = std::strtod(tok.c_str(), nullptr);
        if (!std::isfinite(d)) return fail("number too large for a double", start);
        v.kind = Kind::number;
        v.d = d;
        return true;
    }
};

}  // namespace

std::string parse(std::string_view text, Value& out, const ParseLimits& limits) {
    out = Value{};
    if (text.size() > limits.max_bytes)
        return "input is " + std::to_string(text.size()) + " bytes, more than the limit of " +
               std::to_string(limits.max_bytes) + " at byte " + std::to_string(limits.max_bytes);
    Parser p(text, limits);
    std::string err = p.run(out);
    if (!err.empty()) out = Value{};
    return err;
}

// ---------------------------------------------------------------- writing

bool valid_utf8(std::string_view s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    for (std::size_t k = 0; k < s.size();) {
        const std::size_t len = utf8_len(p + k, s.size() - k);
        if (len == 0) return false;
        k += len;
    }
    return true;
}

void append_quoted(std::string& out, std::string_view s) {
    out += '"';
    for (const char ch : s) {
        const unsigned char c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += ch;
                }
        }
    }
    out += '"';
}

std::string quote(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    append_quoted(out, s);
    return out;
}

namespace {
void dump_to(std::string& out, const Value& v) {
    switch (v.kind) {
        case Kind::null: out += "null"; break;
        case Kind::boolean: out += v.b ? "true" : "false"; break;
        case Kind::integer: out += std::to_string(v.i); break;
        case Kind::number: {
            // json has no nan or infinity; parse never produces them, a hand-built value writes null
            if (!std::isfinite(v.d)) {
                out += "null";
                break;
            }
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.17g", v.d);
            out += buf;
            // keep it a number on re-read ("1" would come back as an integer)
            if (std::string_view(buf).find_first_of(".eE") == std::string_view::npos) out += ".0";
            break;
        }
        case Kind::string: append_quoted(out, v.s); break;
        case Kind::array:
            out += '[';
            for (std::size_t k = 0; k < v.items.size(); ++k) {
                if (k) out += ',';
                dump_to(out, v.items[k]);
            }
            out += ']';
            break;
        case Kind::object:
            out += '{';
            for (std::size_t k = 0; k < v.members.size(); ++k) {
                if (k) out += ',';
                append_quoted(out, v.members[k].first);
                out += ':';
                dump_to(out, v.members[k].second);
            }
            out += '}';
            break;
    }
}
}  // namespace

std::string dump(const Value& v) {
    std::string out;
    dump_to(out, v);
    return out;
}

}  // namespace mha::json
