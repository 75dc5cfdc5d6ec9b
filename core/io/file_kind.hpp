// What a file that failed to parse as safetensors is instead, from its first bytes, so that a student who picks the
// wrong file reads "this file is a PNG image, not a .safetensors model" rather than a header length of
// 727905341920923785 bytes. Only asked after a parse has failed: a valid file is never second-guessed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace mha {

// "a PNG image", "a zip archive (... PyTorch ...)", "a JSON text", "a text file", ... or "" when the bytes match
// nothing known. Looks at most at the first 64 bytes.
std::string other_file_kind(const std::uint8_t* data, std::size_t size);

}  // namespace mha
