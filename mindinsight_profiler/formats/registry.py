"""Every input format, in one list: a new format is its package plus one line here."""

from __future__ import annotations

from mindinsight_profiler.formats import ascend, kineto, mindspore
from mindinsight_profiler.formats.spec import FormatSpec, FormatTag

FORMATS: tuple[FormatSpec, ...] = (
    kineto.SPEC,
    ascend.SPEC,
    mindspore.V2_SPEC,
    mindspore.LEGACY_SPEC,
)

_BY_TAG = {spec.tag: spec for spec in FORMATS}


def spec_of(tag: str) -> FormatSpec | None:
    """The spec of a format tag, or None for a tag no reader declares."""
    try:
        return _BY_TAG.get(FormatTag(tag))
    except ValueError:
        return None
