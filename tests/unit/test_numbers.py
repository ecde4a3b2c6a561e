"""Exact microsecond-text -> nanosecond parsing."""

from __future__ import annotations

import random

import numpy as np
import pytest

from mindinsight_profiler.formats.numbers import NumberFormatError, us_text_to_ns


def test_nanosecond_timestamps_are_exact() -> None:
    # float64 holds 1712195495505582.988 only to 0.25 us; the parser must not lose the ns.
    texts = [b"1712195495505582.988", b"1712195495505582.989", b"1623142623460111", b"0"]
    assert us_text_to_ns(texts).tolist() == [
        1712195495505582988,
        1712195495505582989,
        1623142623460111000,
        0,
    ]


def test_mixed_layouts_rounding_and_exponents() -> None:
    texts = [b"-4.5", b"1.5e3", b"12.34567", b"7.0", b"68", b"1.9995", b"0.0004"]
    assert us_text_to_ns(texts).tolist() == [-4500, 1500000, 12346, 7000, 68000, 2000, 0]


def test_random_values_match_decimal_arithmetic() -> None:
    rng = random.Random(7)
    texts, expected = [], []
    for _ in range(2000):
        whole = rng.randrange(0, 9 * 10**15)
        frac = rng.randrange(0, 1000)
        texts.append(f"{whole}.{frac:03d}".encode())
        expected.append(whole * 1000 + frac)
    assert us_text_to_ns(texts).tolist() == expected


@pytest.mark.parametrize("bad", [b'"12"', b"null", b"true", b"1e999", b"-", b"9999999999999999"])
def test_non_numbers_are_rejected_with_their_row(bad: bytes) -> None:
    with pytest.raises(NumberFormatError) as info:
        us_text_to_ns([b"1", b"2", bad])
    assert info.value.index == 2


def test_empty_input() -> None:
    assert us_text_to_ns([]).dtype == np.int64
