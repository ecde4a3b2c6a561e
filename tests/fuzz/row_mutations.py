"""Mutations of CSV files and whitespace-separated text files, row by row and cell by cell."""

from __future__ import annotations

import csv
import io
import random
from collections.abc import Callable

from tests.fuzz.values import CELL_TEXTS, file_type, is_number, nested


class Rows:
    """A CSV file (or a whitespace-separated text file) as rows of cells."""

    def __init__(self, data: bytes, name: str) -> None:
        self.csv = file_type(name) == "csv"
        text = data.decode("utf-8-sig")
        if self.csv:
            self.rows = [list(r) for r in csv.reader(io.StringIO(text, newline=""))]
        else:
            self.rows = [line.split() for line in text.splitlines()]
        self.first = 1 if self.csv else 0  # the first data row

    def encode(self) -> bytes:
        if self.csv:
            out = io.StringIO()
            csv.writer(out, lineterminator="\r\n").writerows(self.rows)
            return out.getvalue().encode()
        return "".join(" ".join(r) + "\n" for r in self.rows).encode()

    def data_rows(self) -> list[int]:
        return [i for i in range(self.first, len(self.rows)) if self.rows[i]]

    def numeric_cells(self) -> list[tuple[int, int]]:
        return [
            (i, j)
            for i in self.data_rows()
            for j, c in enumerate(self.rows[i])
            if is_number(c.strip())
        ]


def _rows_number(rows: Rows, rng: random.Random) -> str:
    cells = rows.numeric_cells()
    if not cells:
        return _rows_wrong_type(rows, rng)
    i, j = rng.choice(cells)
    old, text = rows.rows[i][j], rng.choice(CELL_TEXTS)
    if rng.random() < 0.3:  # the whole column
        for k in rows.data_rows():
            if j < len(rows.rows[k]):
                rows.rows[k][j] = text
        return f"column {j}: every cell -> {text!r}"
    rows.rows[i][j] = text
    return f"row {i} cell {j}: {old.strip()!r} -> {text!r}"


def _rows_missing_field(rows: Rows, rng: random.Random) -> str:
    if not rows.rows or not rows.rows[0]:
        return "nothing to remove"
    how = rng.choice(("column", "cell", "cell_gone"))
    data = rows.data_rows()
    if how == "column" or not data:
        j = rng.randrange(len(rows.rows[0]))
        for r in rows.rows:
            if j < len(r):
                del r[j]
        return f"column {j} removed"
    i = rng.choice(data)
    j = rng.randrange(len(rows.rows[i]))
    if how == "cell":
        rows.rows[i][j] = ""
        return f"row {i} cell {j} blanked"
    del rows.rows[i][j]
    return f"row {i} cell {j} removed (the row is short)"


def _rows_duplicate(rows: Rows, rng: random.Random) -> str:
    data = rows.data_rows()
    if not data:
        return "nothing to duplicate"
    i = rng.choice(data)
    n = rng.choice((1, 2, 50))
    rows.rows[i + 1 : i + 1] = [list(rows.rows[i]) for _ in range(n)]
    return f"row {i} copied {n} time(s)"


def _rows_remove(rows: Rows, rng: random.Random) -> str:
    data = rows.data_rows()
    if not data:
        return "nothing to remove"
    how = rng.choice(("one", "some", "all", "header"))
    if how == "header" and rows.csv:
        del rows.rows[0]
        return "header row removed"
    if how == "all" or (how == "header" and not rows.csv):
        rows.rows[rows.first :] = []
        return "every data row removed"
    drop = set(rng.sample(data, 1 if how == "one" else max(1, len(data) // 2)))
    rows.rows = [r for k, r in enumerate(rows.rows) if k not in drop]
    return f"{len(drop)} row(s) removed"


def _rows_deep(rows: Rows, rng: random.Random) -> str:
    data = rows.data_rows()
    if not data:
        return "nothing to nest"
    i = rng.choice(data)
    j = rng.randrange(len(rows.rows[i]))
    deep = nested(rng).decode()
    rows.rows[i][j] = deep if rows.csv else deep.replace(" ", "")
    return f"row {i} cell {j} -> nested {len(deep) // 2} deep"


def _rows_wrong_type(rows: Rows, rng: random.Random) -> str:
    data = rows.data_rows()
    if not data:
        return "nothing to retype"
    i = rng.choice(data)
    j = rng.randrange(len(rows.rows[i]))
    old = rows.rows[i][j]
    text = rng.choice(("abc", "[1, 2]", '{"a": 1}', "True", "None", "N/A", "12abc", "-"))
    rows.rows[i][j] = text if rows.csv else text.replace(" ", "")
    return f"row {i} cell {j}: {old.strip()!r} -> {text!r}"


MUTATIONS: dict[str, Callable[[Rows, random.Random], str]] = {
    "number": _rows_number,
    "missing_field": _rows_missing_field,
    "duplicate": _rows_duplicate,
    "remove": _rows_remove,
    "deep_nesting": _rows_deep,
    "wrong_type": _rows_wrong_type,
}
