"""Operator input shapes as data: the profiler's `Input Dims` text turned into lists.

Kineto stores each call's input shapes as JSON text (`[[32, 64, 56, 56], [64], []]`), and
the text keeps whatever layout the trace file had, newlines and indentation included, so
printed as it is it breaks tables and differs between two traces of the same shapes. The
report carries the parsed lists (one entry per input: a shape, `[]` for a scalar or None,
or a list of shapes for a tensor list), and tables print them compactly.
"""

from __future__ import annotations

import json
from typing import Any


def shape_list(text: str) -> list[Any]:
    """The shapes of `text`: the parsed JSON list, `[]` for no text, `[text]` otherwise."""
    if not text:
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return [text]
    return value if isinstance(value, list) else [value]


def compact_shape(shapes: list[Any]) -> str:
    """One line for a table: the inputs that have a shape (`[32,64,56,56] [64]`), or "-"."""
    kept = [json.dumps(s, separators=(",", ":")) for s in shapes if s not in ([], None, "")]
    return " ".join(kept) if kept else "-"
