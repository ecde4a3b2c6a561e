"""The base of every report struct, so that all of them are checked the same way.

A report section is data that is built once, cached, served and read by the UI: it must not
change after it is built (`frozen`), its fields are named where it is built (`kw_only`, which
also lets a sometimes-absent field sit between required ones, as the JSON keys do), and a key
the declaration does not know is an error, not silently dropped (`forbid_unknown_fields`):
a producer that adds or renames a key has to change the contract with it.

Field order is the JSON key order of the report (encoding follows it), so a struct must list
its fields exactly in the order the producer writes its keys.
"""

from __future__ import annotations

import msgspec


class Record(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of the report structs: immutable, built by keyword, unknown keys rejected."""


class LocalText(Record, frozen=True, kw_only=True):
    """A sentence the dashboard shows as it is, in both of its languages (as the advisor's
    texts are): an English-only string would stay English in the Chinese UI."""

    en: str
    zh: str
