"""The committed `docs/schema/{report,api}.schema.json` are what the structs give.

Runs `scripts/gen_schema.py` in-process: its `--check` passes on the committed files and
fails on a stale one, so a struct changed without regenerating the schemas fails here.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from mindinsight_profiler.analysis.schema import Report
from mindinsight_profiler.analysis.schema.publish import SCHEMA_FILE, render, schema_document
from mindinsight_profiler.formats.spec import FormatTag
from mindinsight_profiler.server import answers
from mindinsight_profiler.server.answers import publish as api_schema
from tests.conftest import ROOT


def _generator() -> Callable[[Sequence[str]], int]:
    """`main` of scripts/gen_schema.py (a script, not a module of the package)."""
    spec = importlib.util.spec_from_file_location("gen_schema", ROOT / "scripts" / "gen_schema.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    main: Callable[[Sequence[str]], int] = module.main
    return main


def test_committed_schemas_are_current() -> None:
    committed = (ROOT / SCHEMA_FILE).read_text(encoding="utf-8")
    assert committed == render(), "run: python scripts/gen_schema.py"
    api = (ROOT / api_schema.SCHEMA_FILE).read_text(encoding="utf-8")
    assert api == api_schema.render(), "run: python scripts/gen_schema.py"
    assert _generator()(["--check"]) == 0


@pytest.mark.parametrize("name", [SCHEMA_FILE, api_schema.SCHEMA_FILE])
def test_check_fails_on_a_stale_file(tmp_path: Path, name: str) -> None:
    main = _generator()
    assert main(["--check", "--root", str(tmp_path)]) == 1  # missing
    assert main(["--root", str(tmp_path)]) == 0  # written
    assert main(["--check", "--root", str(tmp_path)]) == 0
    stale = tmp_path / name
    stale.write_text(stale.read_text().replace('"integer"', '"number"', 1), encoding="utf-8")
    assert main(["--check", "--root", str(tmp_path)]) == 1  # differs
    assert main(["--root", str(tmp_path)]) == 0  # rewritten
    assert main(["--check", "--root", str(tmp_path)]) == 0


def test_schema_declares_every_report_key() -> None:
    """The top level is `Report`; each struct is closed (no undeclared keys)."""
    doc: dict[str, Any] = json.loads(render())
    assert doc == json.loads(json.dumps(schema_document()))
    assert doc["$ref"] == "#/$defs/Report"
    report = doc["$defs"]["Report"]
    assert set(report["properties"]) == set(Report.__struct_fields__)
    assert {"worker", "span"} <= set(doc["$defs"]["AnalyseOutput"]["required"])
    objects = [d for d in doc["$defs"].values() if d.get("type") == "object"]
    assert len(objects) > 30 and all(d.get("additionalProperties") is False for d in objects)
    assert doc["$defs"]["FormatTag"]["enum"] == sorted(FormatTag)  # tags, not free text


def test_api_schema_declares_every_route_answer() -> None:
    """Each JSON route names its struct; every struct is closed, and the report's sections
    are the report's own definitions (one declaration, the same text in both files)."""
    doc: dict[str, Any] = json.loads(api_schema.render())
    assert set(doc["x-routes"]) == set(answers.ENDPOINT_ANSWERS)
    defs = doc["$defs"]
    assert {c.__name__ for c in answers.answer_types()} <= set(defs)
    report_defs = json.loads(render())["$defs"]
    for name in ("StepTrace", "DataPipeline", "Communication", "Memory", "OperatorRow"):
        assert defs[name] == report_defs[name], name
    open_ok = {"Checked", "NotEvaluated", "Suppressed", "Text"}  # the advisor's own structs
    assert all(d.get("additionalProperties") is False for n, d in defs.items() if n not in open_ok)
