"""Python API for notebooks and scripts: analysed runs as pandas DataFrames.

    from mindinsight_profiler import open_run
    run = open_run("path/to/profiler/output")
    run.steps(); run.breakdown(); run.operators(); run.advise().frame()

It reads through the same workspace cache as the CLI and the dashboard. pandas is needed
here only (`pip install mindinsight-profiler[notebook]`); the CLI and the server never
import this package.
"""

from __future__ import annotations

try:
    import pandas  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "the Python API needs pandas: pip install 'mindinsight-profiler[notebook]' "
        "(or pip install pandas)"
    ) from exc

from mindinsight_profiler.api.cluster import Cluster, open_cluster
from mindinsight_profiler.api.findings import Findings
from mindinsight_profiler.api.run import Run, open_run

__all__ = ["Cluster", "Findings", "Run", "open_cluster", "open_run"]
