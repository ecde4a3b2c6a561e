"""This project analysing every worker of every run under some folders, in one process.

The counterpart of an anchor that analyses a whole data folder in one process (MindInsight
2.3.1 over MindSpore profiler folders: `scripts/mindinsight_reference.py`): each input is
read and analysed into a fresh workspace (`pipeline.reports.analyse_file`), as the
dashboard does. Prints one JSON line: inputs analysed, failures, seconds.

Usage: ``python ours_folders.py WORKSPACE FOLDER...`` (the checkout on PYTHONPATH)
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    from mindinsight_profiler.errors import InputError
    from mindinsight_profiler.formats.discovery import discover
    from mindinsight_profiler.pipeline.reports import analyse_file
    from mindinsight_profiler.store.cache import Workspace

    workspace = Workspace(Path(argv[0]))
    started = time.perf_counter()
    done, failed = 0, []
    for folder in argv[1:]:
        for run in discover(folder):
            for file in run.files:
                try:
                    analyse_file(file.source, workspace, None, file.format, file.worker)
                    done += 1
                except InputError as exc:
                    failed.append(str(exc))
    print(json.dumps({"inputs": done, "failed": failed, "seconds": time.perf_counter() - started}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
