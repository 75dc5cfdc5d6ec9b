// Writes the seed corpora of the fuzz targets: make_seeds DIR writes DIR/checkpoint/seed-*, DIR/json/seed-*
// and DIR/text/seed-* (scripts/fuzz seeds, into tests/fuzz/corpus). Deterministic: the same files every time.
// Files named otherwise in those folders (the minimised inputs of findings, crash-*) are left alone.
//
//   checkpoint  tiny checkpoints written by the core (D = 4, T = 8, a few steps), one per parameter layout:
//               canonical with and without MLP and AdamW state, GQA, MQA, the variants whose tensors differ,
//               one without a vocabulary; plus the safetensors sample that Python wrote (not a checkpoint)
//   json        valid and invalid JSON: nesting, escapes, surrogates, numbers at the int64 edges, bad UTF-8
//   text        2 knob bytes (fuzz_text.cpp) + texts: ASCII, multi-byte UTF-8, invalid sequences, U+FFFD
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "run.hpp"
#include "run_settings.hpp"
#include "safetensors.hpp"

using namespace mha;

namespace {

bool write(const std::string& path, const std::string& bytes) {
    std::FILE* fp = std::fopen(path.c_str(), "wb");
    if (!fp) return false;
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), fp) == bytes.size();
    return std::fclose(fp) == 0 && ok;
}

const char* const kText =
    "In the beginning God created the heaven and the earth. And the earth was without form, and void; "
    "and darkness was upon the face of the deep. \xC3\xA9t\xC3\xA9 \xE2\x80\x94 \xE4\xB8\xAD \xF0\x9F\x98\x80\n";

// a tiny run trained for `steps` steps, its snapshot
std::vector<std::uint8_t> checkpoint(const char* variant, int heads, int kv_heads, bool mlp, int layers, int steps,
                                     bool with_optimizer) {
    RunSettings s;
    s.d_model = 4, s.n_heads = heads, s.n_kv_heads = kv_heads, s.n_layers = layers, s.context = 8, s.mlp = mlp;
    s.variant = variant, s.batch = 2, s.steps = 10, s.warmup = 1, s.eval_batches = 1;
    RunSpec spec;
    std::string err = to_run_spec(s, spec);
    spec.text = kText;
    std::unique_ptr<Run> run;
    if (err.empty()) err = make_run(spec, run);
    if (!err.empty()) {
        std::fprintf(stderr, "make_seeds: %s\n", err.c_str());
        std::exit(1);
    }
    if (steps > 0) run->train(steps);
    return run->snapshot(with_optimizer);
}

std::string str(const std::vector<std::uint8_t>& b) { return std::string(b.begin(), b.end()); }

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: make_seeds CORPUS_DIR PYTHON_SAMPLE.safetensors\n");
        return 2;
    }
    const std::string dir = argv[1];
    int written = 0;
    auto put = [&](const std::string& target, const std::string& name, const std::string& bytes) {
        const std::string path = dir + "/" + target + "/seed-" + name;
        if (!write(path, bytes)) {
            std::fprintf(stderr, "make_seeds: cannot write %s\n", path.c_str());
            std::exit(1);
        }
        ++written;
    };

    // ---------------------------------------------------------------- checkpoint
    put("checkpoint", "canonical.safetensors", str(checkpoint("canonical", 2, 0, true, 1, 0, false)));
    put("checkpoint", "canonical-adamw.safetensors", str(checkpoint("canonical", 2, 0, true, 1, 3, true)));
    put("checkpoint", "gqa-attn-only-2layers.safetensors", str(checkpoint("canonical", 4, 2, false, 2, 2, true)));
    put("checkpoint", "mqa.safetensors", str(checkpoint("canonical", 2, 1, false, 1, 0, false)));
    for (const char* v : {"no_wo", "per_head_proj", "split_input", "tied_heads", "swapped_order"})
        put("checkpoint", std::string(v) + ".safetensors", str(checkpoint(v, 2, 0, false, 1, 1, false)));
    {
        // a canonical model "made elsewhere": no vocabulary, no variant in the config
        ModelConfig c;
        c.vocab_size = 5, c.d_model = 4, c.n_heads = 1, c.n_layers = 1, c.max_seq_len = 4, c.mlp = false;
        Gpt<float> m(c);
        m.init_weights(7);
        put("checkpoint", "no-vocab.safetensors", str(save_checkpoint(c, m.params(), "", nullptr)));
    }
    {
        std::vector<std::uint8_t> sample;
        const std::string err = st::read_file(argv[2], sample, 1 << 20);
        if (!err.empty()) {
            std::fprintf(stderr, "make_seeds: %s\n", err.c_str());
            return 1;
        }
        put("checkpoint", "python-sample.safetensors", str(sample));
    }

    // ---------------------------------------------------------------- json
    const std::pair<const char*, std::string> json[] = {
        {"config.json", R"({"vocab_size":65,"d_model":64,"n_heads":4,"n_kv_heads":4,"n_layers":2,)"
                        R"("max_seq_len":64,"mlp":true,"variant":"canonical"})"},
        {"header.json", R"({"__metadata__":{"format":"mha-sandbox/1"},)"
                        R"("w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}   )"},
        {"nested.json", R"([[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]])"},
        {"too-deep.json", R"([[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]])"},
        {"escapes.json", R"(["\"\\\/\b\f\n\r\t", "\u00e9\u4e2d\ud83d\ude00", "\u0000"])"},
        {"lone-surrogate.json", R"(["\ud800x"])"},
        {"low-surrogate.json", R"(["\udc00"])"},
        {"numbers.json", R"([0, -0, 1.5e300, -9223372036854775808, 9223372036854775807, 1E-7, 0.0])"},
        {"int-overflow.json", R"([9223372036854775808])"},
        {"leading-zero.json", R"([01])"},
        {"huge-double.json", R"([1e999])"},
        {"trailing-comma.json", R"({"a":1,})"},
        {"duplicate-key.json", R"({"a":1,"a":2})"},
        {"literals.json", " \t\r\n{\"t\":true,\"f\":false,\"n\":null,\"s\":\"\xC3\xA9\xE2\x80\x94\"} "},
        {"bad-utf8.json", "[\"\xC3\x28\", \"\xED\xA0\x80\", \"\xF4\x90\x80\x80\"]"},
        {"control.json", "[\"a\x01\"]"},
        {"truncated.json", R"({"shape": [2, 3)"},
        {"empty.json", ""},
    };
    for (const auto& [name, bytes] : json) put("json", name, bytes);

    // ---------------------------------------------------------------- text (2 knob bytes, then the text)
    std::string corpus;
    for (int i = 0; i < 3; ++i) corpus += kText;
    const std::pair<const char*, std::string> text[] = {
        {"ascii.txt", std::string("\x00\x04", 2) + corpus.substr(0, 100) + std::string(corpus.substr(0, 100))},
        {"multibyte.txt", std::string("\x27\x13", 2) + corpus},
        {"invalid.txt", std::string("\x80\x22", 2) + corpus.substr(0, 120) +
                            "\xC3\x28 \xE2\x82 \xF0\x9F\x98 \xED\xA0\x80 \xF4\x90\x80\x80 \xC0\xAF \xFF\xFE \x80\xBF "
                            "\xEF\xBF\xBD" + corpus.substr(0, 120)},
        {"short.txt", std::string("\x09\x0F", 2) + "too short for T = 17"},
        {"few-symbols.txt", std::string("\x48\x31", 2) + std::string(200, 'a') + std::string(200, 'b')},
        {"one-symbol.txt", std::string("\x1a\x02", 2) + std::string(300, 'x')},
    };
    for (const auto& [name, bytes] : text) put("text", name, bytes);

    std::printf("make_seeds: %d files under %s\n", written, dir.c_str());
    return 0;
}
