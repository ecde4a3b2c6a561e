"""Anchor: what the PyTorch TensorBoard plugin (torch-tb-profiler 0.4.3) does for one trace.

Mirrors ``RunLoader._process_data`` in the plugin: parse the file into ``RunProfileData``
(decode, build the event tree, run every analysis), then ``RunGenerator`` turns it into the
views the UI serves. The multiprocessing hand-off TensorBoard adds is left out, so this is
a lower bound of the plugin's own cost. Runs inside the anchor's virtual environment and
prints one JSON line with the phase timings.

Usage: ``<venv>/bin/python tb_plugin_driver.py TRACE``
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

from torch_tb_profiler import consts
from torch_tb_profiler.profiler.data import DistributedRunProfileData, RunProfileData
from torch_tb_profiler.profiler.run_generator import RunGenerator


def main(path: str) -> int:
    match = consts.WORKER_PATTERN.match(os.path.basename(path))
    if match is None:
        print(f"not a worker[.span].pt.trace.json[.gz] name: {path}", file=sys.stderr)
        return 2
    worker = match.group(1)
    # The loader turns the span timestamp into its 1-based index among the worker's spans.
    span = 1 if match.group(2) is not None else None
    with tempfile.TemporaryDirectory(prefix="tb-cache-") as cache_dir:
        started = time.perf_counter()
        data = RunProfileData.parse(worker, span, path, cache_dir)
        parsed = time.perf_counter()
        profile = RunGenerator(worker, span, data).generate_run_profile()
        DistributedRunProfileData(data)
        done = time.perf_counter()
    summary = {
        "parse_s": round(parsed - started, 3),
        "generate_s": round(done - parsed, 3),
        "events": len(data.events),
        "steps": len(data.steps_names or []),
        "views": [str(view) for view in profile.views],
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
