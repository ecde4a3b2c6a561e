"""Every input format, in one list: a new format is its package plus one line here."""

from __future__ import annotations

from mindinsight_profiler.formats import ascend, kineto, mindspore
from mindinsight_profiler.formats.spec import FormatSpec

FORMATS: tuple[FormatSpec, ...] = (
    kineto.SPEC,
    ascend.SPEC,
    mindspore.V2_SPEC,
    mindspore.LEGACY_SPEC,
)


def spec_of(tag: str) -> FormatSpec | None:
    """The spec of a format tag, or None for a tag no reader declares."""
    return next((spec for spec in FORMATS if spec.tag == tag), None)
