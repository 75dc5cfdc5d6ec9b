#include "tokenizer.hpp"

#include <algorithm>
#include <utility>

namespace mha {

// ------------------------------------------------------------------------------------------ UTF-8

namespace {
// decodes the code point at utf8[i] and advances i past it; a bad sequence gives U+FFFD and sets bad
char32_t next_code_point(const std::string& utf8, std::size_t& i, bool& bad) {
    const std::size_t n = utf8.size();
    auto byte = [&](std::size_t j) { return static_cast<unsigned char>(utf8[j]); };
    const unsigned char b0 = byte(i);
    bad = false;
    if (b0 < 0x80) {
        ++i;
        return b0;
    }
    // length of the sequence and the allowed range of its second byte (Unicode table 3-7): the narrow
    // ranges after E0, ED, F0 and F4 are what rule out overlongs, surrogates and > U+10FFFF
    int len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    char32_t cp = 0;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2;
        cp = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3;
        cp = b0 & 0x0F;
        if (b0 == 0xE0) lo = 0xA0;
        if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4;
        cp = b0 & 0x07;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;
    }
    if (len == 0) {  // a continuation byte with no lead, C0/C1, or F5..FF: never valid
        ++i;
        bad = true;
        return REPLACEMENT_CHAR;
    }
    // take continuation bytes while they fit; a failure replaces the maximal valid prefix by one U+FFFD
    int k = 1;
    for (; k < len; ++k) {
        if (i + k >= n) break;
        const unsigned char b = byte(i + k);
        if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) break;
        cp = (cp << 6) | (b & 0x3F);
    }
    i += k;
    if (k < len) {
        bad = true;
        return REPLACEMENT_CHAR;
    }
    return cp;
}
}  // namespace

std::vector<char32_t> utf8_decode(const std::string& utf8, int* invalid_count) {
    std::vector<char32_t> out;
    out.reserve(utf8.size());
    int invalid = 0;
    bool bad = false;
    for (std::size_t i = 0; i < utf8.size();) {
        out.push_back(next_code_point(utf8, i, bad));
        invalid += bad;
    }
    if (invalid_count) *invalid_count = invalid;
    return out;
}

// ------------------------------------------------------------------------------------------ building

namespace {
std::string too_many_symbols(std::size_t distinct) {
    return "The text has " + std::to_string(distinct) + " distinct characters, but the character tokenizer "
           "supports at most " + std::to_string(CharTokenizer::max_vocab - 1) +
           " (plus the unknown symbol). Use text in fewer scripts, or a smaller sample of it.";
}
}  // namespace

CharTokenizer::CharTokenizer() : CharTokenizer(std::vector<char32_t>{REPLACEMENT_CHAR}) {}

CharTokenizer::CharTokenizer(std::vector<char32_t> symbols)
    : symbols_(std::move(symbols)), ascii_id_(128, unknown_id) {
    for (int id = 1; id < vocab_size(); ++id)
        if (symbols_[id] < 128) ascii_id_[symbols_[id]] = id;
}

std::string CharTokenizer::from_text(const std::string& utf8, CharTokenizer& out) {
    // one bit per possible code point (136 KB): a single pass, no sort of an (N) buffer
    std::vector<bool> seen(0x110000, false);
    bool bad = false;
    for (std::size_t i = 0; i < utf8.size();) seen[next_code_point(utf8, i, bad)] = true;
    // U+FFFD (typed, or from bad bytes) is already the unknown symbol at id 0
    seen[REPLACEMENT_CHAR] = false;
    std::vector<char32_t> symbols{REPLACEMENT_CHAR};
    for (char32_t cp = 0; cp < 0x110000; ++cp)
        if (seen[cp]) symbols.push_back(cp);
    if (symbols.size() > static_cast<std::size_t>(max_vocab)) return too_many_symbols(symbols.size() - 1);
    out = CharTokenizer(std::move(symbols));
    return "";
}

std::string CharTokenizer::from_string(const std::string& vocab_utf8, CharTokenizer& out) {
    int invalid = 0;
    std::vector<char32_t> symbols = utf8_decode(vocab_utf8, &invalid);
    if (invalid > 0) return "The stored vocabulary is not valid UTF-8.";
    if (symbols.empty() || symbols[0] != REPLACEMENT_CHAR)
        return "The stored vocabulary does not start with the unknown symbol U+FFFD.";
    if (symbols.size() > static_cast<std::size_t>(max_vocab)) return too_many_symbols(symbols.size() - 1);
    for (std::size_t i = 2; i < symbols.size(); ++i)
        if (symbols[i] <= symbols[i - 1])
            return "The stored vocabulary is not sorted or repeats a character (at position " + std::to_string(i) +
                   ").";
    for (std::size_t i = 1; i < symbols.size(); ++i)
        if (symbols[i] == REPLACEMENT_CHAR) return "The stored vocabulary contains U+FFFD twice.";
    out = CharTokenizer(std::move(symbols));
    return "";
}

std::string CharTokenizer::to_string() const {
    std::string s;
    for (char32_t cp : symbols_) utf8_append(s, cp);
    return s;
}

// ------------------------------------------------------------------------------------------ encode, decode

int CharTokenizer::id_of(char32_t cp) const {
    if (cp < 128) return ascii_id_[cp];
    // symbols_[1..V) is sorted; U+FFFD at 0 is not part of the search
    auto first = symbols_.begin() + 1;
    auto it = std::lower_bound(first, symbols_.end(), cp);
    if (it == symbols_.end() || *it != cp) return unknown_id;
    return static_cast<int>(it - symbols_.begin());
}

std::vector<int> CharTokenizer::encode(const std::string& utf8, int* unknown_count) const {
    // decode as we go: no (N) code point buffer next to the (N) ids, which matters for an 8 MiB text in a tab
    std::vector<int> ids;
    ids.reserve(utf8.size());
    int unknown = 0;
    bool bad = false;
    for (std::size_t i = 0; i < utf8.size();) {
        const int id = id_of(next_code_point(utf8, i, bad));
        ids.push_back(id);
        unknown += id == unknown_id;
    }
    if (unknown_count) *unknown_count = unknown;
    return ids;
}

std::string CharTokenizer::decode(const int* ids, std::size_t n) const {
    std::string s;
    s.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
        utf8_append(s, symbols_[ids[i] >= 0 && ids[i] < vocab_size() ? ids[i] : unknown_id]);
    return s;
}

std::string CharTokenizer::decode(const std::vector<int>& ids) const { return decode(ids.data(), ids.size()); }

std::string CharTokenizer::symbol_utf8(int id) const {
    std::string s;
    utf8_append(s, id >= 0 && id < vocab_size() ? symbols_[id] : REPLACEMENT_CHAR);
    return s;
}

}  // namespace mha
