"""Write docs/examples/python_api.ipynb (no outputs): the Python API on the shared ResNet-50
run, from the overview to the DataLoader finding and the time it points at.

The notebook is kept as this script's output so that its cells are reviewed as code;
`tests/api/test_notebook.py` executes it. Run: python scripts/make_example_notebook.py
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

OUT = Path(__file__).resolve().parents[1] / "docs" / "examples" / "python_api.ipynb"

CELLS = [
    new_markdown_cell(
        "# Why is this ResNet-50 step slow?\n\n"
        "The Python API of mindinsight_profiler on a real PyTorch trace (the shared "
        "`kineto/resnet50_num_workers_0` run: one GPU, a DataLoader with no worker "
        "processes). Set `MI_SHARED_DIR` to the folder holding `data/` (default `../shared`)."
    ),
    new_code_cell(
        "import os\n"
        "from pathlib import Path\n\n"
        "from mindinsight_profiler import open_run\n\n"
        'DATA = Path(os.environ.get("MI_SHARED_DIR", "../shared")) / "data"\n'
        'run = open_run(DATA / "kineto" / "resnet50_num_workers_0")\n'
        "run"
    ),
    new_markdown_cell("The average step, by category (microseconds):"),
    new_code_cell("run.breakdown(average=True).round(1)"),
    new_code_cell("run.steps()"),
    new_markdown_cell("The operators that take the most device time:"),
    new_code_cell(
        'run.operators().nlargest(5, "device_self_us")'
        '[["name", "calls", "device_self_us", "host_self_us"]]'
    ),
    new_markdown_cell("What the advisor finds, most costly first:"),
    new_code_cell("findings = run.advise()\nfindings.frame()"),
    new_markdown_cell(
        "The evidence behind the DataLoader finding: the steps that waited for data."
    ),
    new_code_cell('evidence = findings.evidence("dataloader_wait")\nevidence'),
    new_markdown_cell("And what ran while the first of those steps waited:"),
    new_code_cell(
        "step = run.steps().iloc[0]\n"
        "t0 = int(step.start_ns)\n"
        "window = run.timeline(t0, t0 + 5_000_000, min_duration_ns=50_000)\n"
        'window[["start_ns", "duration_us", "name", "kind", "thread"]].head(10)'
    ),
]


def main() -> None:
    notebook = new_notebook(cells=CELLS)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}  # fmt: skip
    OUT.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, OUT)
    print(OUT)


if __name__ == "__main__":
    main()
