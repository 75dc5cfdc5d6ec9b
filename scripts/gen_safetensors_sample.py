#!/usr/bin/env python3
"""Writes tests/fixtures/safetensors/sample.safetensors: a small safetensors file made here with only json and
struct, independently of our C++ writer, so the Catch2 test checks our reader against someone else's bytes.

Layout as in https://huggingface.co/docs/safetensors: 8-byte little-endian header length, the JSON header
(compact, padded with spaces to a multiple of 8 like the reference writer), then the raw little-endian data.
The header deliberately lists the tensors in a different order from their data, and json.dumps escapes the
non-ASCII metadata as \\uXXXX (with a surrogate pair for the emoji), which the reader must decode to UTF-8.
Usage: scripts/gen_safetensors_sample.py > tests/fixtures/safetensors/sample.safetensors
"""
import json
import struct
import sys

# name -> (dtype, shape, values); data is laid out in this order
TENSORS = [
    ("blocks.0.attn.wq", "F32", [2, 3], [0.5, -1.25, 3.0, 0.1, -0.0, 65504.0]),
    ("tokens", "I32", [4], [0, -1, 2147483647, -2147483648]),
    ("empty", "F32", [0, 3], []),
    ("scale", "F32", [], [2.5]),
]
METADATA = {"format": "pt", "note": "caf\u00e9 \U0001F600", "step": "42"}
HEADER_ORDER = ["tokens", "scale", "blocks.0.attn.wq", "empty"]  # not the data order


def main():
    data = b""
    entries = {}
    for name, dtype, shape, values in TENSORS:
        fmt = "<%d%s" % (len(values), "f" if dtype == "F32" else "i")
        raw = struct.pack(fmt, *values)
        entries[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    header = {"__metadata__": METADATA}
    for name in HEADER_ORDER:
        header[name] = entries[name]
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=True).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    sys.stdout.buffer.write(struct.pack("<Q", len(text)) + text + data)


if __name__ == "__main__":
    main()
