"""The trace-level metadata of a Kineto trace, checked before analyses and the report see it.

`distributedInfo` goes into the report as it is and `deviceProperties` names each device's
row; a value of the wrong type there (another writer, a damaged file) would fail the
report's declaration or put a negative rank on a page. Unsound values are left out with a
warning naming the file; nothing here fails the trace.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mindinsight_profiler.formats import notices

#: deviceProperties keys the analyses read, and what each must be.
_DEVICE_KEYS = {"name": "text", "totalGlobalMem": "count", "computeMajor": "count",
                "computeMinor": "count"}  # fmt: skip
#: distributedInfo keys with a meaning, and what each must be.
_DISTRIBUTED_KEYS = {"rank": "count", "world_size": "positive", "backend": "text",
                     "pg_count": "count"}  # fmt: skip


def _is(value: Any, kind: str) -> bool:
    if kind == "text":
        return isinstance(value, str)
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    return 0 <= value < 2**62 if kind == "count" else 0 < value < 2**62


def _has_negative(value: Any) -> bool:
    """Whether a JSON value holds a negative number anywhere (no figure here is signed)."""
    if isinstance(value, dict):
        return any(_has_negative(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_negative(v) for v in value)
    return isinstance(value, int | float) and not isinstance(value, bool) and value < 0


def device_properties(path: Path, value: Any) -> list[dict[str, Any]] | None:
    """The entries with an integer `id`, each without the known keys of the wrong type."""
    if value is None:
        return None
    if not isinstance(value, list):
        notices.warn(path, "deviceProperties is not a list: left out")
        return None
    out, dropped = [], 0
    for entry in value:
        if not isinstance(entry, dict) or not _is(entry.get("id"), "count"):
            dropped += 1
            continue
        bad = [k for k, kind in _DEVICE_KEYS.items() if k in entry and not _is(entry[k], kind)]
        out.append({k: v for k, v in entry.items() if k not in bad})
        dropped += len(bad)
    if dropped:
        notices.warn(
            path, f"deviceProperties: {dropped} entry or value(s) of the wrong type left out"
        )
    return out


def distributed_info(path: Path, value: Any) -> dict[str, Any] | None:
    """The object without its known keys of the wrong type, nor values holding negatives."""
    if value is None:
        return None
    if not isinstance(value, dict):
        notices.warn(path, "distributedInfo is not an object: left out")
        return None
    bad = [
        k
        for k, v in value.items()
        if (k in _DISTRIBUTED_KEYS and not _is(v, _DISTRIBUTED_KEYS[k])) or _has_negative(v)
    ]
    if bad:
        notices.warn(
            path, f"distributedInfo: {', '.join(map(str, bad))} of the wrong type left out"
        )
    return {k: v for k, v in value.items() if k not in bad}


def checked(path: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """`meta` (keys as the reader names them) with its analysed values checked."""
    out = dict(meta)
    if "device_properties" in out:
        out["device_properties"] = device_properties(path, out["device_properties"])
    if "distributed_info" in out:
        out["distributed_info"] = distributed_info(path, out["distributed_info"])
    return out
