// The character tokenizer: one token per Unicode code point of UTF-8 text. The vocabulary is the sorted
// set of code points seen in a text plus one explicit unknown symbol, so any later text can be encoded:
// characters the vocabulary lacks, and bytes that are not valid UTF-8, become the unknown token.
//
//   std::string err = CharTokenizer::from_text(corpus, tok);   // "" or a sentence for the user
//   int n_unknown = 0;
//   std::vector<int> ids = tok.encode("In the beginning", &n_unknown);   // (N) ids in [0, V)
//   std::string back = tok.decode(ids);
//
// A checkpoint keeps the vocabulary as a string (to_string / from_string): the UTF-8 of the symbols in
// id order, the unknown symbol first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "config.hpp"
#include "utf8.hpp"

namespace mha {

// ------------------------------------------------------------------------------------------ UTF-8
// Decoding follows the WHATWG/Unicode "maximal subpart" rule (what a browser's TextDecoder does): each
// maximal invalid byte run that could start a valid sequence becomes one U+FFFD, other bad bytes one each.
// Overlong forms, surrogates (U+D800..U+DFFF) and anything above U+10FFFF are invalid.

// code points of utf8, (N); *invalid_count (if given) counts the U+FFFD substituted for bad bytes
std::vector<char32_t> utf8_decode(const std::string& utf8, int* invalid_count = nullptr);

// ------------------------------------------------------------------------------------------ tokenizer

class CharTokenizer {
public:
    static constexpr int unknown_id = 0;                   // id of the unknown symbol, shown as U+FFFD
    static constexpr int max_vocab = Limits::max_vocab;    // V at most, the unknown symbol included

    // a tokenizer that knows only the unknown symbol (V = 1); use from_text or from_string
    CharTokenizer();

    // vocabulary = {unknown} + sorted distinct code points of utf8 (U+FFFD itself is the unknown symbol).
    // Returns "" and sets out, or a message (out untouched) when the text has too many distinct characters.
    static std::string from_text(const std::string& utf8, CharTokenizer& out);

    // inverse of to_string: "" and sets out, or a message when the string is not a valid vocabulary
    // (not UTF-8, no leading U+FFFD, symbols not strictly increasing, too many).
    static std::string from_string(const std::string& vocab_utf8, CharTokenizer& out);

    // the symbols in id order as UTF-8 (V code points, U+FFFD first) for a checkpoint's metadata
    std::string to_string() const;

    // (N) ids in [0, V): characters outside the vocabulary, invalid UTF-8 and U+FFFD map to unknown_id, and
    // *unknown_count (if given) is set to how many did
    std::vector<int> encode(const std::string& utf8, int* unknown_count = nullptr) const;

    // UTF-8 of ids (N); unknown_id and ids outside [0, V) decode to U+FFFD
    std::string decode(const std::vector<int>& ids) const;
    std::string decode(const int* ids, std::size_t n) const;

    // id of a code point, or unknown_id when it is not in the vocabulary
    int id_of(char32_t cp) const;

    int vocab_size() const { return static_cast<int>(symbols_.size()); }
    // (V) code points in id order: symbols()[0] == U+FFFD, then strictly increasing
    const std::vector<char32_t>& symbols() const { return symbols_; }
    // UTF-8 of one symbol (U+FFFD for ids outside [0, V)), for labels on the page
    std::string symbol_utf8(int id) const;

private:
    explicit CharTokenizer(std::vector<char32_t> symbols);

    std::vector<char32_t> symbols_;  // (V)
    std::vector<int> ascii_id_;      // (128) fast path for the common case; other code points by binary search
};

}  // namespace mha
