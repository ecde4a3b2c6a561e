"""Real torch.profiler traces of a tiny training loop, with one performance problem planted.

The advisor's operator, precision, optimizer, stability and configuration rules need runs
where a problem is known to be present (and the same run without it), and public traces
rarely come in such pairs. This script trains a small attention classifier on the CPU under
torch.profiler and, with `--plant`, introduces exactly one problem:

  none              the clean run (SDPA attention, SGD default implementation, set_to_none)
  float64           model and data in float64
  sleep_step        time.sleep(0.3) in one active step only (an outlier step)
  sleep_every       an untraced time.sleep(0.02) in every step (time no operator accounts for)
  leak              a 1 MiB tensor per step kept alive in a list (memory grows)
  dataparallel      the model wrapped in torch.nn.DataParallel
  foreach           the optimizer built with foreach=True (multi-tensor kernels)
  manual_attention  attention written by hand: matmul -> softmax -> matmul
  zero_grad_memset  optimizer.zero_grad(set_to_none=False): gradients are memset every step
  compile           torch.compile (Inductor) applied at the first profiled step: compilation
                    (seconds) is inside the window, the later steps run the compiled model
  elementwise_chain each block's output goes through eight unfused element-wise operators
                    (the kind of chain a compiler fuses into one kernel)
  fused_adam        Adam with fused=True (one fused kernel per step, not per-tensor updates)
  anomaly           torch.autograd.set_detect_anomaly(True) left on: every autograd node
                    records the Python stack of its forward (a debugging aid, slow)
  recompile         like compile, and from the fourth active step on the batches are shorter
                    (24 tokens, not 32): Dynamo recompiles the model inside a steady-state step
  py_preprocess     each batch is tokenised from raw text by per-sample Python code in the
                    training loop (no DataLoader): ~0.3 ms of pure Python per sample
  loader_nw0        the same tokenising in a Dataset.__getitem__, read through a DataLoader
                    with num_workers=0: the loop waits for the batch in every step
  wide              a healthy, larger model (width 256, 64 tokens): no problem planted
  eval_every        an evaluation pass under torch.no_grad (eval batch of 64) in every
                    fourth step, inside the profiled window
  eval_leak         a validation forward in every step without torch.no_grad, its outputs
                    kept in a list for an epoch-end metric: each keeps its autograd graph
                    (and the activations saved for backward) alive, so memory grows
  grad_logging      every step logs each parameter's gradient norm and mean |weight| with
                    .item() (27 parameters: 81 small reductions and 54 host reads per step;
                    on the CPU .item() waits for no device)
  checkpoint        torch.save of the model and optimizer state to a file every third step

Usage: python -m tests.advisor.planted --plant NAME [NAME ...] --out DIR [--active N]
Each trace is written as DIR/<plant>/<plant>.<pid>.pt.trace.json (tensorboard_trace_handler).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

PLANTS = (
    "none",
    "float64",
    "sleep_step",
    "sleep_every",
    "leak",
    "dataparallel",
    "foreach",
    "manual_attention",
    "zero_grad_memset",
    "compile",
    "elementwise_chain",
    "fused_adam",
    "anomaly",
    "recompile",
    "py_preprocess",
    "loader_nw0",
    "wide",
    "eval_every",
    "eval_leak",
    "grad_logging",
    "checkpoint",
)


def build(plant: str):
    import torch
    from torch import nn
    from torch.nn import functional as F

    class Attention(nn.Module):
        def __init__(self, dim: int, heads: int, manual: bool) -> None:
            super().__init__()
            self.heads, self.manual = heads, manual
            self.qkv = nn.Linear(dim, 3 * dim)
            self.out = nn.Linear(dim, dim)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, s, d = x.shape
            q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).unbind(2)
            q, k, v = (t.transpose(1, 2) for t in (q, k, v))
            if self.manual:
                scores = torch.matmul(q, k.transpose(-2, -1)) / (q.shape[-1] ** 0.5)
                y = torch.matmul(torch.softmax(scores, dim=-1), v)
            else:
                y = F.scaled_dot_product_attention(q, k, v)
            return self.out(y.transpose(1, 2).reshape(b, s, d))

    class Block(nn.Module):
        def __init__(self, dim: int, manual: bool) -> None:
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
            self.attn = Attention(dim, 4, manual)
            self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = x + self.attn(self.norm1(x))
            x = x + self.mlp(self.norm2(x))
            if plant == "elementwise_chain":  # eight element-wise ops, each its own pass
                x = ((x * 1.01 + 0.1).tanh() * 0.5 + x).relu().neg().exp().sqrt()
            return x

    class Classifier(nn.Module):
        def __init__(self, manual: bool, dim: int = 64) -> None:
            super().__init__()
            self.embed = nn.Embedding(500, dim)
            self.blocks = nn.Sequential(Block(dim, manual), Block(dim, manual))
            self.head = nn.Linear(dim, 4)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            return self.head(self.blocks(self.embed(tokens)).mean(dim=1))

    model: nn.Module = Classifier(plant == "manual_attention", 256 if plant == "wide" else 64)
    if plant == "float64":
        model = model.double()  # the logits, and so the loss, are float64 as well
    if plant == "dataparallel":
        model = nn.DataParallel(model)
    if plant == "fused_adam":
        return model, torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)
    extra = {"foreach": True} if plant == "foreach" else {}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, **extra)
    return model, optimizer


def _tokenise(text: bytes) -> list[int]:
    """A hand-written hashing tokeniser: a Python loop over every byte (no C calls)."""
    ids = [0] * 32
    for i, b in enumerate(text):
        ids[i % 32] = (ids[i % 32] * 31 + b) % 500
    return ids


def _texts(n: int) -> list[bytes]:
    return [(f"sample {i} " * 300).encode() for i in range(n)]  # ~3 KB of raw text each


def run(plant: str, out: Path, active: int = 6, outlier_step: int = 3) -> None:
    """Train under torch.profiler with `plant`; the trace goes to `out` (one file per run)."""
    import torch
    from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

    torch.manual_seed(0)
    torch.set_num_threads(1)
    model, optimizer = build(plant)
    steps = 2 + active  # schedule: wait 1, warmup 1, then the active steps
    seq = 64 if plant == "wide" else 32
    tokens = torch.randint(0, 500, (steps, 16, seq))
    labels = torch.randint(0, 4, (steps, 16))
    kept: list[torch.Tensor] = []
    texts = _texts(16 * steps) if plant in ("py_preprocess", "loader_nw0") else []
    loader = iter(torch.utils.data.DataLoader(_Texts(texts), batch_size=16, num_workers=0))
    held_out = torch.randint(0, 500, (64, 32))
    out.mkdir(parents=True, exist_ok=True)
    with (
        torch.autograd.set_detect_anomaly(plant == "anomaly"),
        profile(
            activities=[ProfilerActivity.CPU],
            schedule=schedule(wait=1, warmup=1, active=active, repeat=1),
            on_trace_ready=tensorboard_trace_handler(str(out), worker_name=plant),
            record_shapes=True,
            profile_memory=True,
            # the compile plant without stacks: Python events of Inductor's compilation make a trace
            # of gigabytes, and torch 2.13 writes some of their names unescaped (invalid JSON)
            with_stack=plant not in ("compile", "recompile"),
            with_modules=True,
        ) as prof,
    ):
        forward = model
        for step in range(steps):
            if plant in ("compile", "recompile") and step == 2:  # the first active step compiles
                forward = torch.compile(model)
            batch = tokens[step]
            if plant == "recompile" and step >= 5:  # a new sequence length: Dynamo recompiles
                batch = batch[:, :24]
            if plant == "py_preprocess":  # tokenised here, sample by sample
                batch = torch.tensor([_tokenise(t) for t in texts[16 * step : 16 * step + 16]])
            if plant == "loader_nw0":
                batch = next(loader)
            loss = torch.nn.functional.cross_entropy(forward(batch), labels[step])
            optimizer.zero_grad(set_to_none=plant != "zero_grad_memset")
            loss.backward()
            optimizer.step()
            if plant == "leak":  # features kept for "later": 1 MiB more per step
                kept.append(torch.zeros(256, 1024))
            if plant == "eval_every" and step % 4 == 3:
                with torch.no_grad():
                    model.eval()
                    kept.append(model(held_out).argmax(-1))
                    model.train()
            if plant == "eval_leak":  # predictions kept with their graphs
                kept.append(model(held_out[16 * (step % 4) : 16 * (step % 4) + 16]))
            if plant == "grad_logging":
                logs = {n: (p.grad.norm().item(), p.abs().mean().item())
                        for n, p in model.named_parameters() if p.grad is not None}  # fmt: skip
                assert len(logs) > 0
            if plant == "checkpoint" and step % 3 == 0:
                state = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}
                torch.save(state, Path(tempfile.gettempdir()) / f"planted-{os.getpid()}.pt")
            if plant == "sleep_every":
                time.sleep(0.02)
            if plant == "sleep_step" and step == 2 + outlier_step:
                time.sleep(0.3)
            prof.step()
    Path(tempfile.gettempdir(), f"planted-{os.getpid()}.pt").unlink(missing_ok=True)
    meta = {"plant": plant, "active": active, "torch": torch.__version__}
    (out / f"{plant}.meta.json").write_text(json.dumps(meta))


class _Texts:
    """A map-style dataset that tokenises raw text in __getitem__ (for `loader_nw0`)."""

    def __init__(self, texts: list[bytes]) -> None:
        self.texts = texts

    def __len__(self) -> int:
        return len(self.texts)

    def __getitem__(self, i: int):
        import torch

        return torch.tensor(_tokenise(self.texts[i]))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    ap.add_argument("--plant", choices=PLANTS, nargs="+", default=["none"])
    ap.add_argument("--out", required=True, type=Path, help="one folder per plant under it")
    ap.add_argument("--active", type=int, default=6)
    ap.add_argument("--outlier-step", type=int, default=3, help="active step that sleeps")
    a = ap.parse_args(argv)
    for plant in a.plant:  # one process for all: torch is imported once
        run(plant, a.out / plant, a.active, a.outlier_step)


if __name__ == "__main__":
    main()
