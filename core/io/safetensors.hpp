// Our own safetensors reader and writer (https://huggingface.co/docs/safetensors), for checkpoints.
// The format, all integers little-endian:
//   bytes 0..8        N, the header length (uint64)
//   bytes 8..8+N      UTF-8 JSON object, optionally padded with trailing spaces:
//                       {"__metadata__": {"key": "value", ...},            (optional, strings only)
//                        "wq": {"dtype": "F32", "shape": [64, 64], "data_offsets": [0, 16384]}, ...}
//   bytes 8+N..end    the data region: raw tensor bytes; data_offsets [begin, end) are relative to its start
// We read and write only F32 and I32, row-major (C order) in PyTorch dimension order.
//
// parse() trusts nothing: every size is checked before it is used, so a corrupt or hostile file gives a
// sentence ("tensor 'wq' has data_offsets [0, 100] but shape [5, 6] of F32 needs 120 bytes"), never a crash
// or a huge allocation. The tensors must tile the data region exactly (no gaps, no overlaps, no trailing
// bytes), as the reference implementation requires.
//
// worked example:
//   std::vector<float> w(6, 0.5f);
//   auto bytes = st::write({{"step", "100"}}, {{"w", st::DType::F32, {2, 3}, w.data()}});
//   st::File f;
//   std::string err = st::parse(bytes.data(), bytes.size(), f);   // "" on success
//   const st::TensorView* v = f.find("w");                         // v->shape == {2, 3}, v->nbytes == 24
//   std::vector<float> back = st::read_f32(bytes.data(), *v);      // == w
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mha::st {

enum class DType { F32, I32 };

// "F32" / "I32", as written in the header
const char* dtype_name(DType d);

// One tensor of a parsed file: where its bytes are, not the bytes themselves.
struct TensorView {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;  // PyTorch order, each >= 0; {} is a scalar (1 element)
    std::size_t offset = 0;           // absolute byte offset in the file buffer (8 + N + begin)
    std::size_t nbytes = 0;           // elements * 4

    std::size_t numel() const { return nbytes / 4; }
};

struct File {
    std::vector<std::pair<std::string, std::string>> metadata;  // in header order
    std::vector<TensorView> tensors;                            // in file order of data offsets

    // the tensor called name, or nullptr
    const TensorView* find(const std::string& name) const;
    // the metadata value for key, or "" when absent
    std::string meta(const std::string& key) const;
};

struct Limits {
    std::size_t max_header_bytes = 1 << 20;
    std::size_t max_tensors = 4096;
    std::size_t max_file_bytes = 512u << 20;
    int max_rank = 8;
};

// ---------------------------------------------------------------- reading

// Parses and validates the whole file in data[0..size). Returns "" and fills out (views into data, which the
// caller keeps alive for read_*), or returns an English sentence and leaves out empty.
std::string parse(const std::uint8_t* data, std::size_t size, File& out, const Limits& limits = {});

// The tensor's values, decoded from little-endian. v must come from parse() of this same buffer and have the
// matching dtype (a mismatch throws mha::Error: it is a programming error, not bad input).
std::vector<float> read_f32(const std::uint8_t* data, const TensorView& v);
std::vector<std::int32_t> read_i32(const std::uint8_t* data, const TensorView& v);

// false if any value is NaN or infinite (a checkpoint of a diverged run)
bool all_finite(const std::vector<float>& values);

// ---------------------------------------------------------------- writing

// One tensor to write: shape in PyTorch order, data points at numel * 4 bytes (float or int32_t in host order).
struct NamedTensor {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;
    const void* data = nullptr;  // may be null only when the shape has 0 elements
};

// A complete file: header with __metadata__ (omitted when empty) then the tensors in the given order, the
// header padded with spaces so the data region starts at a multiple of 8 bytes (as the reference writer does).
// Invalid arguments (empty, duplicate or non-UTF-8 names, "__metadata__" as a tensor name, negative dims,
// null data) throw mha::Error: they are bugs in the caller, not bad files.
std::vector<std::uint8_t> write(const std::vector<std::pair<std::string, std::string>>& metadata,
                                const std::vector<NamedTensor>& tensors);

// ---------------------------------------------------------------- files

// Reads the whole file at path into out; "" or a sentence naming the path. Files larger than max_bytes are
// refused before anything is allocated, and so is anything that is not a regular file (a directory, a pipe that
// would block the read, a device), before it is opened.
std::string read_file(const std::string& path, std::vector<std::uint8_t>& out, std::size_t max_bytes);

// Writes bytes to path; "" or a sentence naming the path. A regular file (or a new one) is written through
// path + ".tmp" in the same folder and a rename, so a crash mid-write leaves the old file intact; anything else
// that exists at path (/dev/null, a pipe, a device) is written in place, never replaced. Every write and the close
// are checked: a full disk is a sentence, not a lost file.
std::string write_file(const std::string& path, const std::vector<std::uint8_t>& bytes);
std::string write_file(const std::string& path, const std::string& text);

}  // namespace mha::st
