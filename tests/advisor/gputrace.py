"""Hand-written H100 Kineto traces for the device-compute rules: steps of operator calls,
each launching one kernel of a given duration, so that MFU, roof shares and kernel shares
are known by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.integration.test_perf_section import H100
from tests.tracegen import kernel, op, python_stack, runtime, write_trace

HALF = "c10::Half"

#: (operator, input dims, input types, kernel name, kernel microseconds[, wrapping
#: operators, outermost first, called with the same inputs])
Call = tuple[Any, ...]


def mm(m: int, k: int, n: int, kernel_us: float, name: str = "sm90_xmma_gemm_f16f16") -> Call:
    return ("aten::mm", [[m, k], [k, n]], [HALF, HALF], name, kernel_us)


def elementwise(opname: str, elements: int, kernel_us: float) -> Call:
    dims, types = [[elements], [elements], []], [HALF, HALF, "Scalar"]
    return (opname, dims, types, "vectorized_elementwise_kernel", kernel_us)


def gpu_trace(folder: Path, step_calls: list[Call], steps: int = 3, gap_us: float = 20.0) -> Path:
    """`steps` steps, each running `step_calls` back to back on the GPU (the kernels `gap_us`
    apart), inside a Python call stack; a step lasts as long as its kernels plus the gaps."""
    folder.mkdir(parents=True, exist_ok=True)
    events: list[dict[str, Any]] = []
    corr = 0
    t = 1000.0
    for s in range(steps):
        length = sum(c[4] + gap_us for c in step_calls) + 50
        events.append(op(f"ProfilerStep#{s}", t, length, cat="user_annotation"))
        events += python_stack(t + 1, length - 2)  # a real step's frames: not a fragment
        host, device = t + 5, t + 30
        for name, dims, types, kname, us, *wrap in step_calls:
            corr += 1
            shapes = {"Input Dims": dims, "Input type": types}
            outer = list(wrap[0]) if wrap else []
            for depth, parent in enumerate(outer):
                events.append(op(parent, host + 0.1 * depth, 4.8 - 0.2 * depth, **shapes))
            inner = host + 0.1 * len(outer)
            events += [
                op(name, inner, 4 - 0.2 * len(outer), **shapes),
                runtime("cudaLaunchKernel", inner + 0.5, 2, corr),
                kernel(kname, device, us, corr),
            ]
            host += 5
            device += us + gap_us
        t += length
    return write_trace(folder / "w.pt.trace.json", events, deviceProperties=[H100])
