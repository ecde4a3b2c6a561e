"""The names things are cached under: one module, public, for the pipeline and the server.

A cache entry is keyed by its input's fingerprint plus a *variant* (what else changes the
analysed result); stored advice is named by the advisor's code, the rules and the run's
other ranks. The server's scheduler and state store compute the same names to tell whether
an input is analysed already, so they must never drift from what the pipeline writes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from mindinsight_profiler._version import __version__
from mindinsight_profiler.analysis.cluster.rank_summary import SUMMARY_VERSION
from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.formats.discovery import Run
from mindinsight_profiler.formats.registry import spec_of

#: A rank's cluster summary in its cache entry (`<name>.json`, listed in the manifest):
#: pipeline/summaries.py. Its version is in the name, so another version's is simply absent.
SUMMARY_NAME = f"rank_summary.v{SUMMARY_VERSION}"


def cache_variant(fmt: str, worker: str, options: Options = DEFAULT_OPTIONS) -> str:
    """Cache-key variant: the worker where one folder holds several (legacy ranks), and the
    configured options (FP/BP points, device spec), which change the cached report."""
    spec = spec_of(fmt)
    base = worker if spec is not None and spec.worker_in_key else ""
    extra = options.key()
    return f"{base}|{extra}" if extra else base


def _run_fingerprint(run: Run | None) -> str:
    """Cluster facts read the other ranks: their files' identity is part of the key."""
    h = hashlib.sha256()
    for f in run.files if run is not None else []:
        if f.remote is not None:  # its listing: no request to the server
            h.update(f"{f.remote.identity()}\n".encode())
            continue
        try:
            st = f.path.stat()
        except OSError:
            continue
        h.update(f"{f.path}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:12]


@lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """The advisor's own code (facts change between releases too, and during development)."""
    # Imported here: the advisor (its engine and facts) is 60 ms of imports that `analyse`
    # and the reader's helpers never need; only naming stored advice does.
    from mindinsight_profiler import advisor
    from mindinsight_profiler.advisor.model import ADVICE_VERSION

    h = hashlib.sha256(f"{ADVICE_VERSION}-{__version__}".encode())
    for path in sorted(Path(advisor.__file__).parent.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.name}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:12]


def advice_name(rules_dirs: Sequence[str | Path], run: Run | None) -> str:
    """The file name of a worker's stored advice in its cache entry."""
    from mindinsight_profiler.advisor.rules import rules_fingerprint

    key = f"{_code_fingerprint()}-{rules_fingerprint(rules_dirs)}-{_run_fingerprint(run)}"
    return f"advice-{key}.json"
