"""Strings and enums of torch_npu's profiler database, mapped onto the model's string table.

Every text in the database is an id into `STRING_IDS` (names, op types, shapes, task
types); enumerations have their own tables (`ENUM_API_TYPE`, `ENUM_HCCL_TRANSPORT_TYPE`,
...). `Names` reads them once and turns columns of ids into codes of our `StringTable`
(one intern per distinct id, the rest vectorised). An id the table lacks reads as absent
(-1) rather than failing: a half-written export still shows what it has.
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.formats.ascend.db_file import DbFile
from mindinsight_profiler.model.strings import StringTable

#: ENUM_API_TYPE as msprof documents it, for databases that lack the table.
API_TYPES = {
    5000: "runtime",
    5500: "hccl",
    10000: "node",
    15000: "model",
    20000: "acl",
    50001: "op",
    50002: "queue",
    50003: "trace",
    50004: "mstx",
}
#: The prefix trace_view.json gives CANN API calls of each level (`AscendCL@aclnnMm`, ...).
CANN_PREFIX = {
    "acl": "AscendCL",
    "node": "Node",
    "hccl": "Hccl",
    "communication": "Hccl",
    "runtime": "Runtime",
    "model": "Model",
}


def clean(text: str) -> str:
    """Shapes, dtypes and stacks with torch_npu's `;\\r\\n` separators made plain `;`
    (as the text reader does with the same cells of trace_view.json)."""
    return text.replace("\r\n", "").replace("\n", "")


class Names:
    """`STRING_IDS` and the enum tables of one database, and their codes in `strings`."""

    def __init__(self, db: DbFile, strings: StringTable) -> None:
        self.strings = strings
        self.ids: dict[int, str] = {}
        if db.has("STRING_IDS"):
            for i, v in db.texts("SELECT id, value FROM STRING_IDS"):
                if isinstance(i, int):
                    self.ids[i] = "" if v is None else str(v)
        self.api_types = dict(API_TYPES)
        self.api_types.update(self.enum(db, "ENUM_API_TYPE"))

    @staticmethod
    def enum(db: DbFile, table: str) -> dict[int, str]:
        if not db.has(table):
            return {}
        rows = db.texts(f'SELECT id, name FROM "{table}"')
        return {int(i): str(n) for i, n in rows if isinstance(i, int)}

    def text(self, string_id: int) -> str:
        return self.ids.get(int(string_id), "")

    def codes(self, ids: np.ndarray, transform: object = None) -> np.ndarray:
        """Codes in `strings` of a column of string ids (-1 where absent or empty)."""
        uniq, inverse = np.unique(ids, return_inverse=True)
        mapped = np.full(len(uniq), -1, dtype=np.int32)
        for j, i in enumerate(uniq.tolist()):
            value = self.ids.get(i)
            if value is not None and callable(transform):
                value = transform(value)
            if value:
                mapped[j] = self.strings.intern(value)
        return mapped[inverse.ravel()] if len(ids) else np.zeros(0, dtype=np.int32)

    def coded(self, values: list[str]) -> np.ndarray:
        """Codes of plain strings (one intern per distinct value)."""
        seen: dict[str, int] = {}
        out = [seen.setdefault(v, self.strings.intern(v)) if v else -1 for v in values]
        return np.array(out, dtype=np.int32)
