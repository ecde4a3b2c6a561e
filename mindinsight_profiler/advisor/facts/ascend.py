"""Facts: Ascend-only checks of msprof-analyze's advisor, over the torch_npu exports (text
and db): environment settings, operators on the online-compiled ACL-op path, HCCL packet
sizes (alignment and small packets).

- `profiler_metadata.json` (db: META_DATA) records the tuning environment variables.
  ASCEND_LAUNCH_BLOCKING=1 makes every operator synchronous (a debugging switch), and
  ASCEND_GLOBAL_LOG_LEVEL 0/1 (debug/info) writes host logs for every call: both slow any
  run. An unset tuning variable (ACLNN_CACHE_LIMIT, HOST_CACHE_CAPACITY,
  PYTORCH_NPU_ALLOC_CONF) is no problem by itself, so it is only listed.
- `AscendCL@aclopCompileAndExecute` is the ACL-op path: the op is compiled online or looked
  up in the compile cache, then launched, on the dispatch thread; binary (aclnn) kernels
  skip it. Each call costs 1-2 ms where an aclnn launch costs tens of us.
- `Size Distribution` of communication.json (db: CommAnalyzerBandwidth) gives each HCCL op's
  packets per transport: size (MB of 10^6 bytes, exact to the byte) and their total
  transfer time, summed over the links the op uses at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.compute import gpu_trace, step_of, step_windows
from mindinsight_profiler.advisor.facts.evidence import longest_events
from mindinsight_profiler.advisor.facts.registry import (
    Context,
    Observed,
    Unavailable,
    fact,
    step_share,
)
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.model.kinds import Kind

_ENV_NEEDS = "a torch_npu export with profiler_metadata.json (ENV_VARIABLES)"
#: (variable, values that slow every run, why)
_HARMFUL = (
    ("ASCEND_LAUNCH_BLOCKING", ("1",)),
    ("ASCEND_GLOBAL_LOG_LEVEL", ("0", "1")),
    ("TASK_QUEUE_ENABLE", ("0",)),
)
_TUNING = ("ACLNN_CACHE_LIMIT", "HOST_CACHE_CAPACITY", "PYTORCH_NPU_ALLOC_CONF")


def _environment(ctx: Context) -> dict[str, str]:
    trace = ctx.trace
    env = None if trace is None else trace.meta.get("environment")
    if ctx.report.get("device_type") != "npu" or not isinstance(env, dict):
        raise Unavailable(f"needs {_ENV_NEEDS}")
    return {str(k): str(v).strip() for k, v in env.items()}


@fact(
    "npu.env_harmful",
    "count",
    "Environment settings recorded by the profiler that slow every run: "
    "ASCEND_LAUNCH_BLOCKING=1, ASCEND_GLOBAL_LOG_LEVEL 0/1 (debug/info logs), "
    "TASK_QUEUE_ENABLE=0; evidence: each setting.",
    _ENV_NEEDS,
)
def env_harmful(ctx: Context) -> Observed:
    env = _environment(ctx)
    bad = [(k, env[k]) for k, values in _HARMFUL if env.get(k) in values]
    evidence = tuple(
        Evidence(kind="metric", **label("env_setting", name=k, value=v), page="overview", name=k)
        for k, v in bad
    )
    return Observed(float(len(bad)), evidence)


@fact(
    "npu.env_harmful_names",
    "text",
    "The settings npu.env_harmful counts, as NAME=value, comma-separated ('' when none).",
    _ENV_NEEDS,
)
def env_harmful_names(ctx: Context) -> str:
    env = _environment(ctx)
    return ", ".join(f"{k}={env[k]}" for k, values in _HARMFUL if env.get(k) in values)


@fact(
    "npu.env_unset_tuning",
    "text",
    "Tuning variables the profiler recorded as unset (ACLNN_CACHE_LIMIT, HOST_CACHE_CAPACITY, "
    "PYTORCH_NPU_ALLOC_CONF), comma-separated, or 'none'.",
    _ENV_NEEDS,
)
def env_unset_tuning(ctx: Context) -> str:
    env = _environment(ctx)
    return ", ".join(k for k in _TUNING if k in env and not env[k]) or "none"


# --- the ACL-op (online compile) path --------------------------------------------------------

_ACLOP = "AscendCL@aclopCompileAndExecute"
_OPCOMPILE = "AscendCL@opCompile"


def _aclop(ctx: Context) -> dict[str, Any]:
    if "npu.aclop" in ctx.memo:
        return dict(ctx.memo["npu.aclop"])
    trace = gpu_trace(ctx)
    if ctx.report.get("device_type") != "npu":
        raise Unavailable("needs an Ascend export (aclopCompileAndExecute is an ACL call)")
    ev = trace.events
    if not trace.names_matching(lambda s: s.startswith("AscendCL@")).any():
        raise Unavailable("the export has no AscendCL API calls (profile with Level1 or higher)")
    names, _, _ = step_windows(ctx)
    runtime = ev["kind"] == Kind.RUNTIME
    out: dict[str, Any] = {"steps": len(names)}
    for key, name in (("calls", _ACLOP), ("compile", _OPCOMPILE)):
        rows = np.flatnonzero(runtime & trace.names_matching(lambda s, n=name: s == n))
        step = step_of(ctx, ev["start_ns"][rows])
        out[key] = (rows[step >= 0], step[step >= 0])
    ctx.memo["npu.aclop"] = out
    return dict(out)


def _total_us(ctx: Context, rows: np.ndarray) -> float:
    ev = gpu_trace(ctx).events
    steps = _aclop(ctx)["steps"]
    return float((ev["end_ns"][rows] - ev["start_ns"][rows]).sum()) / 1000.0 / steps


@fact(
    "npu.aclop_calls",
    "count",
    "aclopCompileAndExecute calls per step: operators launched on the ACL-op path (compiled "
    "online or looked up in the op cache) instead of as binary aclnn kernels.",
    "an Ascend export with the AscendCL layer (Level1 or higher)",
)
def aclop_calls(ctx: Context) -> float:
    got = _aclop(ctx)
    return len(got["calls"][0]) / got["steps"]


@fact(
    "npu.aclop_us",
    "us",
    "Host time per step in aclopCompileAndExecute on the dispatch thread, microseconds. "
    "Evidence: the longest calls as timeline ranges.",
    "an Ascend export with the AscendCL layer (Level1 or higher)",
)
def aclop_us(ctx: Context) -> Observed:
    got = _aclop(ctx)
    rows, step = got["calls"]
    names, _, _ = step_windows(ctx)
    evidence = longest_events(gpu_trace(ctx), rows, names, step, [None] * len(rows))
    return Observed(_total_us(ctx, rows), tuple(evidence))


@fact(
    "npu.op_compile_us",
    "us",
    "Time per step in opCompile inside those calls (the compilation itself; small when the op "
    "cache hits), microseconds.",
    "an Ascend export with the AscendCL layer (Level1 or higher)",
)
def op_compile_us(ctx: Context) -> float:
    return _total_us(ctx, _aclop(ctx)["compile"][0])


step_share(
    "npu.aclop_share", "npu.aclop_us", "an Ascend export with the AscendCL layer (Level1 or higher)"
)
