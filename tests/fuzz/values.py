"""What mutations put into files: bad numbers, bytes that are not UTF-8, deep nesting."""

from __future__ import annotations

import decimal
import random
from typing import Any

#: Raw JSON texts a number may become: out of range, not finite, negative, of another type.
NUMBER_TEXTS = (
    "1e308", "-1e308", "1e999", "NaN", "Infinity", "-Infinity", "9.2e15", "9.3e15", "1e18",
    "9223372036854775807", "18446744073709551616", "-1", "-1000000", "0", "1.5e-300", "2.5",
    '"12"', '"abc"', '""', '"NaN"', '"1e308"', '"-5"', "null", "true", "[]",
)  # fmt: skip
#: Cell texts a number in a CSV or text file may become.
CELL_TEXTS = (
    "1e308", "-1e308", "nan", "NaN", "inf", "-inf", "Infinity", "9.2e15", "9.3e18", "1e18",
    "9223372036854775808", "-1", "-1000000", "0", "abc", "", "0x10", "1,5", "1e-320",
)  # fmt: skip
#: Byte sequences that are not UTF-8.
INVALID_UTF8 = (
    b"\xff", b"\xfe\xff", b"\xc3\x28", b"\xa0\xa1", b"\xe2\x28\xa1", b"\xf0\x28\x8c\x28",
    b"\xed\xa0\x80", b"\x80", b"\xc0\xaf", b"ab\xffcd",
)  # fmt: skip
#: Depths of nested arrays/objects (msgspec and Python both stop far below 10,000).
DEPTHS = (1000, 10_000, 100_000)


def file_type(name: str) -> str:
    """ "csv", "text" or "json" (by the name's extension)."""
    if name.endswith(".csv"):
        return "csv"
    if name.endswith(".txt"):
        return "text"
    return "json"


def is_number(value: Any) -> bool:
    """A JSON number, or a string that reads as one (Ascend writes times as strings)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int | decimal.Decimal):
        return True
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return False
        return True
    return False


def nested(rng: random.Random) -> bytes:
    depth = rng.choice(DEPTHS)
    if rng.random() < 0.5:
        return b"[" * depth + b"1" + b"]" * depth
    return b'{"a":' * depth + b"1" + b"}" * depth
