// libFuzzer target: a training text from a stranger (a paste or a file on the page), through everything that
// reads it: UTF-8 decoding, CharTokenizer::from_text, make_text_dataset with its size checks, and a tiny run
// (to_run_spec, make_run, one step, an evaluation, a sample prompted with the text).
//
// The input: byte 0 and byte 1 choose the model and the split, the rest is the text.
//   byte 0  bits 0-3 the attention variant (0..9; 10..15 canonical), bit 4 no MLP, bits 5-6 H = 1, 2, 4 or 8
//           (D = 8), bit 7 one key/value head (MQA; canonical only)
//   byte 1  bits 0-3 the context T = 2..17, bits 4-7 a validation fraction 0.005 + 0.04 k for make_text_dataset
//           (k = 0 and k >= 13 fall outside [0.01, 0.5] and must be refused)
// Properties besides "no crash, no UB": the two UTF-8 validators of the core agree (json::valid_utf8 and the
// tokenizer's decoder); decoding and re-encoding valid UTF-8 gives it back; ids are in [0, V) and decode to
// the text; the vocabulary survives to_string/from_string; an accepted split leaves T+1 tokens on both sides.
// Inputs: tests/fuzz/corpus/text/. Run: scripts/fuzz.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dataset.hpp"
#include "fuzz_check.hpp"
#include "json_mini.hpp"
#include "run.hpp"
#include "tokenizer.hpp"
#include "utf8.hpp"

using namespace mha;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const unsigned k0 = data[0], k1 = data[1];
    const std::string text(reinterpret_cast<const char*>(data) + 2, size - 2);

    // ---------------------------------------------------------------- UTF-8
    int invalid = 0;
    const std::vector<char32_t> cps = utf8_decode(text, &invalid);
    FUZZ_CHECK((invalid == 0) == json::valid_utf8(text), "the tokenizer and the JSON parser disagree on UTF-8");
    FUZZ_CHECK(cps.size() <= text.size(), "more code points than bytes");
    std::string reencoded;
    for (char32_t cp : cps) {
        FUZZ_CHECK(cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF), "decoded a surrogate or a value past U+10FFFF");
        utf8_append(reencoded, cp);
    }
    if (invalid == 0) FUZZ_CHECK(reencoded == text, "valid UTF-8 does not survive decode and encode");
    FUZZ_CHECK(json::valid_utf8(reencoded), "U+FFFD substitution left invalid UTF-8");

    // ---------------------------------------------------------------- the tokenizer
    CharTokenizer tok;
    const std::string tok_err = CharTokenizer::from_text(text, tok);
    if (tok_err.empty()) {
        const int V = tok.vocab_size();
        int unknown = -1;
        const std::vector<int> ids = tok.encode(text, &unknown);
        FUZZ_CHECK(ids.size() == cps.size(), "one id per code point");
        int n_unknown = 0;
        for (int id : ids) {
            FUZZ_CHECK(id >= 0 && id < V, "an id outside the vocabulary");
            n_unknown += id == CharTokenizer::unknown_id;
        }
        FUZZ_CHECK(n_unknown == unknown, "the unknown count is wrong");
        FUZZ_CHECK(tok.decode(ids) == reencoded, "decode(encode(text)) is not the text with U+FFFD substituted");
        CharTokenizer back;
        FUZZ_CHECK(CharTokenizer::from_string(tok.to_string(), back).empty() && back.symbols() == tok.symbols(),
                   "the vocabulary does not survive its string form");

        // ---------------------------------------------------------------- the split and its size checks
        const int T = 2 + int(k1 & 15);
        const double fraction = 0.005 + 0.04 * double(k1 >> 4);
        Dataset d;
        const std::string d_err = make_text_dataset(text, tok, T, d, fraction);
        const bool fraction_ok = fraction >= 0.01 && fraction <= 0.5;
        if (!fraction_ok) FUZZ_CHECK(!d_err.empty(), "a validation fraction outside [0.01, 0.5] was accepted");
        if (d_err.empty()) {
            FUZZ_CHECK(d.train.size() >= std::size_t(T) + 1 && d.val.size() >= std::size_t(T) + 1,
                       "an accepted split leaves fewer than T+1 tokens on a side");
            FUZZ_CHECK(d.train.size() + d.val.size() == ids.size(), "the split loses tokens");
            FUZZ_CHECK(check_dataset_size(ids.size(), T, fraction).empty(), "the size check disagrees");
            std::vector<int> x(2 * T), y(2 * T);
            Rng rng(k0);
            d.sample_batch(rng, 2, T, x.data(), y.data());
            const EvalBatches e = d.eval_batches(1, 2, T, k1);
            for (int v : x) FUZZ_CHECK(v >= 0 && v < V, "a batch id outside the vocabulary");
            for (int v : e.y) FUZZ_CHECK(v >= 0 && v < V, "an evaluation id outside the vocabulary");
        }
        // the same count scaled past the token limit, and to the edges of the split: sentences, not crashes
        for (std::size_t n : {ids.size() << 12, ids.size() << 24, std::size_t(10) * (std::size_t(T) + 1) - 1})
            check_dataset_size(n, T, fraction);
    }

    // ---------------------------------------------------------------- a tiny run on the text
    RunSettings s = fuzz::tiny_settings();
    const char* const variants[] = {"canonical",    "swapped_order", "no_transpose_split", "no_transpose_merge",
                                    "no_transpose_both", "scale_sqrt_d", "no_wo",      "per_head_proj",
                                    "split_input",  "tied_heads"};
    s.variant = (k0 & 15) < 10 ? variants[k0 & 15] : "canonical";
    s.mlp = !(k0 & 16);
    s.n_heads = double(1 << ((k0 >> 5) & 3));
    s.n_kv_heads = (k0 & 128) && s.variant == std::string("canonical") ? 1 : 0;
    s.context = 2 + double(k1 & 15);
    RunSpec spec;
    const std::string spec_err = to_run_spec(s, spec);
    FUZZ_CHECK(spec_err.empty(), "tiny settings refused: " + spec_err);
    spec.text = text;
    std::unique_ptr<Run> run;
    const std::string run_err = make_run(spec, run);
    if (!tok_err.empty()) FUZZ_CHECK(!run_err.empty(), "a run on a text the tokenizer refused");
    if (!run_err.empty()) return 0;
    FUZZ_CHECK(run->tokenizer().symbols() == tok.symbols(), "the run's vocabulary is not the text's");
    run->train(1);
    run->evaluate();
    const std::string prompt = text.substr(0, 16);  // any bytes, cut anywhere: the prompt is the user's
    const std::string sample = run->sample(prompt, 4, 0.8, k1);
    FUZZ_CHECK(json::valid_utf8(sample), "a sample is not UTF-8");
    return 0;
}
