#include "safetensors.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include <sys/stat.h>

#include "error.hpp"
#include "json_mini.hpp"

namespace mha::st {

const char* dtype_name(DType d) { return d == DType::F32 ? "F32" : "I32"; }

const TensorView* File::find(const std::string& name) const {
    for (const auto& t : tensors)
        if (t.name == name) return &t;
    return nullptr;
}

std::string File::meta(const std::string& key) const {
    for (const auto& kv : metadata)
        if (kv.first == key) return kv.second;
    return "";
}

namespace {

// ---------------------------------------------------------------- helpers

constexpr std::uint64_t U64_MAX = std::numeric_limits<std::uint64_t>::max();

// byte-wise little-endian, so the code is right on any host (gcc and clang turn these into plain loads)
std::uint64_t load_u64_le(const std::uint8_t* p) {
    std::uint64_t v = 0;
    for (int k = 7; k >= 0; --k) v = (v << 8) | p[k];
    return v;
}
std::uint32_t load_u32_le(const std::uint8_t* p) {
    return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}
void store_u64_le(std::uint8_t* p, std::uint64_t v) {
    for (int k = 0; k < 8; ++k) p[k] = static_cast<std::uint8_t>(v >> (8 * k));
}
void store_u32_le(std::uint8_t* p, std::uint32_t v) {
    for (int k = 0; k < 4; ++k) p[k] = static_cast<std::uint8_t>(v >> (8 * k));
}

// a name for a message: 'wq' when plain, else a json string literal so control bytes stay visible;
// cut at 64 bytes (on a utf-8 boundary) so a megabyte-long hostile name does not become the message
std::string show(const std::string& s) {
    std::size_t n = std::min<std::size_t>(s.size(), 64);
    while (n < s.size() && n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    const std::string cut = s.substr(0, n);
    const std::string more = n < s.size() ? "..." : "";
    for (const char ch : cut) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7F || c == '\'' || c == '\\') return json::quote(cut) + more;
    }
    return "'" + cut + more + "'";
}

// a short word as it is (BF16), anything else through show()
std::string bare(const std::string& s) {
    const bool plain = !s.empty() && s.size() <= 16 && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    return plain ? s : show(s);
}

std::string shape_str(const std::vector<std::int64_t>& shape) {
    std::string s = "[";
    for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + "]";
}

// a*b in uint64, false on overflow
bool mul_u64(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
    if (a != 0 && b > U64_MAX / a) return false;
    out = a * b;
    return true;
}

// the element count of shape (1 for rank 0), or "" error; checked so that elements * 4 fits in int64. a zero
// dim makes it 0, but the other dims must still multiply without overflow, whatever their order.
std::string checked_numel(const std::vector<std::int64_t>& shape, std::uint64_t& numel) {
    const std::uint64_t max_numel = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / 4;
    std::uint64_t prod = 1;
    bool zero = false;
    for (const std::int64_t d : shape) {
        if (d < 0) return "negative dimension " + std::to_string(d);
        if (d == 0) {
            zero = true;
            continue;
        }
        if (!mul_u64(prod, static_cast<std::uint64_t>(d), prod) || prod > max_numel)
            return "shape " + shape_str(shape) + " has too many elements (the byte count overflows)";
    }
    numel = zero ? 0 : prod;
    return "";
}

// one header entry on its way to a TensorView
struct Entry {
    TensorView view;
    std::uint64_t begin = 0, end = 0;  // relative to the data region
};

// ---------------------------------------------------------------- header entries

std::string parse_metadata(const json::Value& v, File& out) {
    if (!v.is(json::Kind::object))
        return std::string("__metadata__ must be an object of strings, found ") + json::kind_name(v.kind);
    std::vector<std::string> keys;
    for (const auto& m : v.members) {
        if (!m.second.is(json::Kind::string))
            return "metadata value for key " + show(m.first) + " must be a string, found " +
                   json::kind_name(m.second.kind);
        out.metadata.emplace_back(m.first, m.second.s);
        keys.push_back(m.first);
    }
    std::sort(keys.begin(), keys.end());
    for (std::size_t k = 1; k < keys.size(); ++k)
        if (keys[k] == keys[k - 1]) return "duplicate metadata key " + show(keys[k]);
    return "";
}

std::string parse_entry(const std::string& name, const json::Value& v, const Limits& limits, std::uint64_t data_size,
                        Entry& e) {
    const std::string who = "tensor " + show(name);
    if (!v.is(json::Kind::object))
        return who + " must be an object with dtype, shape and data_offsets, found " + json::kind_name(v.kind);
    const json::Value *dtype = nullptr, *shape = nullptr, *offsets = nullptr;
    for (const auto& m : v.members) {
        const json::Value** slot = m.first == "dtype"          ? &dtype
                                   : m.first == "shape"        ? &shape
                                   : m.first == "data_offsets" ? &offsets
                                                               : nullptr;
        if (!slot) return who + " has an unexpected key " + show(m.first) + ": only dtype, shape and data_offsets";
        if (*slot) return who + " has the key " + show(m.first) + " twice";
        *slot = &m.second;
    }
    if (!dtype) return who + " has no dtype";
    if (!shape) return who + " has no shape";
    if (!offsets) return who + " has no data_offsets";

    // dtype
    if (!dtype->is(json::Kind::string))
        return who + ": dtype must be a string, found " + json::kind_name(dtype->kind);
    if (dtype->s == "F32") e.view.dtype = DType::F32;
    else if (dtype->s == "I32") e.view.dtype = DType::I32;
    else return "unsupported dtype " + bare(dtype->s) + " for " + who + ": only F32 and I32";

    // shape
    if (!shape->is(json::Kind::array)) return who + ": shape must be an array, found " + json::kind_name(shape->kind);
    if (shape->items.size() > static_cast<std::size_t>(limits.max_rank))
        return who + " has rank " + std::to_string(shape->items.size()) + ", more than the limit of " +
               std::to_string(limits.max_rank);
    for (const auto& d : shape->items) {
        if (!d.is(json::Kind::integer))
            return who + ": shape must hold integers, found " + json::kind_name(d.kind);
        e.view.shape.push_back(d.i);
    }
    std::uint64_t numel = 0;
    const std::string bad = checked_numel(e.view.shape, numel);
    if (!bad.empty()) return who + ": " + bad;
    const std::uint64_t nbytes = numel * 4;  // <= int64 max by checked_numel

    // data_offsets [begin, end) inside the data region, spanning exactly nbytes
    if (!offsets->is(json::Kind::array) || offsets->items.size() != 2)
        return who + ": data_offsets must be an array of two integers [begin, end]";
    for (const auto& o : offsets->items)
        if (!o.is(json::Kind::integer) || o.i < 0)
            return who + ": data_offsets must be non-negative integers";
    e.begin = static_cast<std::uint64_t>(offsets->items[0].i);
    e.end = static_cast<std::uint64_t>(offsets->items[1].i);
    const std::string span = "[" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
    if (e.end < e.begin) return who + " has data_offsets " + span + " with end before begin";
    if (e.end > data_size)
        return who + " has data_offsets " + span + " past the end of the data region (" + std::to_string(data_size) +
               " bytes): the file may be truncated";
    if (e.end - e.begin != nbytes)
        return who + " has data_offsets " + span + " spanning " + std::to_string(e.end - e.begin) +
               " bytes, but shape " + shape_str(e.view.shape) + " of " + dtype_name(e.view.dtype) + " needs " +
               std::to_string(nbytes) + " bytes";
    e.view.name = name;
    e.view.nbytes = static_cast<std::size_t>(nbytes);  // <= data_size, so it fits size_t even on wasm32
    return "";
}

// sorted by begin, each tensor must start where the previous one ended: the data region is tiled exactly
std::string check_tiling(std::vector<Entry>& entries, std::uint64_t data_size) {
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        if (a.begin != b.begin) return a.begin < b.begin;
        if (a.end != b.end) return a.end < b.end;
        return a.view.name < b.view.name;
    });
    if (entries.empty()) {
        if (data_size != 0) return std::to_string(data_size) + " bytes of tensor data but no tensors in the header";
        return "";
    }
    if (entries[0].begin != 0)
        return "the data region has a gap of " + std::to_string(entries[0].begin) + " bytes before the first tensor " +
               show(entries[0].view.name);
    for (std::size_t k = 1; k < entries.size(); ++k) {
        const Entry& a = entries[k - 1];
        const Entry& b = entries[k];
        if (b.begin < a.end)
            return "tensors " + show(a.view.name) + " [" + std::to_string(a.begin) + ", " + std::to_string(a.end) +
                   "] and " + show(b.view.name) + " [" + std::to_string(b.begin) + ", " + std::to_string(b.end) +
                   "] overlap";
        if (b.begin > a.end)
            return "the data region has a gap of " + std::to_string(b.begin - a.end) + " bytes between tensors " +
                   show(a.view.name) + " (ends at " + std::to_string(a.end) + ") and " + show(b.view.name) +
                   " (begins at " + std::to_string(b.begin) + ")";
    }
    const Entry& last = entries.back();
    if (last.end != data_size)
        return std::to_string(data_size - last.end) + " trailing bytes after the last tensor " + show(last.view.name) +
               " in the data region";
    return "";
}

}  // namespace

// ---------------------------------------------------------------- parse

std::string parse(const std::uint8_t* data, std::size_t size, File& out, const Limits& limits) {
    out = File{};
    if (size < 8)
        return "file is only " + std::to_string(size) +
               " bytes: a safetensors file starts with an 8-byte header length";
    if (size > limits.max_file_bytes)
        return "file is " + std::to_string(size) + " bytes, more than the limit of " +
               std::to_string(limits.max_file_bytes);
    // compare in uint64 before any use: n may be anything up to 2^64 - 1
    const std::uint64_t n = load_u64_le(data);
    if (n > limits.max_header_bytes)
        return "header length " + std::to_string(n) + " bytes is more than the limit of " +
               std::to_string(limits.max_header_bytes);
    if (n > size - 8)
        return "header length " + std::to_string(n) + " bytes runs past the end of the file (only " +
               std::to_string(size - 8) + " bytes follow the length field): the file may be truncated";
    const std::size_t header_size = static_cast<std::size_t>(n);
    const std::size_t data_start = 8 + header_size;
    const std::uint64_t data_size = size - data_start;

    // the header: a json object; per tensor 6 + rank values, plus room for a few thousand metadata entries
    const std::string_view text(reinterpret_cast<const char*>(data + 8), header_size);
    json::ParseLimits jl;
    jl.max_bytes = limits.max_header_bytes;
    jl.max_string = limits.max_header_bytes;
    jl.max_values = limits.max_tensors * (6 + static_cast<std::size_t>(std::max(limits.max_rank, 0))) + 8192;
    jl.reject_duplicate_keys = false;  // we name duplicates ourselves, as tensors or metadata keys
    json::Value root;
    const std::string jerr = json::parse(text, root, jl);
    if (!jerr.empty()) return "header is not valid JSON: " + jerr + " of the header";
    if (!root.is(json::Kind::object))
        return std::string("header must be a JSON object, found ") + json::kind_name(root.kind);
    // the reference reader insists on this too; only trailing padding is allowed
    if (text[0] != '{') return "header must start with '{', without leading whitespace";

    File f;
    std::vector<Entry> entries;
    bool seen_metadata = false;
    const std::size_t n_tensors = root.members.size() - (root.find("__metadata__") ? 1 : 0);
    if (n_tensors > limits.max_tensors)
        return "header lists " + std::to_string(n_tensors) + " tensors, more than the limit of " +
               std::to_string(limits.max_tensors);
    entries.reserve(n_tensors);
    for (const auto& m : root.members) {
        if (m.first == "__metadata__") {
            if (seen_metadata) return "header has __metadata__ twice";
            seen_metadata = true;
            const std::string err = parse_metadata(m.second, f);
            if (!err.empty()) return err;
            continue;
        }
        if (m.first.empty()) return "a tensor has an empty name";
        Entry e;
        const std::string err = parse_entry(m.first, m.second, limits, data_size, e);
        if (!err.empty()) return err;
        entries.push_back(std::move(e));
    }

    // duplicate names: sort a list of pointers, neighbours collide
    std::vector<const std::string*> names;
    names.reserve(entries.size());
    for (const auto& e : entries) names.push_back(&e.view.name);
    std::sort(names.begin(), names.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
    for (std::size_t k = 1; k < names.size(); ++k)
        if (*names[k] == *names[k - 1]) return "duplicate tensor name " + show(*names[k]);

    const std::string tiling = check_tiling(entries, data_size);
    if (!tiling.empty()) return tiling;

    f.tensors.reserve(entries.size());
    for (auto& e : entries) {
        e.view.offset = data_start + static_cast<std::size_t>(e.begin);  // begin <= data_size, no overflow
        f.tensors.push_back(std::move(e.view));
    }
    out = std::move(f);
    return "";
}

// ---------------------------------------------------------------- decode

std::vector<float> read_f32(const std::uint8_t* data, const TensorView& v) {
    MHA_CHECK(v.dtype == DType::F32, "read_f32 on tensor '" + v.name + "' of dtype " + dtype_name(v.dtype));
    std::vector<float> out(v.numel());
    const std::uint8_t* p = data + v.offset;
    for (std::size_t k = 0; k < out.size(); ++k) {
        const std::uint32_t bits = load_u32_le(p + 4 * k);
        std::memcpy(&out[k], &bits, 4);
    }
    return out;
}

std::vector<std::int32_t> read_i32(const std::uint8_t* data, const TensorView& v) {
    MHA_CHECK(v.dtype == DType::I32, "read_i32 on tensor '" + v.name + "' of dtype " + dtype_name(v.dtype));
    std::vector<std::int32_t> out(v.numel());
    const std::uint8_t* p = data + v.offset;
    for (std::size_t k = 0; k < out.size(); ++k) {
        const std::uint32_t bits = load_u32_le(p + 4 * k);
        std::memcpy(&out[k], &bits, 4);
    }
    return out;
}

bool all_finite(const std::vector<float>& values) {
    for (const float x : values)
        if (!std::isfinite(x)) return false;
    return true;
}

// ---------------------------------------------------------------- write

std::vector<std::uint8_t> write(const std::vector<std::pair<std::string, std::string>>& metadata,
                                const std::vector<NamedTensor>& tensors) {
    static_assert(sizeof(float) == 4, "F32 needs a 4-byte float");

    // header: {"__metadata__":{...},"name":{"dtype":"F32","shape":[..],"data_offsets":[b,e]},...}
    std::string header = "{";
    if (!metadata.empty()) {
        std::vector<std::string> keys;
        header += "\"__metadata__\":{";
        for (std::size_t k = 0; k < metadata.size(); ++k) {
            const auto& kv = metadata[k];
            MHA_CHECK(json::valid_utf8(kv.first) && json::valid_utf8(kv.second),
                      "safetensors metadata must be UTF-8 (key " + show(kv.first) + ")");
            if (k) header += ',';
            json::append_quoted(header, kv.first);
            header += ':';
            json::append_quoted(header, kv.second);
            keys.push_back(kv.first);
        }
        header += '}';
        std::sort(keys.begin(), keys.end());
        for (std::size_t k = 1; k < keys.size(); ++k)
            MHA_CHECK(keys[k] != keys[k - 1], "duplicate safetensors metadata key " + show(keys[k]));
    }
    std::vector<std::uint64_t> nbytes(tensors.size());
    std::vector<std::string> names;
    std::uint64_t data_size = 0;
    for (std::size_t k = 0; k < tensors.size(); ++k) {
        const NamedTensor& t = tensors[k];
        MHA_CHECK(!t.name.empty(), "a safetensors tensor needs a name");
        MHA_CHECK(t.name != "__metadata__", "__metadata__ is reserved, not a tensor name");
        MHA_CHECK(json::valid_utf8(t.name), "tensor name " + show(t.name) + " is not UTF-8");
        std::uint64_t numel = 0;
        const std::string bad = checked_numel(t.shape, numel);
        MHA_CHECK(bad.empty(), "tensor " + show(t.name) + ": " + bad);
        MHA_CHECK(t.data || numel == 0, "tensor " + show(t.name) + " has no data");
        nbytes[k] = numel * 4;
        MHA_CHECK(data_size <= U64_MAX - nbytes[k], "tensor data too large");
        if (!metadata.empty() || k) header += ',';
        json::append_quoted(header, t.name);
        header += ":{\"dtype\":\"";
        header += dtype_name(t.dtype);
        header += "\",\"shape\":[";
        for (std::size_t d = 0; d < t.shape.size(); ++d) header += (d ? "," : "") + std::to_string(t.shape[d]);
        header += "],\"data_offsets\":[" + std::to_string(data_size) + "," + std::to_string(data_size + nbytes[k]) +
                  "]}";
        data_size += nbytes[k];
        names.push_back(t.name);
    }
    header += '}';
    std::sort(names.begin(), names.end());
    for (std::size_t k = 1; k < names.size(); ++k)
        MHA_CHECK(names[k] != names[k - 1], "duplicate safetensors tensor name " + show(names[k]));

    // spaces up to a multiple of 8: the length field is 8 bytes, so the data region starts 8-aligned
    header.append((8 - header.size() % 8) % 8, ' ');
    const std::uint64_t total = 8 + header.size() + data_size;
    MHA_CHECK(total <= std::numeric_limits<std::size_t>::max(), "safetensors file too large for this machine");

    std::vector<std::uint8_t> out(static_cast<std::size_t>(total));
    store_u64_le(out.data(), header.size());
    std::memcpy(out.data() + 8, header.data(), header.size());
    std::uint8_t* p = out.data() + 8 + header.size();
    for (std::size_t k = 0; k < tensors.size(); ++k) {
        // float and int32 alike: copy each value's bits, store them little-endian
        const auto* src = static_cast<const std::uint8_t*>(tensors[k].data);
        for (std::uint64_t e = 0; e < nbytes[k] / 4; ++e, p += 4) {
            std::uint32_t bits;
            std::memcpy(&bits, src + 4 * e, 4);
            store_u32_le(p, bits);
        }
    }
    return out;
}

// ---------------------------------------------------------------- files

namespace {

// "a directory" / "a pipe" / ... for a path that exists and is not a regular file; "" for a regular file or none
std::string not_regular(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return "";
    if (S_ISDIR(st.st_mode)) return "a directory";
    if (S_ISFIFO(st.st_mode)) return "a pipe";
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device";
    if (S_ISSOCK(st.st_mode)) return "a socket";
    return "not a regular file";
}

// writes bytes to an open file and closes it: "" or the reason (the close flushes: a full disk may only show there)
std::string write_and_close(std::FILE* fp, const std::vector<std::uint8_t>& bytes) {
    const bool wrote = std::fwrite(bytes.data(), 1, bytes.size(), fp) == bytes.size();
    const int saved = errno;
    const bool closed = std::fclose(fp) == 0;
    if (wrote && closed) return "";
    return std::strerror(wrote ? errno : saved);
}

}  // namespace

std::string read_file(const std::string& path, std::vector<std::uint8_t>& out, std::size_t max_bytes) {
    out.clear();
    const std::string kind = not_regular(path);
    if (!kind.empty()) return path + " is " + kind + ", not a file to read.";
    std::FILE* fp = std::fopen(path.c_str(), "rb");
    if (!fp) return "cannot open " + path + ": " + std::strerror(errno);
    std::string err;
    long size = -1;
    if (std::fseek(fp, 0, SEEK_END) == 0) size = std::ftell(fp);
    if (size < 0 || std::fseek(fp, 0, SEEK_SET) != 0) {
        err = "cannot determine the size of " + path + " (not a regular file?)";
    } else if (static_cast<unsigned long>(size) > max_bytes) {
        err = path + " is " + std::to_string(size) + " bytes, more than the limit of " + std::to_string(max_bytes);
    } else {
        out.resize(static_cast<std::size_t>(size));
        if (std::fread(out.data(), 1, out.size(), fp) != out.size()) {
            err = "cannot read " + path + ": " + (std::ferror(fp) ? std::strerror(errno) : "file shrank while reading");
            out.clear();
        }
    }
    std::fclose(fp);
    return err;
}

std::string write_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
    if (!not_regular(path).empty()) {
        // /dev/null, a pipe, a device: written as it is; renaming a file over it would replace it
        std::FILE* fp = std::fopen(path.c_str(), "wb");
        if (!fp) return "cannot open " + path + " for writing: " + std::strerror(errno);
        const std::string why = write_and_close(fp, bytes);
        return why.empty() ? "" : "cannot write " + path + ": " + why;
    }
    const std::string tmp = path + ".tmp";
    std::FILE* fp = std::fopen(tmp.c_str(), "wb");
    if (!fp) return "cannot create " + tmp + ": " + std::strerror(errno);
    const std::string why = write_and_close(fp, bytes);
    if (!why.empty()) {
        std::remove(tmp.c_str());
        return "cannot write " + tmp + ": " + why;
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string err = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
        std::remove(tmp.c_str());
        return err;
    }
    return "";
}

std::string write_file(const std::string& path, const std::string& text) {
    return write_file(path, std::vector<std::uint8_t>(text.begin(), text.end()));
}

}  // namespace mha::st
