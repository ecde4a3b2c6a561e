"""Rule texts: `{name}` and `{name:format}` placeholders filled from facts and parameters.

A text is a Python format string read by `string.Formatter`, limited to what rules need: a
placeholder is a fact or parameter name (dotted, no `[index]`, no `!r` conversion, no
replacement field nested in the format), and a format spec's width and precision are at
most `MAX_FORMAT_WIDTH` (`{x:>999999999}` would otherwise make a gigabyte of text).
`{{` and `}}` are literal braces. `check` enforces this when the rule file is loaded;
`render` also cuts what it makes to `MAX_RENDERED` characters, ending with an ellipsis, as
a fact's value (an operator's name from a trace) can be any length.
"""

from __future__ import annotations

import re
import string
from typing import Any

#: Lists are shown as their first few items.
LIST_ITEMS = 5
#: Longest text in a rule file, in characters (the built-in rules' longest is about 300).
MAX_TEMPLATE = 2000
#: Largest width or precision in a placeholder's format spec.
MAX_FORMAT_WIDTH = 100
#: Longest text a finding shows; longer ones are cut and end with ELLIPSIS.
MAX_RENDERED = 2000
ELLIPSIS = "…"

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)*\Z")
# [[fill]align][sign][z][#][0][width][grouping][.precision][type] (the format mini-language)
_SPEC = re.compile(
    r"(?:.?[<>=^])?[+\- ]?z?#?0?(?P<width>\d*)[,_]?(?:\.(?P<precision>\d+))?[bcdeEfFgGnosxX%]?\Z",
    re.DOTALL,
)
_PARSER = string.Formatter()


class TemplateError(ValueError):
    """A rule text's placeholder is outside what rule texts may use."""


def _parsed(template: str) -> list[tuple[str, str | None, str | None, str]]:
    """(literal text, placeholder name or None, conversion, format spec) in order."""
    try:
        return [(lit, name, conv, spec or "") for lit, name, spec, conv in _PARSER.parse(template)]
    except ValueError as exc:
        raise TemplateError(f"{exc} (write {{{{ or }}}} for a literal brace)") from None


def _spec_problem(spec: str) -> str | None:
    if "{" in spec or "}" in spec:
        return "a replacement field inside a format spec"
    m = _SPEC.match(spec)
    if m is None:
        return f"{spec[:40]!r} is not a format spec"
    for what in ("width", "precision"):
        digits = (m.group(what) or "").lstrip("0")
        if len(digits) > 6 or int(digits or 0) > MAX_FORMAT_WIDTH:
            return f"format {what} {digits[:20]} is more than {MAX_FORMAT_WIDTH}"
    return None


def check(template: str) -> set[str]:
    """The names `template` reads; TemplateError when it is too long or a placeholder is
    outside the rules' format language."""
    if len(template) > MAX_TEMPLATE:
        raise TemplateError(f"{len(template)} characters long (at most {MAX_TEMPLATE})")
    names = set()
    for _, name, conversion, spec in _parsed(template):
        if name is None:
            continue
        shown = "{" + name[:40] + "}"
        if conversion is not None:
            raise TemplateError(f"{shown}: conversions such as !{conversion} are not allowed")
        if not _NAME.match(name):
            raise TemplateError(f"{shown}: a placeholder is a fact or parameter name "
                                "(no [index], no _private or positional fields)")  # fmt: skip
        problem = _spec_problem(spec)
        if problem:
            raise TemplateError(f"{shown}: {problem}")
        names.add(name)
    return names


def placeholders(template: str) -> set[str]:
    """The names a template reads (TemplateError when it is not a valid rule text)."""
    return check(template)


def _show(value: Any, spec: str | None) -> str:
    if isinstance(value, (list, tuple)):
        shown = ", ".join(str(v)[:MAX_RENDERED] for v in value[:LIST_ITEMS])
        return shown + (f" (+{len(value) - LIST_ITEMS})" if len(value) > LIST_ITEMS else "")
    if value is None:
        return "n/a"
    if spec and _spec_problem(spec) is None:  # rule files are checked; this is a backstop
        try:
            return format(value, spec)
        except (TypeError, ValueError):
            return str(value)
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    return str(value)


def render(template: str, values: dict[str, Any]) -> str:
    """Fill the placeholders; an unknown name is left as written (caught by rule checks).

    The result is at most MAX_RENDERED characters: a longer one is cut and ends with "…".
    """
    out: list[str] = []
    size = 0
    for literal, name, conversion, spec in _parsed(template):
        out.append(literal[: MAX_RENDERED + 1])
        size += len(out[-1])
        if name is not None and size <= MAX_RENDERED:
            if name in values and conversion is None:
                piece = _show(values[name], spec)
            else:
                piece = "{" + name + (f"!{conversion}" if conversion else "") + (
                    f":{spec}" if spec else "") + "}"  # fmt: skip
            out.append(piece[: MAX_RENDERED + 1])
            size += len(out[-1])
        if size > MAX_RENDERED:
            break
    text = "".join(out)
    return text if len(text) <= MAX_RENDERED else text[: MAX_RENDERED - 1] + ELLIPSIS
