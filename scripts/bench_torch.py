#!/usr/bin/python3
"""The PyTorch reference line of scripts/bench: the same "tiny-char" training step (V=65, D=64, L=2, T=64, B=16,
MLP 4D, AdamW, fp32) on ONE thread, with Debian's torch and OpenBLAS (libopenblas0-pthread; without it torch uses
the reference BLAS, ~10x slower, which would not be a fair line). The model is scripts/gen_reference.py's, the
same function the fixtures were made with. Prints JSON: [{"heads", "ms_per_step", "tokens_per_s"}, ...].
"""
import json
import os
import sys
import time

# one thread for real: OpenBLAS keeps its own thread pool, which torch.set_num_threads does not always reach
os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_reference as ref  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)


def bench(heads, steps=30):
    cfg = {"vocab_size": 65, "d_model": 64, "n_heads": heads, "n_kv_heads": heads, "n_layers": 2,
           "max_seq_len": 64, "mlp": True}
    gen = torch.Generator().manual_seed(1)
    params = {n: (torch.randn(s, generator=gen) * 0.02).requires_grad_(True) for n, s in ref.param_shapes(cfg)}
    decay = [p for n, p in params.items() if p.dim() >= 2]
    no_decay = [p for n, p in params.items() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=3e-3, betas=(0.9, 0.95), eps=1e-8)
    idx = torch.randint(0, 65, (16, 64), generator=gen)
    targets = torch.randint(0, 65, (16, 64), generator=gen)

    def step():
        opt.zero_grad(set_to_none=True)
        _, loss = ref.forward(params, cfg, idx, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(params.values()), 1.0)
        opt.step()

    for _ in range(3):
        step()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    dt = (time.perf_counter() - t0) / steps
    return {"heads": heads, "ms_per_step": dt * 1e3, "tokens_per_s": 16 * 64 / dt}


if __name__ == "__main__":
    blas = os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")  # Debian's alternatives pick the BLAS
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(), "blas": blas,
                      "training": [bench(h) for h in (1, 4, 8)]}))
