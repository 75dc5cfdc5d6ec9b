// The character tokenizer: UTF-8 round trips, the unknown symbol for bad bytes and unseen characters,
// the vocabulary cap, the vocabulary as a string for checkpoints, and the shipped corpus.
#include <catch2/catch.hpp>

#include "test_util.hpp"

#include <iostream>
#include <string>
#include <vector>

#include "tokenizer.hpp"

using namespace mha;

namespace {
const std::string FFFD_UTF8 = "\xEF\xBF\xBD";

using test::corpus_path;

CharTokenizer make(const std::string& text) {
    CharTokenizer tok;
    const std::string err = CharTokenizer::from_text(text, tok);
    REQUIRE(err.empty());
    return tok;
}
}  // namespace

TEST_CASE("ASCII text round trips and the vocabulary is sorted after the unknown symbol", "[data]") {
    const std::string text = "hello world\n";
    const CharTokenizer tok = make(text);
    // h e l o space w r d newline, plus unknown
    CHECK(tok.vocab_size() == 10);
    REQUIRE(tok.symbols().size() == 10u);
    CHECK(tok.symbols()[0] == REPLACEMENT_CHAR);
    CHECK(tok.symbols()[1] == U'\n');
    CHECK(tok.symbols()[2] == U' ');
    for (std::size_t i = 2; i < tok.symbols().size(); ++i) CHECK(tok.symbols()[i - 1] < tok.symbols()[i]);
    int unknown = -1;
    const std::vector<int> ids = tok.encode(text, &unknown);
    CHECK(unknown == 0);
    CHECK(ids.size() == text.size());
    for (int id : ids) CHECK((id > 0 && id < tok.vocab_size()));
    CHECK(tok.decode(ids) == text);
    CHECK(tok.id_of(U'h') == tok.encode("h")[0]);
    CHECK(tok.symbol_utf8(tok.id_of(U'w')) == "w");
}

TEST_CASE("multi-byte UTF-8 round trips one token per code point", "[data]") {
    // é (2 bytes), 漢 and 字 (3 bytes), 🙂 (4 bytes), ï (2 bytes)
    const std::string text = "caf\xC3\xA9 \xE6\xBC\xA2\xE5\xAD\x97 \xF0\x9F\x99\x82 na\xC3\xAFve";
    const CharTokenizer tok = make(text);
    const std::vector<int> ids = tok.encode(text);
    CHECK(ids.size() == 15u);  // c a f é _ 漢 字 _ 🙂 _ n a ï v e
    CHECK(tok.decode(ids) == text);
    CHECK(tok.id_of(0xE9) != CharTokenizer::unknown_id);
    CHECK(tok.id_of(0x6F22) != CharTokenizer::unknown_id);
    CHECK(tok.id_of(0x1F642) != CharTokenizer::unknown_id);
    CHECK(tok.symbol_utf8(tok.id_of(0x1F642)) == "\xF0\x9F\x99\x82");
    // the emoji is the largest code point, so the last symbol
    CHECK(tok.symbols().back() == 0x1F642);
}

TEST_CASE("invalid UTF-8 decodes to the unknown symbol, one per maximal bad subpart", "[data]") {
    struct Case {
        std::string bytes;
        std::vector<char32_t> want;
    };
    const std::vector<Case> cases = {
        {"a\xFF" "b", {U'a', REPLACEMENT_CHAR, U'b'}},              // never-valid byte
        {"a\x80" "b", {U'a', REPLACEMENT_CHAR, U'b'}},              // lone continuation byte
        {"a\xC3", {U'a', REPLACEMENT_CHAR}},                         // truncated at the end
        {"\xE6\xBC" "x", {REPLACEMENT_CHAR, U'x'}},                  // truncated 3-byte sequence: one U+FFFD
        {"\xC0\xAF", {REPLACEMENT_CHAR, REPLACEMENT_CHAR}},          // overlong '/'
        {"\xED\xA0\x80", {REPLACEMENT_CHAR, REPLACEMENT_CHAR, REPLACEMENT_CHAR}},  // a surrogate
        {"\xF4\x90\x80\x80", {REPLACEMENT_CHAR, REPLACEMENT_CHAR, REPLACEMENT_CHAR, REPLACEMENT_CHAR}},  // > U+10FFFF
        {"\xF0\x9F\x99" "!", {REPLACEMENT_CHAR, U'!'}},               // emoji missing its last byte
    };
    for (const Case& c : cases) {
        int invalid = -1;
        const std::vector<char32_t> got = utf8_decode(c.bytes, &invalid);
        CHECK(got == c.want);
        int want_invalid = 0;
        for (char32_t cp : c.want) want_invalid += cp == REPLACEMENT_CHAR;
        CHECK(invalid == want_invalid);
    }

    // building from bad text adds no junk symbols; encoding it reports the bad bytes as unknown
    const std::string text = "ab\xFF" "c\xE6\xBC";
    const CharTokenizer tok = make(text);
    CHECK(tok.vocab_size() == 4);  // unknown, a, b, c
    int unknown = 0;
    const std::vector<int> ids = tok.encode(text, &unknown);
    CHECK(unknown == 2);
    CHECK(ids == std::vector<int>{tok.id_of(U'a'), tok.id_of(U'b'), 0, tok.id_of(U'c'), 0});
    CHECK(tok.decode(ids) == "ab" + FFFD_UTF8 + "c" + FFFD_UTF8);
}

TEST_CASE("characters outside the vocabulary map to the unknown id and are counted", "[data]") {
    const CharTokenizer tok = make("abc");
    int unknown = -1;
    const std::vector<int> ids = tok.encode("abxd\xC3\xA9" "c", &unknown);
    CHECK(unknown == 3);  // x, d, é
    CHECK(ids == std::vector<int>{1, 2, 0, 0, 0, 3});
    CHECK(tok.decode(ids) == "ab" + FFFD_UTF8 + FFFD_UTF8 + FFFD_UTF8 + "c");
    CHECK(tok.encode("", &unknown).empty());
    CHECK(unknown == 0);
    // ids outside [0, V) decode to U+FFFD instead of reading out of bounds
    CHECK(tok.decode(std::vector<int>{1, -5, 99}) == "a" + FFFD_UTF8 + FFFD_UTF8);
    // a typed U+FFFD is the unknown symbol itself
    CHECK(tok.encode(FFFD_UTF8) == std::vector<int>{0});
}

TEST_CASE("a text with more distinct characters than the cap is a clear error", "[data]") {
    // 4095 distinct CJK characters fit (4096 with the unknown symbol); one more does not
    std::string text;
    for (char32_t cp = 0x4E00; cp < 0x4E00 + 4095; ++cp) utf8_append(text, cp);
    CharTokenizer tok;
    CHECK(CharTokenizer::from_text(text, tok).empty());
    CHECK(tok.vocab_size() == CharTokenizer::max_vocab);
    CHECK(CharTokenizer::max_vocab == 4096);

    utf8_append(text, 0x4E00 + 4095);
    CharTokenizer small = make("xy");
    const std::string err = CharTokenizer::from_text(text, small);
    REQUIRE_FALSE(err.empty());
    CHECK(err.find("4096 distinct characters") != std::string::npos);
    CHECK(err.find("at most 4095") != std::string::npos);
    CHECK(small.vocab_size() == 3);  // untouched on error
}

TEST_CASE("the vocabulary survives a round trip through its string form", "[data]") {
    const CharTokenizer tok = make("The quick brown fox, caf\xC3\xA9 \xE6\xBC\xA2 \xF0\x9F\x99\x82\n");
    const std::string s = tok.to_string();
    CHECK(s.rfind(FFFD_UTF8, 0) == 0);  // starts with the unknown symbol
    CharTokenizer back;
    REQUIRE(CharTokenizer::from_string(s, back).empty());
    CHECK(back.symbols() == tok.symbols());
    CHECK(back.encode("fox \xE6\xBC\xA2") == tok.encode("fox \xE6\xBC\xA2"));

    CharTokenizer untouched = make("ab");
    CHECK_FALSE(CharTokenizer::from_string("", untouched).empty());
    CHECK_FALSE(CharTokenizer::from_string("abc", untouched).empty());                // no U+FFFD first
    CHECK_FALSE(CharTokenizer::from_string(FFFD_UTF8 + "ba", untouched).empty());     // not sorted
    CHECK_FALSE(CharTokenizer::from_string(FFFD_UTF8 + "aab", untouched).empty());    // repeated
    CHECK_FALSE(CharTokenizer::from_string(FFFD_UTF8 + "a\xFF", untouched).empty());  // not UTF-8
    CHECK_FALSE(CharTokenizer::from_string(FFFD_UTF8 + "a" + FFFD_UTF8, untouched).empty());
    CHECK(untouched.vocab_size() == 3);
    // the smallest vocabulary, unknown alone, is valid
    CHECK(CharTokenizer::from_string(FFFD_UTF8, untouched).empty());
    CHECK(untouched.vocab_size() == 1);
}

TEST_CASE("the shipped corpus loads, is large enough and has a small character vocabulary", "[data]") {
    const std::string text = test::read_text_file(corpus_path());
    INFO("corpus: " << corpus_path());
    REQUIRE(text.size() >= 200u * 1024u);
    CharTokenizer tok;
    REQUIRE(CharTokenizer::from_text(text, tok).empty());
    std::cout << "shipped corpus: " << text.size() << " bytes, vocabulary " << tok.vocab_size()
              << " symbols (unknown included)\n";
    CHECK(tok.vocab_size() >= 50);
    CHECK(tok.vocab_size() <= 100);
    int unknown = -1;
    const std::vector<int> ids = tok.encode(text, &unknown);
    CHECK(unknown == 0);
    CHECK(tok.decode(ids) == text);
    // and it is plain prose: no verse references like "Ge1:1" left
    CHECK(text.find("Ge1:1") == std::string::npos);
    CHECK(text.rfind("In the beginning God created the heaven and the earth.", 0) == 0);
}
