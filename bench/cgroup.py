"""A memory cgroup to run one benchmark step in: the test of "analysed in N MB" that counts.

A process's RSS counts the pages of the files it maps (the spilled columns of a large trace,
a cached entry's columns) as much as its heap, though the kernel can drop the former at any
time and read them back, and can never drop the latter without swap. A memory cgroup draws
the line the way a container or a laptop does: its limit charges both, reclaims page
cache when it is reached and kills a process (OOM) only when what cannot be reclaimed
passes it. A step that completes inside a cgroup of N MB (swap included in the limit
where the kernel accounts it) needs no more than N MB of the machine.

Needs root and a writable cgroup file system (v1 `memory` controller or v2); `create`
returns why not otherwise, and the benchmark says so instead of claiming the limit held.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

V1_ROOT = Path("/sys/fs/cgroup/memory")
V2_ROOT = Path("/sys/fs/cgroup")


class MemoryCgroup:
    """One cgroup with a memory limit; `wrap` a command to run it inside."""

    def __init__(self, path: Path, v2: bool) -> None:
        self.path = path
        self.v2 = v2

    @classmethod
    def create(cls, limit_mb: float) -> MemoryCgroup | str:
        """A new cgroup limited to `limit_mb` MiB (no swap), or why none could be made."""
        name = f"mi-bench-{os.getpid()}-{time.monotonic_ns()}"
        limit = str(int(limit_mb * 2**20))
        try:
            if (V1_ROOT / "memory.limit_in_bytes").exists():
                path = V1_ROOT / name
                path.mkdir()
                (path / "memory.limit_in_bytes").write_text(limit)
                if (path / "memory.memsw.limit_in_bytes").exists():
                    (path / "memory.memsw.limit_in_bytes").write_text(limit)
                return cls(path, v2=False)
            controllers = V2_ROOT / "cgroup.controllers"
            if controllers.exists() and "memory" in controllers.read_text().split():
                path = V2_ROOT / name
                path.mkdir()
                (path / "memory.max").write_text(limit)
                if (path / "memory.swap.max").exists():
                    (path / "memory.swap.max").write_text("0")
                return cls(path, v2=True)
        except OSError as exc:
            return f"no memory cgroup could be made: {exc}"
        return "no memory cgroup controller on this machine"

    def wrap(self, command: list[str]) -> list[str]:
        """`command` started inside the cgroup (the shell joins it, then execs)."""
        procs = self.path / "cgroup.procs"
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(procs), *command]

    def stats(self) -> dict[str, int]:
        """Highest charge (bytes, page cache included), and OOM kills, so far."""
        out: dict[str, int] = {}
        if self.v2:
            peak = self.path / "memory.peak"
            if peak.exists():
                out["max_usage_bytes"] = int(peak.read_text())
            events = self._fields(self.path / "memory.events")
            out["oom_kill"] = events.get("oom_kill", 0)
        else:
            out["max_usage_bytes"] = int((self.path / "memory.max_usage_in_bytes").read_text())
            out["oom_kill"] = self._fields(self.path / "memory.oom_control").get("oom_kill", 0)
            out["failcnt"] = int((self.path / "memory.failcnt").read_text())
        return out

    @staticmethod
    def _fields(path: Path) -> dict[str, int]:
        fields = {}
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            if value.strip().isdigit():
                fields[key] = int(value)
        return fields

    def remove(self) -> None:
        """Delete the cgroup (its processes have ended; charged page cache moves up)."""
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except OSError:
                time.sleep(0.1)
