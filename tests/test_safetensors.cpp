// The safetensors reader and writer: round trips, a file made by Python (scripts/gen_safetensors_sample.py), one
// specific message per corrupt or hostile input, and a seeded mutation loop that must never crash.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.hpp"
#include "json_mini.hpp"
#include "prng.hpp"
#include "safetensors.hpp"

using namespace mha;

namespace {

using Bytes = std::vector<std::uint8_t>;

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// a file from a hand-written header: the length field, the header text, then data_bytes bytes of data
Bytes raw_file(const std::string& header, std::size_t data_bytes = 0) {
    Bytes b(8 + header.size() + data_bytes, 0);
    const std::uint64_t n = header.size();
    for (int k = 0; k < 8; ++k) b[k] = static_cast<std::uint8_t>(n >> (8 * k));
    std::memcpy(b.data() + 8, header.data(), header.size());
    for (std::size_t k = 0; k < data_bytes; ++k) b[8 + header.size() + k] = static_cast<std::uint8_t>(k);
    return b;
}

// a raw header length field followed by some text
Bytes with_length(std::uint64_t n, const std::string& rest) {
    Bytes b(8 + rest.size());
    for (int k = 0; k < 8; ++k) b[k] = static_cast<std::uint8_t>(n >> (8 * k));
    std::memcpy(b.data() + 8, rest.data(), rest.size());
    return b;
}

std::string parse_err(const Bytes& b, const st::Limits& limits = {}) {
    st::File f;
    const std::string err = st::parse(b.data(), b.size(), f, limits);
    if (!err.empty()) {
        // a failed parse leaves nothing behind
        CHECK(f.tensors.empty());
        CHECK(f.metadata.empty());
    }
    return err;
}

// one tensor entry of a hand-written header
std::string entry(const std::string& name, const std::string& dtype, const std::string& shape, long long begin,
                  long long end) {
    return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" +
           std::to_string(begin) + "," + std::to_string(end) + "]}";
}

std::string header_text(const Bytes& file) {
    std::uint64_t n = 0;
    for (int k = 7; k >= 0; --k) n = (n << 8) | file[k];
    return std::string(reinterpret_cast<const char*>(file.data()) + 8, static_cast<std::size_t>(n));
}

// a small valid checkpoint-like file: metadata, F32 and I32, a scalar and a 0-element tensor
Bytes sample_written() {
    static const std::vector<float> w = {0.5f, -1.25f, 3.0f, 0.1f, -0.0f, 65504.0f, 1e-30f, -7.0f};
    static const std::vector<std::int32_t> ids = {0, -1, 2147483647, -2147483647 - 1, 17};
    static const float scale = 2.5f;
    return st::write({{"format", "mha"}, {"step", "100"}},
                     {{"wq", st::DType::F32, {2, 4}, w.data()},
                      {"ids", st::DType::I32, {5}, ids.data()},
                      {"empty", st::DType::F32, {0, 3}, nullptr},
                      {"scale", st::DType::F32, {}, &scale}});
}

}  // namespace

// ---------------------------------------------------------------- round trips

TEST_CASE("safetensors round trip of F32 and I32 tensors with metadata", "[safetensors]") {
    const std::vector<float> w = {0.5f, -1.25f, 3.0f, 0.1f, -0.0f, 65504.0f, 1e-30f, -7.0f};
    const std::vector<std::int32_t> ids = {0, -1, 2147483647, -2147483647 - 1, 17};
    const Bytes bytes = sample_written();

    // the header is padded with spaces so the data region starts at a multiple of 8
    const std::string header = header_text(bytes);
    CHECK((8 + header.size()) % 8 == 0);
    CHECK(header.find_last_not_of(' ') == header.find_last_of('}'));
    CHECK(header.rfind("{\"__metadata__\":{\"format\":\"mha\",\"step\":\"100\"},\"wq\":", 0) == 0);

    st::File f;
    REQUIRE(st::parse(bytes.data(), bytes.size(), f) == "");
    CHECK(f.meta("format") == "mha");
    CHECK(f.meta("step") == "100");
    CHECK(f.meta("absent") == "");
    REQUIRE(f.metadata.size() == 2);
    CHECK(f.metadata[0].first == "format");
    REQUIRE(f.tensors.size() == 4);
    // in data order: the 0-element tensor sits at the same offset as the scalar and sorts first
    CHECK(f.tensors[0].name == "wq");
    CHECK(f.tensors[1].name == "ids");
    CHECK(f.tensors[2].name == "empty");
    CHECK(f.tensors[3].name == "scale");

    const st::TensorView* vw = f.find("wq");
    REQUIRE(vw);
    CHECK(vw->dtype == st::DType::F32);
    CHECK(vw->shape == std::vector<std::int64_t>{2, 4});
    CHECK(vw->offset == 8 + header.size());
    CHECK(vw->nbytes == 32);
    const std::vector<float> w_back = st::read_f32(bytes.data(), *vw);
    REQUIRE(w_back.size() == w.size());
    CHECK(std::memcmp(w_back.data(), w.data(), 32) == 0);  // bit for bit, -0.0 included
    CHECK(std::signbit(w_back[4]));

    const st::TensorView* vi = f.find("ids");
    REQUIRE(vi);
    CHECK(vi->dtype == st::DType::I32);
    CHECK(vi->offset == vw->offset + 32);
    CHECK(st::read_i32(bytes.data(), *vi) == ids);

    const st::TensorView* ve = f.find("empty");
    REQUIRE(ve);
    CHECK(ve->shape == std::vector<std::int64_t>{0, 3});
    CHECK(ve->nbytes == 0);
    CHECK(st::read_f32(bytes.data(), *ve).empty());

    const st::TensorView* vs = f.find("scale");
    REQUIRE(vs);
    CHECK(vs->shape.empty());
    CHECK(st::read_f32(bytes.data(), *vs) == std::vector<float>{2.5f});
    CHECK(vs->offset + vs->nbytes == bytes.size());
    CHECK(f.find("nope") == nullptr);
}

TEST_CASE("safetensors round trip with empty metadata, no tensors and awkward names", "[safetensors]") {
    const Bytes none = st::write({}, {});
    CHECK(header_text(none) == "{}      ");
    st::File f;
    REQUIRE(st::parse(none.data(), none.size(), f) == "");
    CHECK(f.tensors.empty());
    CHECK(f.metadata.empty());

    const std::vector<float> x = {1.0f};
    const std::string odd = "blocks.0/\"quoted\"\\back\nline caf\xC3\xA9";
    const Bytes bytes = st::write({}, {{odd, st::DType::F32, {1, 1, 1}, x.data()}});
    CHECK(header_text(bytes).find("__metadata__") == std::string::npos);
    REQUIRE(st::parse(bytes.data(), bytes.size(), f) == "");
    CHECK(f.metadata.empty());
    REQUIRE(f.find(odd));
    CHECK(st::read_f32(bytes.data(), *f.find(odd)) == x);

    // metadata values with escapes and non-ASCII survive too
    const Bytes m = st::write({{"config", "{\"D\": 64,\n \"name\": \"\xE2\x82\xAC\"}"}}, {});
    REQUIRE(st::parse(m.data(), m.size(), f) == "");
    CHECK(f.meta("config") == "{\"D\": 64,\n \"name\": \"\xE2\x82\xAC\"}");
}

TEST_CASE("safetensors writer rejects invalid arguments with mha::Error", "[safetensors]") {
    const float x = 1.0f;
    using NT = st::NamedTensor;
    CHECK_THROWS_AS(st::write({}, {NT{"", st::DType::F32, {1}, &x}}), Error);
    CHECK_THROWS_AS(st::write({}, {NT{"__metadata__", st::DType::F32, {1}, &x}}), Error);
    CHECK_THROWS_AS(st::write({}, {NT{"a", st::DType::F32, {1}, &x}, NT{"a", st::DType::F32, {1}, &x}}), Error);
    CHECK_THROWS_AS(st::write({}, {NT{"a", st::DType::F32, {-1}, &x}}), Error);
    CHECK_THROWS_AS(st::write({}, {NT{"a", st::DType::F32, {1}, nullptr}}), Error);
    CHECK_THROWS_AS(st::write({}, {NT{"bad\xFF", st::DType::F32, {1}, &x}}), Error);
    CHECK_THROWS_AS(st::write({{"k", "1"}, {"k", "2"}}, {}), Error);
    CHECK_THROWS_AS(st::write({}, {NT{"huge", st::DType::F32, {1LL << 40, 1LL << 40}, &x}}), Error);
    CHECK_NOTHROW(st::write({}, {NT{"a", st::DType::F32, {0}, nullptr}}));
}

TEST_CASE("safetensors reading with the wrong dtype is a programming error", "[safetensors]") {
    const Bytes bytes = sample_written();
    st::File f;
    REQUIRE(st::parse(bytes.data(), bytes.size(), f) == "");
    CHECK_THROWS_AS(st::read_i32(bytes.data(), *f.find("wq")), Error);
    CHECK_THROWS_AS(st::read_f32(bytes.data(), *f.find("ids")), Error);
}

TEST_CASE("safetensors NaN and infinity inside a tensor are reported by all_finite", "[safetensors]") {
    std::vector<float> w = {1.0f, 2.0f, 3.0f};
    CHECK(st::all_finite(w));
    CHECK(st::all_finite({}));
    for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()}) {
        w[1] = bad;
        const Bytes bytes = st::write({}, {{"w", st::DType::F32, {3}, w.data()}});
        st::File f;
        REQUIRE(st::parse(bytes.data(), bytes.size(), f) == "");  // a NaN is valid data, just not healthy
        const std::vector<float> back = st::read_f32(bytes.data(), f.tensors[0]);
        CHECK_FALSE(st::all_finite(back));
        CHECK(std::isnan(back[1]) == std::isnan(bad));
    }
}

// ---------------------------------------------------------------- a file from Python

TEST_CASE("safetensors reads the sample written by Python's json and struct", "[safetensors]") {
    const std::string path = std::string(MHA_FIXTURE_DIR) + "/safetensors/sample.safetensors";
    Bytes bytes;
    REQUIRE(st::read_file(path, bytes, 1 << 20) == "");
    st::File f;
    REQUIRE(st::parse(bytes.data(), bytes.size(), f) == "");

    CHECK(f.meta("format") == "pt");
    CHECK(f.meta("step") == "42");
    CHECK(f.meta("note") == "caf\xC3\xA9 \xF0\x9F\x98\x80");  // from "caf\u00e9 \ud83d\ude00"

    // the header lists tokens, scale, wq, empty; the data order is wq, tokens, empty, scale
    REQUIRE(f.tensors.size() == 4);
    CHECK(f.tensors[0].name == "blocks.0.attn.wq");
    CHECK(f.tensors[1].name == "tokens");
    CHECK(f.tensors[2].name == "empty");
    CHECK(f.tensors[3].name == "scale");

    const st::TensorView* wq = f.find("blocks.0.attn.wq");
    REQUIRE(wq);
    CHECK(wq->shape == std::vector<std::int64_t>{2, 3});
    CHECK(wq->offset == 8 + 328);
    const std::vector<float> w = st::read_f32(bytes.data(), *wq);
    REQUIRE(w.size() == 6);
    CHECK(w[0] == 0.5f);
    CHECK(w[1] == -1.25f);
    CHECK(w[2] == 3.0f);
    CHECK(w[3] == 0.1f);  // python's struct rounds 0.1 to the same float32
    CHECK(w[4] == 0.0f);
    CHECK(std::signbit(w[4]));
    CHECK(w[5] == 65504.0f);

    const st::TensorView* tokens = f.find("tokens");
    REQUIRE(tokens);
    CHECK(tokens->dtype == st::DType::I32);
    CHECK(st::read_i32(bytes.data(), *tokens) == std::vector<std::int32_t>{0, -1, 2147483647, -2147483647 - 1});
    CHECK(f.find("empty")->shape == std::vector<std::int64_t>{0, 3});
    CHECK(f.find("empty")->nbytes == 0);
    CHECK(f.find("scale")->shape.empty());
    CHECK(st::read_f32(bytes.data(), *f.find("scale")) == std::vector<float>{2.5f});
}

TEST_CASE("safetensors write_file and read_file round trip and refuse oversized files", "[safetensors]") {
    // a name no other run of this suite uses at the same time (native and wasm may run side by side)
    std::random_device rd;
    const std::string path = "/tmp/mha_st_test_" + std::to_string(rd()) + ".safetensors";
    const Bytes bytes = sample_written();
    REQUIRE(st::write_file(path, bytes) == "");
    Bytes back;
    CHECK(st::read_file(path, back, bytes.size()) == "");
    CHECK(back == bytes);
    const std::string too_big = st::read_file(path, back, bytes.size() - 1);
    CHECK(has(too_big, "more than the limit"));
    CHECK(back.empty());
    // overwriting goes through the .tmp file and a rename
    REQUIRE(st::write_file(path, Bytes{1, 2, 3}) == "");
    REQUIRE(st::read_file(path, back, 100) == "");
    CHECK(back == Bytes{1, 2, 3});
    std::remove(path.c_str());
    CHECK(has(st::read_file(path, back, 100), "cannot open " + path));
    CHECK(has(st::write_file("/nonexistent_dir_mha/x.safetensors", bytes), "cannot create"));
}

TEST_CASE("write_file and read_file: what is not a regular file is refused or written in place, never replaced",
          "[safetensors][files]") {
    std::random_device rd;
    const std::string dir = "/tmp/mha_files_test_" + std::to_string(rd());
    REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
    Bytes back;
    // a directory: refused by name before it is opened ("9223372036854775807 bytes" before)
    CHECK(st::read_file(dir, back, 100) == dir + " is a directory, not a file to read.");
    CHECK(has(st::write_file(dir, Bytes{1}), "cannot open " + dir + " for writing"));
#ifndef __EMSCRIPTEN__  // natively only: node's file system under wasm has no pipes, and its devices differ
    // a full disk is a sentence (the close that flushes is checked); /dev/full is a device, so it is written in place
    struct stat full {};
    if (::stat("/dev/full", &full) == 0 && S_ISCHR(full.st_mode)) {
        CHECK(has(st::write_file("/dev/full", Bytes(1 << 16, 7)), "cannot write /dev/full: No space left on device"));
        REQUIRE(::stat("/dev/full", &full) == 0);
        CHECK(S_ISCHR(full.st_mode));
    }
    // a pipe: reading it would block until a writer came, so it is refused; written, it is written in place, read
    // at its other end, and still a pipe afterwards (a rename would have replaced it with a regular file)
    const std::string fifo = dir + "/pipe";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(st::read_file(fifo, back, 100) == fifo + " is a pipe, not a file to read.");
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    REQUIRE(reader >= 0);
    CHECK(st::write_file(fifo, std::string("step,loss\n")) == "");
    char got[32] = {};
    CHECK(::read(reader, got, sizeof got) == 10);
    CHECK(std::string(got) == "step,loss\n");
    ::close(reader);
    struct stat after {};
    REQUIRE(::stat(fifo.c_str(), &after) == 0);
    CHECK(S_ISFIFO(after.st_mode));
    std::remove(fifo.c_str());
#endif
    // a new regular file goes through path.tmp in the same folder, which does not stay behind
    const std::string file = dir + "/curves.csv";
    CHECK(st::write_file(file, std::string("a,b\n")) == "");
    CHECK(st::read_file(file, back, 100) == "");
    CHECK(back == Bytes{'a', ',', 'b', '\n'});
    struct stat tmp {};
    CHECK(::stat((file + ".tmp").c_str(), &tmp) != 0);
    std::remove(file.c_str());
    ::rmdir(dir.c_str());
}

// ---------------------------------------------------------------- hostile and corrupt files

TEST_CASE("safetensors too short files and impossible header lengths", "[safetensors]") {
    CHECK(parse_err({}) == "file is only 0 bytes: a safetensors file starts with an 8-byte header length");
    CHECK(has(parse_err(Bytes(7, 0)), "file is only 7 bytes"));

    // a header length one byte beyond the file
    CHECK(parse_err(with_length(3, "{}")) ==
          "header length 3 bytes runs past the end of the file (only 2 bytes follow the length field): the file "
          "may be truncated");
    // 2^63 must be refused before anything is allocated from it
    CHECK(parse_err(with_length(1ULL << 63, "{}")) ==
          "header length 9223372036854775808 bytes is more than the limit of 1048576");
    st::Limits lax;
    lax.max_header_bytes = std::numeric_limits<std::size_t>::max();
    CHECK_FALSE(parse_err(with_length(~0ULL, "{}"), lax).empty());
    CHECK_FALSE(parse_err(with_length(1ULL << 63, "{}"), lax).empty());

    st::Limits tiny;
    tiny.max_file_bytes = 9;
    CHECK(parse_err(raw_file("{}"), tiny) == "file is 10 bytes, more than the limit of 9");
}

TEST_CASE("safetensors headers that are not a JSON object", "[safetensors]") {
    CHECK(parse_err(raw_file("hello")) ==
          "header is not valid JSON: unexpected character 'h', expected a value at byte 0 of the header");
    CHECK(parse_err(raw_file("")) == "header is not valid JSON: empty input, expected a JSON value at byte 0 of the header");
    CHECK(parse_err(raw_file("[1, 2]")) == "header must be a JSON object, found an array");
    CHECK(parse_err(raw_file("\"x\"")) == "header must be a JSON object, found a string");
    CHECK(parse_err(raw_file(" {}")) == "header must start with '{', without leading whitespace");
    CHECK(has(parse_err(raw_file("{\"a\xFF\":1}")), "invalid UTF-8 in a string at byte 3 of the header"));
    // trailing NULs are not padding
    CHECK(parse_err(raw_file(std::string("{}\0\0", 4))) ==
          "header is not valid JSON: unexpected byte 0x00 after the JSON value at byte 2 of the header");
    CHECK(parse_err(raw_file("{}   \n\t ")) == "");  // whitespace padding is fine
    // the nesting depth bomb, bare and inside a tensor entry
    CHECK(parse_err(raw_file(std::string(100000, '['))) ==
          "header is not valid JSON: nesting deeper than 16 levels at byte 16 of the header");
    CHECK(has(parse_err(raw_file("{\"a\":{\"shape\":" + std::string(5000, '[') + "}}")), "nesting deeper than 16"));
}

TEST_CASE("safetensors tensor entries with missing, extra or mistyped fields", "[safetensors]") {
    CHECK(parse_err(raw_file(R"({"x":{"shape":[1],"data_offsets":[0,4]}})", 4)) == "tensor 'x' has no dtype");
    CHECK(parse_err(raw_file(R"({"x":{"dtype":"F32","data_offsets":[0,4]}})", 4)) == "tensor 'x' has no shape");
    CHECK(parse_err(raw_file(R"({"x":{"dtype":"F32","shape":[1]}})", 4)) == "tensor 'x' has no data_offsets");
    CHECK(parse_err(raw_file(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"extra":1}})", 4)) ==
          "tensor 'x' has an unexpected key 'extra': only dtype, shape and data_offsets");
    CHECK(parse_err(raw_file(R"({"x":{"dtype":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4)) ==
          "tensor 'x' has the key 'dtype' twice");
    CHECK(parse_err(raw_file(R"({"x":[1]})")) ==
          "tensor 'x' must be an object with dtype, shape and data_offsets, found an array");
    CHECK(parse_err(raw_file("{" + entry("x", "BF16", "[2]", 0, 4) + "}", 4)) ==
          "unsupported dtype BF16 for tensor 'x': only F32 and I32");
    CHECK(parse_err(raw_file("{" + entry("x", "F64", "[1]", 0, 8) + "}", 8)) ==
          "unsupported dtype F64 for tensor 'x': only F32 and I32");
    CHECK(parse_err(raw_file("{" + entry("x", "f32", "[1]", 0, 4) + "}", 4)) ==
          "unsupported dtype f32 for tensor 'x': only F32 and I32");
    CHECK(parse_err(raw_file(R"({"x":{"dtype":32,"shape":[1],"data_offsets":[0,4]}})", 4)) ==
          "tensor 'x': dtype must be a string, found an integer");
    CHECK(parse_err(raw_file(R"({"x":{"dtype":"F32","shape":4,"data_offsets":[0,4]}})", 4)) ==
          "tensor 'x': shape must be an array, found an integer");
    CHECK(parse_err(raw_file("{" + entry("x", "F32", "[1.0]", 0, 4) + "}", 4)) ==
          "tensor 'x': shape must hold integers, found a number");
    CHECK(parse_err(raw_file(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", 4)) ==
          "tensor 'x': data_offsets must be an array of two integers [begin, end]");
    CHECK(parse_err(raw_file(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})", 4)) ==
          "tensor 'x': data_offsets must be non-negative integers");
    CHECK(parse_err(raw_file("{" + entry("", "F32", "[1]", 0, 4) + "}", 4)) == "a tensor has an empty name");
    // a hostile name is cut short and its control bytes stay visible in the message
    const std::string long_name = "\\n" + std::string(500, 'a');
    CHECK(parse_err(raw_file("{" + entry(long_name, "BF16", "[1]", 0, 4) + "}", 4)) ==
          "unsupported dtype BF16 for tensor \"\\n" + std::string(63, 'a') + "\"...: only F32 and I32");
}

TEST_CASE("safetensors shapes: negative, too many dims, overflowing products", "[safetensors]") {
    CHECK(parse_err(raw_file("{" + entry("x", "F32", "[2,-2]", 0, 16) + "}", 16)) ==
          "tensor 'x': negative dimension -2");
    CHECK(parse_err(raw_file("{" + entry("x", "F32", "[1,1,1,1,1,1,1,1,1]", 0, 4) + "}", 4)) ==
          "tensor 'x' has rank 9, more than the limit of 8");
    CHECK(parse_err(raw_file("{" + entry("x", "F32", "[1,1,1,1,1,1,1,1]", 0, 4) + "}", 4)) == "");
    // 2^31 cubed overflows int64; 2^62 * 4 bytes overflows too; a zero does not excuse the others
    CHECK(parse_err(raw_file("{" + entry("x", "F32", "[2147483648,2147483648,2147483648]", 0, 4) + "}", 4)) ==
          "tensor 'x': shape [2147483648, 2147483648, 2147483648] has too many elements (the byte count overflows)");
    CHECK(has(parse_err(raw_file("{" + entry("x", "F32", "[4611686018427387904]", 0, 4) + "}", 4)), "too many elements"));
    CHECK(has(parse_err(raw_file("{" + entry("x", "F32", "[0,4294967296,4294967296]", 0, 0) + "}")), "too many elements"));
    CHECK(has(parse_err(raw_file("{" + entry("x", "F32", "[4294967296,4294967296,0]", 0, 0) + "}")), "too many elements"));
    CHECK(parse_err(raw_file("{" + entry("x", "F32", "[0,4294967296]", 0, 0) + "}")) == "");
    // a shape whose bytes fit int64 but not the data
    CHECK(parse_err(raw_file("{" + entry("x", "F32", "[1000000000000]", 0, 4) + "}", 4)) ==
          "tensor 'x' has data_offsets [0, 4] spanning 4 bytes, but shape [1000000000000] of F32 needs "
          "4000000000000 bytes");
}

TEST_CASE("safetensors data offsets out of range, reversed, or not matching the shape", "[safetensors]") {
    CHECK(parse_err(raw_file("{" + entry("x", "F32", "[2]", 0, 8) + "}", 4)) ==
          "tensor 'x' has data_offsets [0, 8] past the end of the data region (4 bytes): the file may be truncated");
    CHECK(has(parse_err(raw_file("{" + entry("x", "F32", "[2]", 0, 9223372036854775807LL) + "}", 8)),
              "past the end of the data region"));
    CHECK(parse_err(raw_file("{" + entry("x", "F32", "[0]", 8, 4) + "}", 8)) ==
          "tensor 'x' has data_offsets [8, 4] with end before begin");
    CHECK(parse_err(raw_file("{" + entry("x", "F32", "[2]", 0, 12) + "}", 12)) ==
          "tensor 'x' has data_offsets [0, 12] spanning 12 bytes, but shape [2] of F32 needs 8 bytes");
}

TEST_CASE("safetensors tensors must tile the data region: overlaps, gaps and trailing bytes", "[safetensors]") {
    CHECK(parse_err(raw_file("{" + entry("a", "F32", "[2]", 0, 8) + "," + entry("b", "I32", "[2]", 4, 12) + "}", 12)) ==
          "tensors 'a' [0, 8] and 'b' [4, 12] overlap");
    // the very same bytes twice
    CHECK(parse_err(raw_file("{" + entry("a", "F32", "[2]", 0, 8) + "," + entry("b", "F32", "[2]", 0, 8) + "}", 8)) ==
          "tensors 'a' [0, 8] and 'b' [0, 8] overlap");
    // an empty tensor inside another one
    CHECK(has(parse_err(raw_file("{" + entry("a", "F32", "[2]", 0, 8) + "," + entry("b", "F32", "[0]", 4, 4) + "}", 8)),
              "overlap"));
    CHECK(parse_err(raw_file("{" + entry("a", "F32", "[2]", 0, 8) + "," + entry("b", "F32", "[2]", 12, 20) + "}", 20)) ==
          "the data region has a gap of 4 bytes between tensors 'a' (ends at 8) and 'b' (begins at 12)");
    CHECK(parse_err(raw_file("{" + entry("a", "F32", "[2]", 4, 12) + "}", 12)) ==
          "the data region has a gap of 4 bytes before the first tensor 'a'");
    CHECK(parse_err(raw_file("{" + entry("a", "F32", "[2]", 0, 8) + "}", 12)) ==
          "4 trailing bytes after the last tensor 'a' in the data region");
    CHECK(parse_err(raw_file("{}", 4)) == "4 bytes of tensor data but no tensors in the header");
    // header order does not matter, only the data offsets
    CHECK(parse_err(raw_file("{" + entry("b", "F32", "[1]", 4, 8) + "," + entry("a", "I32", "[1]", 0, 4) + "}", 8)) == "");
}

TEST_CASE("safetensors duplicate names and bad metadata", "[safetensors]") {
    CHECK(parse_err(raw_file("{" + entry("a", "F32", "[1]", 0, 4) + "," + entry("a", "F32", "[1]", 4, 8) + "}", 8)) ==
          "duplicate tensor name 'a'");
    CHECK(parse_err(raw_file(R"({"__metadata__":{"step":100}})")) ==
          "metadata value for key 'step' must be a string, found an integer");
    CHECK(parse_err(raw_file(R"({"__metadata__":{"a":"1","b":null}})")) ==
          "metadata value for key 'b' must be a string, found null");
    CHECK(parse_err(raw_file(R"({"__metadata__":["a"]})")) == "__metadata__ must be an object of strings, found an array");
    CHECK(parse_err(raw_file(R"({"__metadata__":{"k":"1","k":"2"}})")) == "duplicate metadata key 'k'");
    CHECK(parse_err(raw_file(R"({"__metadata__":{},"__metadata__":{}})")) == "header has __metadata__ twice");
    CHECK(parse_err(raw_file(R"({"__metadata__":{}})")) == "");
}

TEST_CASE("safetensors limits on tensor count and header size", "[safetensors]") {
    st::Limits two;
    two.max_tensors = 2;
    const std::string h3 = "{" + entry("a", "F32", "[1]", 0, 4) + "," + entry("b", "F32", "[1]", 4, 8) + "," +
                           entry("c", "F32", "[1]", 8, 12) + "}";
    CHECK(parse_err(raw_file(h3, 12), two) == "header lists 3 tensors, more than the limit of 2");
    CHECK(parse_err(raw_file(h3, 12)) == "");
    st::Limits small;
    small.max_header_bytes = 16;
    CHECK(parse_err(raw_file(h3, 12), small) == "header length " + std::to_string(h3.size()) +
                                                    " bytes is more than the limit of 16");
}

TEST_CASE("safetensors a valid file cut at any length is an error about truncation", "[safetensors]") {
    const Bytes full = sample_written();
    st::File f;
    REQUIRE(st::parse(full.data(), full.size(), f) == "");
    const std::size_t header_end = 8 + header_text(full).size();
    for (std::size_t len = 0; len < full.size(); ++len) {
        const Bytes cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(len));
        const std::string err = parse_err(cut);
        INFO("cut at " << len);
        REQUIRE_FALSE(err.empty());
        if (len >= 8) CHECK(has(err, "truncated"));
        if (len >= header_end) CHECK(has(err, "past the end of the data region"));
    }
}

// ---------------------------------------------------------------- robustness

TEST_CASE("safetensors random byte flips and cuts never crash the parser", "[safetensors]") {
    const Bytes full = sample_written();
    Rng rng(20240601);
    int ok = 0, rejected = 0;
    for (int iter = 0; iter < 20000; ++iter) {
        Bytes b = full;
        // 1 to 4 flips, biased to the header where the interesting bytes are
        const std::uint32_t header_end = static_cast<std::uint32_t>(8 + header_text(full).size());
        const int flips = 1 + static_cast<int>(rng.below(4));
        for (int k = 0; k < flips; ++k) {
            const std::uint32_t at = rng.below(4) ? rng.below(header_end) : rng.below(static_cast<std::uint32_t>(b.size()));
            switch (rng.below(3)) {
                case 0: b[at] ^= static_cast<std::uint8_t>(1u << rng.below(8)); break;
                case 1: b[at] = static_cast<std::uint8_t>(rng.below(256)); break;
                default: b[at] = static_cast<std::uint8_t>("{}[]\",:0123456789-.e\\ u"[rng.below(24)]); break;
            }
        }
        if (rng.below(4) == 0) b.resize(rng.below(static_cast<std::uint32_t>(b.size()) + 1));
        st::File f;
        const std::string err = st::parse(b.data(), b.size(), f);
        if (!err.empty()) {
            ++rejected;
            REQUIRE(f.tensors.empty());
            continue;
        }
        ++ok;
        // whatever was accepted is safe to read: every view lies inside the buffer
        for (const auto& t : f.tensors) {
            REQUIRE(t.offset <= b.size());
            REQUIRE(t.nbytes <= b.size() - t.offset);
            if (t.dtype == st::DType::F32) REQUIRE(st::read_f32(b.data(), t).size() * 4 == t.nbytes);
            else REQUIRE(st::read_i32(b.data(), t).size() * 4 == t.nbytes);
        }
    }
    INFO(ok << " accepted, " << rejected << " rejected");
    CHECK(ok + rejected == 20000);
    CHECK(rejected > 0);
    CHECK(ok > 0);  // flips inside tensor data or padding leave a valid file
}
