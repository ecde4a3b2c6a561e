"""The JSON Schema of the API's answers, generated from the structs so that it cannot drift.

`scripts/gen_schema.py` writes it to `docs/schema/api.schema.json` beside the report's
(and `--check`s both); the dashboard turns it into `ui/src/api/generated/api.ts`. Same
deterministic text as the report's schema (sorted keys, two-space indent, final newline).
The report's structs that answers carry appear here too, under the same names.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from mindinsight_profiler.server.answers import ENDPOINT_ANSWERS, answer_types
from mindinsight_profiler.server.answers.base import PageFields, Where
from mindinsight_profiler.server.answers.memory import MemoryPageFields
from mindinsight_profiler.server.answers.tables import TablePageFields

#: Where the schema is committed, relative to the repository root.
SCHEMA_FILE = "docs/schema/api.schema.json"


def _name(cls: type) -> str:
    return cls.__name__


#: Shared parts of answers, published too: the UI builds its generic `Page<Row>` helpers
#: on them (a JSON Schema has no generics, so the row type is the UI's parameter).
SHARED = [Where, PageFields, TablePageFields, MemoryPageFields]


def schema_document() -> dict[str, Any]:
    """Every answer struct in $defs, and which struct each route answers with."""
    types = answer_types() + SHARED
    _, defs = msgspec.json.schema_components(types, ref_template="#/$defs/{name}")
    routes = {
        rule: {"oneOf": [{"$ref": f"#/$defs/{_name(c)}"} for c in found]}
        if isinstance(found, tuple)
        else {"$ref": f"#/$defs/{_name(found)}"}
        for rule, found in ENDPOINT_ANSWERS.items()
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "mindinsight API answers",
        "description": (
            "The JSON answers of /api/v1, one struct per route (see x-routes); generated from "
            "mindinsight_profiler/server/answers. Report sections are the report's structs."
        ),
        "x-routes": routes,
        "$defs": defs,
    }


def render() -> str:
    """The schema file's text."""
    return json.dumps(schema_document(), indent=2, sort_keys=True) + "\n"
