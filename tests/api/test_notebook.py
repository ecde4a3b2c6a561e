"""The example notebook (docs/examples/python_api.ipynb) runs from top to bottom on the
shared data and shows what it says it shows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA, shared

nbclient = pytest.importorskip("nbclient", reason="nbclient is a dev dependency")
nbformat = pytest.importorskip("nbformat", reason="nbformat is a dev dependency")
pytest.importorskip("ipykernel", reason="the notebook's kernel needs ipykernel")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "examples" / "python_api.ipynb"


def test_example_notebook_executes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared("kineto/resnet50_num_workers_0")
    monkeypatch.setenv("MI_SHARED_DIR", str(SHARED_DATA.parent))
    monkeypatch.setenv("MINDINSIGHT_WORKSPACE", str(tmp_path / "ws"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()  # raises CellExecutionError naming the cell on any error
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    html = "".join(str(o.get("data", {}).get("text/html", "")) for o in outputs)
    assert "<svg" in html  # the run's own display
    assert "dataloader_wait" in html  # the finding, in the findings table
    assert "time_range" in html or "step" in html  # its evidence
