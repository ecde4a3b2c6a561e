"""Helper processes never outlive a parent that was killed (SIGKILL, the OOM killer).

Seen: an `analyse` OOM-killed in a memory cgroup left its reader helper blocked for ever on
a pipe it still held both ends of, holding the workspace lock it had inherited, so every
later analysis of that input waited on the lock for ever.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

ROOT = Path(__file__).resolve().parents[2]

# The parent takes the workspace lock of an input, starts helpers that would block (the
# reader's, which never get read; a forked computation that sleeps), prints their pids
# and waits to be killed.
PARENT = textwrap.dedent(
    """
    import sys, time, multiprocessing as mp
    from pathlib import Path
    from mindinsight_profiler.formats.chunked import iter_decoded
    from mindinsight_profiler.store.cache import Workspace
    from mindinsight_profiler.util.forked import Forked

    trace, root = Path(sys.argv[1]), Path(sys.argv[2])
    workspace = Workspace(root)
    entry = workspace.entry(trace, "orphans")
    with workspace.lock(entry):
        def decode(data: bytes) -> bytes:
            return data * 4  # big answers: the pipe fills and the helper blocks
        batches = iter_decoded(trace, decode, lambda piece: None, processes=3)
        next(batches)  # helpers started, not drained
        forked = Forked(lambda: time.sleep(120))
        print(" ".join(str(p.pid) for p in mp.active_children()), flush=True)
        time.sleep(120)
    """
)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _trace(path: Path, megabytes: int) -> Path:
    """A Kineto trace of several read chunks (16 MB each): every helper has chunks."""
    event = b'{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, '
    with path.open("wb") as f:
        f.write(b'{"traceEvents": [\n')
        line = event + b'"ts": 1, "dur": 1},\n'
        f.write(line * (megabytes * 2**20 // len(line)))
        f.write(event + b'"ts": 2, "dur": 1}\n]}\n')
    return path


def test_helpers_die_with_a_killed_parent_and_free_the_lock(tmp_path: Path) -> None:
    trace = _trace(tmp_path / "big.pt.trace.json", 64)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(trace), str(tmp_path / "ws")],
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert parent.stdout is not None
    line = parent.stdout.readline()
    children = [int(p) for p in line.split()]
    assert len(children) == 3, line  # two reader helpers and the forked computation
    time.sleep(0.5)
    assert all(_alive(p) for p in children)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in children), "a helper outlived its killed parent"
    # and the lock the parent held is free: taking it does not wait
    take = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from mindinsight_profiler.store.cache import Workspace
        ws = Workspace(Path(sys.argv[2]))
        with ws.lock(ws.entry(Path(sys.argv[1]), "orphans")):
            print("taken")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", take, str(trace), str(tmp_path / "ws")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "taken", done.stderr
