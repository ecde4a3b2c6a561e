"""mindinsight_profiler: training-performance analysis for PyTorch and MindSpore profiles.

Data flows one way: formats/ (readers) -> model/ (one normalised trace) -> store/ (cache)
-> analysis/ (pure functions) -> cli/ (and later server/, advisor/); collect/ writes the
raw data in training scripts.
"""

from typing import Any

from mindinsight_profiler._version import __version__

__all__ = ["Profiler", "__version__", "open_cluster", "open_run"]


def __getattr__(name: str) -> Any:
    # `Profiler` is imported on first use, so that `import mindinsight_profiler` (the CLI,
    # the server) does not pay for the collection machinery.
    if name == "Profiler":
        from mindinsight_profiler.collect.profiler import Profiler

        return Profiler
    if name in ("open_run", "open_cluster"):  # pandas only for notebooks and scripts
        from mindinsight_profiler import api

        return getattr(api, name)
    raise AttributeError(f"module 'mindinsight_profiler' has no attribute {name!r}")
