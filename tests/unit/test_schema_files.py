"""The committed `docs/schema/report.schema.json` is what the report structs give.

Runs `scripts/gen_schema.py` in-process: its `--check` passes on the committed file and
fails on a stale one, so a struct changed without regenerating the schema fails here.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mindinsight_profiler.analysis.schema import Report
from mindinsight_profiler.analysis.schema.publish import SCHEMA_FILE, render, schema_document
from mindinsight_profiler.formats.spec import FormatTag
from tests.conftest import ROOT


def _generator() -> Callable[[Sequence[str]], int]:
    """`main` of scripts/gen_schema.py (a script, not a module of the package)."""
    spec = importlib.util.spec_from_file_location("gen_schema", ROOT / "scripts" / "gen_schema.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    main: Callable[[Sequence[str]], int] = module.main
    return main


def test_committed_schema_is_current() -> None:
    committed = (ROOT / SCHEMA_FILE).read_text(encoding="utf-8")
    assert committed == render(), "run: python scripts/gen_schema.py"
    assert _generator()(["--check"]) == 0


def test_check_fails_on_a_stale_file(tmp_path: Path) -> None:
    stale = tmp_path / "report.schema.json"
    main = _generator()
    assert main(["--check", "--output", str(stale)]) == 1  # missing
    stale.write_text(render().replace('"integer"', '"number"', 1), encoding="utf-8")
    assert main(["--check", "--output", str(stale)]) == 1  # differs
    assert main(["--output", str(stale)]) == 0  # rewritten
    assert main(["--check", "--output", str(stale)]) == 0


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
