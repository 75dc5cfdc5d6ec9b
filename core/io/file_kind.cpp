#include "file_kind.hpp"

#include <cstring>

namespace mha {

namespace {
bool starts_with(const std::uint8_t* data, std::size_t size, const char* magic, std::size_t n) {
    return size >= n && std::memcmp(data, magic, n) == 0;
}

// printable ASCII, tabs and line ends, or bytes of UTF-8 sequences (>= 0x80): how a text file begins
bool looks_like_text(const std::uint8_t* data, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint8_t c = data[i];
        if (c >= 0x80 || c == '\t' || c == '\n' || c == '\r') continue;
        if (c < 0x20 || c == 0x7f) return false;
    }
    return n > 0;
}
}  // namespace

std::string other_file_kind(const std::uint8_t* data, std::size_t size) {
    // torch.save writes zip archives since PyTorch 1.6 and pickles before: the most likely wrong file in this lab
    static const char* const kTorch =
        "PyTorch's torch.save writes .pt and .pth files this way; save the state dict with "
        "safetensors.torch.save_file instead";
    if (starts_with(data, size, "\x89PNG\r\n\x1a\n", 8)) return "a PNG image";
    if (starts_with(data, size, "\xff\xd8\xff", 3)) return "a JPEG image";
    if (starts_with(data, size, "GIF87a", 6) || starts_with(data, size, "GIF89a", 6)) return "a GIF image";
    if (starts_with(data, size, "%PDF-", 5)) return "a PDF document";
    if (starts_with(data, size, "PK\x03\x04", 4)) return std::string("a zip archive (") + kTorch + ")";
    if (size >= 2 && data[0] == 0x80 && data[1] >= 2 && data[1] <= 5)
        return std::string("a Python pickle (") + kTorch + ")";
    if (starts_with(data, size, "\x93NUMPY", 6)) return "a NumPy .npy array";
    if (starts_with(data, size, "\x1f\x8b", 2)) return "a gzip-compressed file";
    // a safetensors file's JSON header begins at byte 8: a file whose first 8 bytes (the header's length) are damaged
    // is still a safetensors file, which the parser's own sentence describes, not a text file
    if (size > 9 && data[8] == '{' && data[9] == '"') return "";
    const std::size_t n = size < 64 ? size : 64;
    if (!looks_like_text(data, n)) return "";
    std::size_t first = 0;
    while (first < n && (data[first] == ' ' || data[first] == '\t' || data[first] == '\n' || data[first] == '\r')) ++first;
    if (first < n && (data[first] == '{' || data[first] == '['))
        return "a JSON text (a .safetensors file starts with 8 bytes giving the length of its JSON header)";
    return "a text file";
}

}  // namespace mha
