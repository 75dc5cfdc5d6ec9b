#!/usr/bin/python3
"""Proves that a checkpoint written by our C++ core loads in PyTorch and means the same model there.

It trains a small model with the native mha-train (a few steps, saved as .safetensors), asks mha-train for the
logits of a text, then opens the file with plain json + struct, builds the same GPT in torch from those tensors
(the model of scripts/gen_reference.py), and compares the logits.

    scripts/check_interop.py [build/native/core/mha-train]
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_reference as ref  # noqa: E402  (the torch model, and a strict json+struct safetensors reader)
import torch  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEXT = "In the beginning God created"
TOLERANCE = 1e-4  # float32 core against torch float64 on the same float32 weights


def main():
    trainer = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build", "native", "core", "mha-train")
    with tempfile.TemporaryDirectory() as d:
        ckpt = os.path.join(d, "model.safetensors")
        flags = ["--steps", "30", "--warmup", "3", "--batch", "8", "--context", "32", "--d-model", "32", "--heads", "4",
                 "--kv-heads", "2", "--layers", "2", "--quiet"]
        subprocess.run([trainer] + flags + ["--save", ckpt], check=True, stdout=subprocess.DEVNULL)
        ours = json.loads(subprocess.run([trainer, "--load", ckpt, "--print-logits", TEXT], check=True,
                                         capture_output=True, text=True).stdout)
        meta, tensors = ref.read_safetensors(ckpt)
    cfg = json.loads(meta["config"])
    params = {name: torch.tensor(values, dtype=torch.float64).reshape(shape)
              for name, (dtype, shape, values) in tensors.items() if not name.startswith("adamw.")}
    idx = torch.tensor([ours["tokens"]], dtype=torch.int64)
    logits, _ = ref.forward(params, cfg, idx, torch.zeros_like(idx))
    theirs = logits.reshape(-1)
    mine = torch.tensor(ours["logits"], dtype=torch.float64)
    err = (theirs - mine).abs().max().item()
    print(f"checkpoint: {len(params)} tensors, config {meta['config']}, vocabulary of {len(meta['vocab'])} symbols")
    print(f"logits of {TEXT!r}: max |core - torch| = {err:.2e} (tolerance {TOLERANCE})")
    sys.exit(0 if err <= TOLERANCE else 1)


if __name__ == "__main__":
    main()
