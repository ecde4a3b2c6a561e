"""Event times as the readers accept them, and what becomes of events whose times are not.

A time a reader keeps must be one every analysis can compute with: a start within
[0, MAX_TIME_NS] and a duration within [0, MAX_DURATION_NS], so that a start plus a
duration, the difference of two times and the sum of thousands of durations all fit int64
(2**62 ns is 146 years after the epoch; 2**52 ns, 52 days, is longer than any profile). An
event without a time, or with one that is not a number or out of range, would otherwise land
at 0 or wrap around and give negative step and self times without a word. Such events are
left out: when they are a minority the rest is analysed and one warning counts them and
describes the first; when they are most of the file, the file is an error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import msgspec
import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats import notices
from mindinsight_profiler.formats.numbers import NOT_A_NUMBER, unquoted, us_text_to_ns_where

#: Latest start (ns since the epoch, or since a trace's own origin).
MAX_TIME_NS = 2**62
#: Longest duration (ns).
MAX_DURATION_NS = 2**52

#: Problem codes of one time of one event.
OK, MISSING, NOT_NUMBER, NEGATIVE, OUT_OF_RANGE = 0, 1, 2, 3, 4
_WORDS = {
    MISSING: "no {what}",
    NOT_NUMBER: "{what} is not a number",
    NEGATIVE: "negative {what}",
    OUT_OF_RANGE: "{what} out of range",
}


def times_from_text(
    raws: Sequence[bytes], duration: bool = False, quoted: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """(int64 ns, problem code) of raw JSON microsecond values; an empty raw text is a
    missing time. `quoted`: strings of numbers (`"12.5"`) count as numbers (Ascend, MindSpore
    write them). Rows with a problem hold 0.
    """
    n = len(raws)
    texts = [unquoted(bytes(r)) for r in raws] if quoted else raws
    values, status = us_text_to_ns_where(texts)
    problem = np.zeros(n, dtype=np.uint8)
    if n == 0:
        return values, problem
    number = status != NOT_A_NUMBER  # saturated values beyond int64 are out of range below
    limit = MAX_DURATION_NS if duration else MAX_TIME_NS
    problem[~number] = NOT_NUMBER
    problem[number & (values < 0)] = NEGATIVE
    problem[number & (values > limit)] = OUT_OF_RANGE
    problem[np.fromiter(map(len, raws), dtype=np.int64, count=n) == 0] = MISSING
    values[problem != OK] = 0
    return values, problem


def number_text(value: object) -> bytes:
    """The JSON text of a `ts` as a reader decoded it: a raw text (`msgspec.Raw`, bytes) as
    it is, an int (a JSON integer) written back, as it was in the file."""
    if type(value) is int:
        return str(value).encode()
    if value is None or isinstance(value, (bool, float, str)):
        return msgspec.json.encode(value)
    return bytes(cast(bytes, value))


def times_from_int_us(values: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """`times_from_text` of JSON integers (microseconds), without writing them as text:
    the same values and problem codes."""
    n = len(values)
    try:
        us = np.fromiter(values, np.int64, count=n)
    except OverflowError:  # beyond int64: the text path knows how to say so
        return times_from_text([str(v).encode() for v in values])
    problem = np.zeros(n, dtype=np.uint8)
    problem[us < 0] = NEGATIVE
    problem[us > MAX_TIME_NS // 1000] = OUT_OF_RANGE  # us * 1000 > MAX_TIME_NS
    ns = us * 1000
    ns[problem != OK] = 0
    return ns, problem


def durations_from_us(dur_us: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int64 ns, problem code) of float microsecond durations; NaN is a missing duration."""
    problem = np.zeros(len(dur_us), dtype=np.uint8)
    problem[np.isnan(dur_us)] = MISSING
    problem[dur_us < 0] = NEGATIVE
    problem[dur_us > MAX_DURATION_NS / 1000.0] = OUT_OF_RANGE
    good = problem == OK
    values = np.zeros(len(dur_us), dtype=np.int64)
    values[good] = np.rint(dur_us[good] * 1000.0).astype(np.int64)
    return values, problem


@dataclass
class BadTimes:
    """Events left out for their times: how many for each problem, and the first of them."""

    counts: dict[str, int] = field(default_factory=dict)
    first_index: int = -1  # position of the first bad event among the file's events
    first: str = ""  # its problem, e.g. "dur out of range ('aten::add', 9.2e+15)"

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def add(self, other: BadTimes, offset: int = 0) -> None:
        """Count `other`'s events too; its positions start at `offset` among the file's."""
        for problem, n in other.counts.items():
            self.counts[problem] = self.counts.get(problem, 0) + n
        if other.first and (not self.first or other.first_index + offset < self.first_index):
            self.first_index, self.first = other.first_index + offset, other.first


def judge(
    problems: dict[str, np.ndarray], describe: Callable[[int, str], str] = lambda i, what: ""
) -> tuple[np.ndarray, BadTimes]:
    """(rows to keep, the rest counted) for per-row problem codes of each time ("ts",
    "dur"); `describe(i, what)` adds what shows row i in a message (its name, the value)."""
    n = len(next(iter(problems.values()))) if problems else 0
    keep = np.ones(n, dtype=bool)
    bad = BadTimes()
    for what, codes in problems.items():
        for code, words in _WORDS.items():
            hit = keep & (codes == code)
            count = int(hit.sum())
            if count:
                text = words.format(what=what)
                bad.counts[text] = bad.counts.get(text, 0) + count
                first = int(np.argmax(hit))
                if bad.first_index < 0 or first < bad.first_index:
                    bad.first_index, bad.first = first, f"{text}{describe(first, what)}"
                keep &= ~hit
    return keep, bad


def settle(path: str | Path, bad: BadTimes, total: int, noun: str = "events") -> None:
    """Raise when bad times are most of the file's `total` events; else warn once."""
    if not bad.total:
        return
    where = bad.first
    if bad.first_index >= 0:
        where = f"{noun[:-1] if noun.endswith('s') else noun} {bad.first_index}: {where}"
    if 2 * bad.total > total:
        raise InputError(path, f"{where} ({bad.total} of {total} {noun} have no usable time)")
    kinds = ", ".join(f"{n} {problem}" for problem, n in sorted(bad.counts.items()))
    notices.warn(
        path, f"{bad.total} of {total} {noun} left out for unusable times ({kinds}); "
        f"the first: {where}",
    )  # fmt: skip
