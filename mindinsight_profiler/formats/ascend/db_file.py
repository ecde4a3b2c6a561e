"""Read-only access to the SQLite files of torch_npu's `export_type=db` output.

torch_npu can write its results as `ascend_pytorch_profiler_<rank>.db` (plus `analysis.db`
for communication) instead of `trace_view.json` and the CSV summaries. These are the
user's files: they are opened with `mode=ro`, and, unless a non-empty write-ahead log lies
beside the file (then SQLite must read it, and may touch its `-shm` index), also with
`immutable=1`, so that SQLite neither locks nor creates `-wal`/`-shm` files in the user's
folder (the exports are written once and never change afterwards; our sample folders are
read-only and one of them is in WAL mode).

Every failure SQLite reports (not a database, a truncated or malformed file, a lock, a
missing table or column) becomes one `InputError` naming the file and SQLite's words, so a
bad file never surfaces as a traceback. Rows come back as numpy columns: every value the
reader needs is an integer (times in ns, string ids, enums) or a float (memory, PMU).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.request import pathname2url

import numpy as np

from mindinsight_profiler.errors import InputError

#: The profiler database's file names (one per rank; no suffix on a single device).
DB_GLOB = "ascend_pytorch_profiler*.db"


def find_db(out: Path) -> Path | None:
    """The profiler database of an ASCEND_PROFILER_OUTPUT folder (the first by name)."""
    found = sorted(p for p in out.glob(DB_GLOB) if p.is_file())
    return found[0] if found else None


def _uri(path: Path) -> str:
    wal = path.with_name(path.name + "-wal")
    has_log = wal.is_file() and wal.stat().st_size > 0
    return f"file:{pathname2url(str(path.resolve()))}?mode=ro" + ("" if has_log else "&immutable=1")


class DbFile:
    """One open SQLite file: its table and column names, and numpy queries on them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if not path.is_file():
            raise InputError(path, "no such file")
        if path.stat().st_size == 0:
            raise InputError(path, "the file is empty (not an SQLite database)")
        try:
            self._conn = sqlite3.connect(_uri(path), uri=True)
        except sqlite3.Error as exc:
            raise InputError(path, f"cannot open the database: {exc}") from None
        rows = self._fetch("SELECT name FROM sqlite_master WHERE type = 'table'")
        self.tables = {str(r[0]) for r in rows}
        self._columns: dict[str, set[str]] = {}

    def close(self) -> None:
        self._conn.close()

    def _fetch(self, sql: str) -> list[tuple[object, ...]]:
        try:
            return self._conn.execute(sql).fetchall()
        except sqlite3.Error as exc:
            raise InputError(self.path, f"cannot read the database ({exc})") from None
        except (OverflowError, ValueError) as exc:  # values out of range for Python's types
            raise InputError(self.path, f"unreadable value in the database ({exc})") from None

    def has(self, table: str) -> bool:
        return table in self.tables

    def columns(self, table: str) -> set[str]:
        if table not in self._columns:
            rows = self._fetch(f'PRAGMA table_info("{table}")')
            self._columns[table] = {str(r[1]) for r in rows}
        return self._columns[table]

    def ints(self, table: str, cols: list[str], where: str = "") -> dict[str, np.ndarray]:
        """Integer columns of `table` (NULL, and columns the table lacks, read as -1; a table
        the file lacks has no rows).

        Text cells holding integers (PYTORCH_API keeps its times as TEXT) are cast by SQLite,
        exactly: its integers are 64-bit.
        """
        return self._select(table, cols, where, "INTEGER", -1, np.int64)

    def floats(self, table: str, cols: list[str], where: str = "") -> dict[str, np.ndarray]:
        """Float columns of `table` (NULL and missing columns read as NaN)."""
        return self._select(table, cols, where, "REAL", "NULL", np.float64)

    def _select(
        self, table: str, cols: list[str], where: str, sql_type: str, fill: object, dtype: type
    ) -> dict[str, np.ndarray]:
        if table not in self.tables:  # an optional table the export lacks: no rows
            return {c: np.zeros(0, dtype=dtype) for c in cols}
        have = self.columns(table)
        exprs = [
            f'COALESCE(CAST("{c}" AS {sql_type}), {fill})' if c in have else str(fill) for c in cols
        ]
        rows = self._fetch(f'SELECT {", ".join(exprs)} FROM "{table}" {where}')
        data: np.ndarray = np.array(rows, dtype=dtype).reshape(len(rows), len(cols))
        return {c: np.ascontiguousarray(data[:, j]) for j, c in enumerate(cols)}

    def texts(self, sql: str) -> list[tuple[object, ...]]:
        """Raw rows of a query (small tables: STRING_IDS, enums, META_DATA)."""
        return self._fetch(sql)


@contextmanager
def open_db(path: Path) -> Iterator[DbFile]:
    db = DbFile(path)
    try:
        yield db
    finally:
        db.close()
