"""Rule texts: `{name}` and `{name:format}` placeholders filled from facts and parameters."""

from __future__ import annotations

import re
from typing import Any

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)(?::([^{}]*))?\}")

#: Lists are shown as their first few items.
LIST_ITEMS = 5


def placeholders(template: str) -> set[str]:
    """The names a template reads."""
    return {m.group(1) for m in _PLACEHOLDER.finditer(template)}


def _show(value: Any, spec: str | None) -> str:
    if isinstance(value, (list, tuple)):
        shown = ", ".join(str(v) for v in value[:LIST_ITEMS])
        return shown + (f" (+{len(value) - LIST_ITEMS})" if len(value) > LIST_ITEMS else "")
    if value is None:
        return "n/a"
    if spec:
        try:
            return format(value, spec)
        except (TypeError, ValueError):
            return str(value)
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    return str(value)


def render(template: str, values: dict[str, Any]) -> str:
    """Fill the placeholders; an unknown name is left as written (caught by rule checks)."""

    def fill(m: re.Match[str]) -> str:
        name = m.group(1)
        return _show(values[name], m.group(2)) if name in values else m.group(0)

    return _PLACEHOLDER.sub(fill, template)
