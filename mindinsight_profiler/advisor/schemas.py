"""The published JSON schemas, generated from the structs the code uses.

`python -m mindinsight_profiler.advisor.schemas` rewrites `docs/advice.schema.json` (the
output of `mindinsight advise --format json`) and `rules/schema.json` (a rule file, read as
TOML); a test fails when either is out of date, so the published contract cannot drift
from the code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from mindinsight_profiler.advisor.model import Advice, Rule

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = {"docs/advice.schema.json": Advice, "rules/schema.json": Rule}


def _closed(schema: dict[str, Any]) -> dict[str, Any]:
    """Rule files reject unknown fields (forbid_unknown_fields): say so in the schema too."""
    for name, definition in schema.get("$defs", {}).items():
        if name in ("Rule", "Text", "Graded") and definition.get("type") == "object":
            definition["additionalProperties"] = False
    return schema


def schema_of(cls: type) -> dict[str, Any]:
    schema = msgspec.json.schema(cls)
    if cls is Rule:
        schema = _closed(schema)
    title = "mindinsight advisor rule file" if cls is Rule else "mindinsight advise --format json"
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": title,
            **schema}  # fmt: skip


def render(cls: type) -> str:
    return json.dumps(schema_of(cls), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def main() -> None:
    for relative, cls in PUBLISHED.items():
        (ROOT / relative).write_text(render(cls), encoding="utf-8")
        print(f"wrote {relative}")


if __name__ == "__main__":
    main()
