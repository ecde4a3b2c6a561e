"""Text that is not valid UTF-8: read with replacement characters, never a crash.

msgspec raises `UnicodeDecodeError` (not a `DecodeError`) for a JSON string holding bytes
that are not UTF-8, and Python's own decoding does the same. A profiler writes the bytes a
framework gave it, so a kernel or file name may hold anything; one bad byte must not cost the
whole trace. The bytes are replaced by U+FFFD and the caller warns once per file.
"""

from __future__ import annotations

_REPLACEMENT = "\ufffd".encode()


def repaired(data: bytes | memoryview) -> tuple[bytes, int]:
    """`data` with every invalid UTF-8 sequence replaced by U+FFFD, and how many there were."""
    raw = bytes(data)
    fixed = raw.decode("utf-8", "replace").encode("utf-8")
    return fixed, fixed.count(_REPLACEMENT) - raw.count(_REPLACEMENT)


#: More invalid sequences than one per this many bytes: the file is not UTF-8 text at all
#: (another encoding, binary junk), not text with a few bad names.
TEXT_BYTES_PER_BAD = 100


class NotText(ValueError):
    """The data is not UTF-8 text; `start` is the offset of the first bad byte."""

    def __init__(self, start: int) -> None:
        self.start = start
        super().__init__(f"not UTF-8 text (byte {start})")


def decoded(data: bytes) -> tuple[str, int]:
    """`data` as text (a UTF-8 BOM dropped), and how many invalid sequences were replaced.

    Raises NotText when they are too many for a text with a few bad names.
    """
    try:
        return data.decode("utf-8-sig"), 0
    except UnicodeDecodeError as exc:
        fixed, count = repaired(data)
        if count * TEXT_BYTES_PER_BAD > len(data):
            raise NotText(exc.start) from None
        return fixed.decode("utf-8-sig"), count


def replaced_warning(count: int) -> str:
    """The warning for `count` replaced sequences."""
    return f"{count} byte sequence(s) that are not UTF-8 read as U+FFFD (names may show '\ufffd')"
