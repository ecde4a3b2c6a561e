"""The envelope every per-worker answer shares, and the fields of a paged table.

The answers are declared as msgspec structs for the same reason the report is: one
declaration that the server's real output is checked against (`tests/server/test_answer_drift.py`),
that `docs/schema/api.schema.json` is generated from, and that the dashboard's TypeScript
types are generated from (`ui/src/api/generated/api.ts`). A field the UI reads that the
server stops sending is then a failed type check, not a blank page.

They reuse `analysis.schema.base.Record` (frozen, keyword-built, unknown keys rejected), so a
route that starts sending a key nobody declared fails the drift test too.
"""

from __future__ import annotations

from typing import Literal

from mindinsight_profiler.analysis.schema.base import Record

Order = Literal["asc", "desc"]


class Where(Record, frozen=True, kw_only=True):
    """Which input an answer describes: the run's id, the worker and its span ("" if one)."""

    run: str
    worker: str
    span: str


class PageFields(Where, frozen=True, kw_only=True):
    """One page of a server-sorted, searched table (the rows are the subclass's).

    `total` counts every matching row, not just this page's; `sort` is the column the rows
    are sorted by (the default when the request named none).
    """

    sort: str
    order: Order
    total: int
    offset: int
    limit: int
