"""Run one command in a fresh child process and measure its wall time and peak memory.

Peak RSS comes from ``os.wait4`` on that very child: the kernel's high-water mark for the
child (and for any of its own children it waited for, as a max, not a sum). Aggregates
such as ``RUSAGE_CHILDREN`` would mix every process the harness ever started, so they are
not used. Because a tool that fans out to worker processes holds memory in several
processes at once, a sampler also sums the PSS (proportional set size: pages a forked
helper shares with its parent count once) of the child's whole process tree every 0.1 s;
that figure is reported beside the exact one when the child had descendants.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
SAMPLE_INTERVAL_S = 0.1
STDOUT_KEEP_BYTES = 64 * 1024
STDERR_TAIL_BYTES = 2000


@dataclass
class Measurement:
    """What one child run cost, and how it ended."""

    command: list[str]
    wall_s: float
    peak_rss_mb: float
    returncode: int
    timed_out: bool
    tree_peak_rss_mb: float = 0.0
    #: the anonymous part of the tree's peak (sampled; 0 when not sampled): memory the
    #: kernel cannot reclaim, as opposed to mapped files
    tree_peak_anon_mb: float = 0.0
    max_processes: int = 1
    load_avg_1m: float = 0.0
    stdout_bytes: int = 0
    stdout: str = ""
    stderr_tail: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["ok"] = self.ok
        return data


def _rss_bytes(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * PAGE_SIZE
    except (OSError, IndexError, ValueError):
        return None


def _pss_bytes(pid: int) -> tuple[int, int] | None:
    """(proportional set size, its anonymous and shmem part): a page shared by n processes
    counts 1/n in each, so the sum over a tree counts the pages a forked helper shares with
    its parent once (RSS would count them in both). The rest of the PSS is mapped files
    (page cache the kernel can reclaim: spilled or cached columns). RSS, for both, where the
    kernel has no smaps_rollup."""
    fields: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                key, _, rest = line.partition(":")
                if key in ("Pss", "Pss_Anon", "Pss_Shmem"):
                    fields[key] = int(rest.split()[0]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    if "Pss" in fields:
        anon = fields["Pss_Anon"] + fields.get("Pss_Shmem", 0) if "Pss_Anon" in fields else None
        return fields["Pss"], fields["Pss"] if anon is None else anon
    rss = _rss_bytes(pid)
    return None if rss is None else (rss, rss)


def _children_by_parent() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as fh:
                # The command name may hold spaces and parentheses: split after the last ')'.
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    return children


def tree_rss(root: int) -> tuple[int, int, int]:
    """(summed PSS bytes, their anonymous part, process count) of ``root`` and all its live
    descendants."""
    children = _children_by_parent()
    total = anon = count = 0
    stack = [root]
    while stack:
        pid = stack.pop()
        pss = _pss_bytes(pid)
        if pss is None:
            continue
        total += pss[0]
        anon += pss[1]
        count += 1
        stack.extend(children.get(pid, []))
    return total, anon, count


class TreeSampler(threading.Thread):
    """Polls the child's process tree until told to stop; keeps the peaks."""

    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.peak_bytes = 0
        self.peak_anon_bytes = 0
        self.max_processes = 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(SAMPLE_INTERVAL_S):
            total, anon, count = tree_rss(self.root)
            self.peak_bytes = max(self.peak_bytes, total)
            self.peak_anon_bytes = max(self.peak_anon_bytes, anon)
            self.max_processes = max(self.max_processes, count)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


def _read_head(path: Path, limit: int) -> tuple[str, int]:
    size = path.stat().st_size
    with path.open("rb") as fh:
        return fh.read(limit).decode("utf-8", "replace"), size


def _read_tail(path: Path, limit: int) -> str:
    size = path.stat().st_size
    with path.open("rb") as fh:
        fh.seek(max(0, size - limit))
        return fh.read().decode("utf-8", "replace")


def run_measured(
    command: list[str],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout_s: float = 600.0,
    sample_tree: bool = True,
) -> Measurement:
    """Run ``command`` to completion (or kill it at ``timeout_s``) and measure it.

    ``sample_tree=False``: no polling of the process tree's PSS (its reads of every
    process's smaps_rollup every 0.1 s take 5-10 % of a core, which a program using both of
    this machine's cores pays in wall time); the peak is then the process's own (wait4).
    Output goes to temporary files, not pipes, so a chatty child can never block on a
    full pipe while we wait for it; only the head of stdout and the tail of stderr are kept.
    """
    with tempfile.TemporaryDirectory(prefix="mi-bench-run-") as tmp:
        out_path, err_path = Path(tmp, "stdout"), Path(tmp, "stderr")
        with out_path.open("wb") as out, err_path.open("wb") as err:
            load = os.getloadavg()[0]
            started = time.perf_counter()
            proc = subprocess.Popen(
                command, cwd=cwd, env=env, stdout=out, stderr=err, start_new_session=True
            )
            sampler = TreeSampler(proc.pid)
            if sample_tree:
                sampler.start()
            killed = threading.Event()

            def kill() -> None:
                killed.set()
                os.killpg(proc.pid, signal.SIGKILL)

            timer = threading.Timer(timeout_s, kill)
            timer.start()
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - started
            timer.cancel()
            if sample_tree:
                sampler.stop()
            proc.returncode = os.waitstatus_to_exitcode(status)
        stdout, stdout_bytes = _read_head(out_path, STDOUT_KEEP_BYTES)
        stderr_tail = _read_tail(err_path, STDERR_TAIL_BYTES)
    peak = usage.ru_maxrss / 1024  # Linux reports KiB
    return Measurement(
        command=command,
        wall_s=round(wall, 3),
        peak_rss_mb=round(peak, 1),
        returncode=proc.returncode,
        timed_out=killed.is_set(),
        tree_peak_rss_mb=round(max(sampler.peak_bytes / 2**20, peak), 1),
        tree_peak_anon_mb=round(sampler.peak_anon_bytes / 2**20, 1),
        max_processes=max(sampler.max_processes, 1),
        load_avg_1m=round(load, 2),
        stdout_bytes=stdout_bytes,
        stdout=stdout,
        stderr_tail=stderr_tail,
    )
