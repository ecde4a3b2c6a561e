"""Per-input analysis state, shared by every server process through the workspace.

gunicorn workers are separate processes and the analysis runs in yet another one, so the
state of an input lives in a small JSON file, `<workspace>/state/<key>.json`, rewritten
atomically (a reader sees the old state or the new one) and sealed with its SHA-256
(`store.integrity`): a damaged, edited or older-format state file reads as no state, so the
scheduler queues the input again (a cache hit when the entry is sound). The key is a hash
of the input's path and variant, so a route finds it without reading the input; the file
also records the input's fingerprint (the cache key) so the scheduler can tell an outdated
state from a current one, and, once the input is ready, the state of each stage after its
overview (`stages`: the advice, the timeline index; see `server.stages`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.errors import CacheError
from mindinsight_profiler.formats.discovery import TraceFile
from mindinsight_profiler.pipeline.keys import cache_variant
from mindinsight_profiler.server.stages import (
    ANALYSING,
    FAILED,
    QUEUED,
    READY,
    STAGES,
    pending,
    public_stages,
)
from mindinsight_profiler.store.atomic import json_default
from mindinsight_profiler.store.integrity import read_sealed, write_sealed

log = logging.getLogger(__name__)

__all__ = ["ANALYSING", "FAILED", "QUEUED", "READY", "StateStore", "state_key"]

#: The fields `write` sets itself (`update` keeps the others of a record).
_OWN = ("path", "worker", "span", "updated")
#: Worst first: a run is as far along as its least advanced input.
_RANK = {FAILED: 3, QUEUED: 2, ANALYSING: 1, READY: 0}


def state_key(file: TraceFile, options: Options = DEFAULT_OPTIONS) -> str:
    """Stable for one input across processes and restarts (not its content: see fingerprint)."""
    ident = f"{file.path.resolve()}|{cache_variant(file.format, file.worker, options)}"
    return hashlib.sha256(ident.encode()).hexdigest()[:24]


class StateStore:
    """Reads and writes the state files of one workspace."""

    def __init__(self, workspace_root: Path, options: Options = DEFAULT_OPTIONS) -> None:
        self.dir = workspace_root / "state"
        self.options = options  # the configured points and device: part of each key

    def path(self, file: TraceFile) -> Path:
        return self.dir / f"{state_key(file, self.options)}.json"

    def read(self, file: TraceFile) -> dict[str, Any] | None:
        """The recorded state, or None when never recorded (or damaged: treated as new)."""
        try:
            payload = read_sealed(self.path(file), "state")
            data = json.loads(bytes(payload)) if payload is not None else None
        except (CacheError, ValueError) as exc:
            log.warning("ignoring the state of %s: %s", file.path, exc)
            return None
        return data if isinstance(data, dict) and data.get("state") in _RANK else None

    def write(self, file: TraceFile, state: str, fingerprint: str, **extra: Any) -> None:
        record = {
            "state": state,
            "fingerprint": fingerprint,
            "path": str(file.path),
            "worker": file.worker,
            "span": file.span,
            "updated": time.time(),
            **extra,
        }
        body = json.dumps(record, separators=(",", ":"), default=json_default).encode()
        write_sealed(self.path(file), "state", body)

    def update(self, file: TraceFile, record: dict[str, Any], **changes: Any) -> None:
        """Rewrite a record read before with some of its fields changed (its state and
        fingerprint kept unless changed): a stage's progress keeps the overview's summary."""
        merged = {k: v for k, v in record.items() if k not in _OWN} | changes
        state, fingerprint = merged.pop("state"), merged.pop("fingerprint")
        self.write(file, state, fingerprint, **merged)

    def run_state(self, files: Iterable[TraceFile]) -> dict[str, Any]:
        """A run's state: the worst of its inputs', mean progress, and the first failure."""
        states = []
        for f in files:
            rec = self.read(f) or {"state": QUEUED}
            states.append((f, rec))
        if not states:
            return {"state": QUEUED}
        worst = max((rec["state"] for _, rec in states), key=_RANK.__getitem__)
        out: dict[str, Any] = {"state": worst}
        if worst in (ANALYSING, QUEUED):
            done = [
                100.0 if rec["state"] in (READY, FAILED) else float(rec.get("progress", 0.0))
                for _, rec in states
            ]
            out["progress"] = round(sum(done) / len(done), 1)
        failed = [(f, rec) for f, rec in states if rec["state"] == FAILED]
        if failed:
            out["error"] = failed[0][1].get("error", "analysis failed")
        summaries = [rec["summary"] for _, rec in states if isinstance(rec.get("summary"), dict)]
        if summaries:  # the first analysed input speaks for the run (all share a framework)
            out["summary"] = summaries[0]
        waiting = {name for _, rec in states for name in pending(rec)}
        if waiting:  # the overview is served; the advice or the timeline index still comes
            out["pending"] = [name for name in STAGES if name in waiting]
        return out

    def inputs(self, files: Iterable[TraceFile]) -> list[dict[str, Any]]:
        """Each input's own state, for the run detail."""
        out = []
        for f in files:
            rec = self.read(f) or {"state": QUEUED}
            item = {"worker": f.worker, "span": f.span, "state": rec["state"]}
            for name in ("progress", "error"):
                if name in rec:
                    item[name] = rec[name]
            if rec["state"] == READY:
                item["stages"] = public_stages(rec)
            out.append(item)
        return out
