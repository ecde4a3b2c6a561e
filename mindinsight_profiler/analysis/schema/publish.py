"""The JSON Schema of the report, generated from the structs so that it cannot drift.

`scripts/gen_schema.py` writes it to `docs/schema/report.schema.json` (and `--check`s it);
`tests/unit/test_schema_files.py` fails when the committed file is not what the structs
give. The text is deterministic (sorted keys, two-space indent, one final newline), so a
change of the contract shows as a readable diff of that file.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from mindinsight_profiler.analysis.schema.report import AnalyseOutput, Report

#: Where the schema is committed, relative to the repository root.
SCHEMA_FILE = "docs/schema/report.schema.json"


def schema_document() -> dict[str, Any]:
    """The report's schema: `Report` at the top, every struct (and `AnalyseOutput`) in $defs."""
    (report_ref, _), defs = msgspec.json.schema_components(
        [Report, AnalyseOutput], ref_template="#/$defs/{name}"
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "mindinsight analysis report",
        "description": (
            "The report of one worker: `build_report`, the cache's report.json and the API. "
            "`mindinsight analyse --format json` prints an AnalyseOutput (see $defs)."
        ),
        **report_ref,
        "$defs": defs,
    }


def render() -> str:
    """The schema file's text."""
    return json.dumps(schema_document(), indent=2, sort_keys=True) + "\n"
