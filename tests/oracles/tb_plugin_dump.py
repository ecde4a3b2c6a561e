"""Print what the PyTorch TensorBoard plugin (torch-tb-profiler 0.4.3) shows for one trace.

Runs inside the plugin's own virtual environment (see tests/integration/test_plugin_oracle.py)
and prints one JSON document: the overview's breakdown and GPU metrics, and the operator and
kernel tables, exactly as the plugin would serve them. The plugin is the reference for those
numbers; this script only calls its public classes and reads their output.

Usage: <venv>/bin/python tb_plugin_dump.py TRACE
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

from torch_tb_profiler import consts
from torch_tb_profiler.profiler.data import RunProfileData
from torch_tb_profiler.profiler.run_generator import RunGenerator


def main(path: str) -> int:
    match = consts.WORKER_PATTERN.match(os.path.basename(path))
    worker = match.group(1) if match else "worker"
    with tempfile.TemporaryDirectory() as cache:
        data = RunProfileData.parse(worker, 1, path, cache)
        profile = RunGenerator(worker, 1, data).generate_run_profile()
    out = {
        "overview": profile.overview,
        "operator_table": profile.operation_table_by_name,
        "operator_table_by_input": profile.operation_table_by_name_input,
        "kernel_table": profile.kernel_table,
        "gpu_summary": profile.gpu_summary,
    }
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
