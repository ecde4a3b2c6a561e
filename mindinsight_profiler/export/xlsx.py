"""The Excel workbook: a Summary sheet, then one sheet per table of `export.columns.ALL`.

Cells are real numbers (never numbers as text; an unknown value is an empty cell), text is
always written as text (a name starting with "=" is not a formula), headers carry the
unit, and every sheet has its header row frozen and a filter on it. XlsxWriter's
constant-memory mode writes each row as it comes, so the large tables (allocations,
operators by input shape) never sit in memory whole. It is written into the temporary file
`export.write.write_format` renames over the target: a reader never sees half a workbook.
"""

from __future__ import annotations

import json
import math
from typing import IO, Any

import xlsxwriter  # type: ignore[import-untyped]
from xlsxwriter.format import Format  # type: ignore[import-untyped]
from xlsxwriter.worksheet import Worksheet  # type: ignore[import-untyped]

from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.export.bundle import EXPORT_SCHEMA_VERSION, ReportBundle, trace_of
from mindinsight_profiler.export.columns import Column
from mindinsight_profiler.export.headline import device_name, figures
from mindinsight_profiler.export.tables import Table, tables
from mindinsight_profiler.formats.discovery import TraceFile
from mindinsight_profiler.store.cache import Workspace

#: Number formats by a column's `fmt` (export.columns); text and booleans have none.
NUMBER_FORMATS = {
    "int": "#,##0", "bytes": "#,##0", "us": "#,##0.0##", "ms": "#,##0.000",
    "mb": "#,##0.00", "float": "#,##0.0###", "ratio": "0.00%", "percent": "0.00",
}  # fmt: skip
#: Rows streamed to disk as written; text is never turned into numbers, formulas or links.
WORKBOOK_OPTIONS = {"constant_memory": True, "strings_to_numbers": False,
                    "strings_to_formulas": False, "strings_to_urls": False}  # fmt: skip
#: Excel's limits: rows per sheet, characters per cell.
MAX_ROWS = 1_048_576
MAX_CELL_CHARS = 32_767
MIN_WIDTH, MAX_WIDTH = 8, 60
#: Rows whose cells set the column widths.
WIDTH_ROWS = 2000


class _Sheet:
    """One worksheet being written row by row, remembering each column's widest cell."""

    def __init__(self, ws: Worksheet, columns: tuple[Column, ...], lang: str,
                 formats: dict[str, Format], header: Format) -> None:  # fmt: skip
        self.ws, self.columns, self.formats = ws, columns, formats
        self.widths = [len(c.header(lang)) * (2 if lang == "zh" else 1) + 2 for c in columns]
        self.cell_formats = [formats.get(c.fmt) for c in columns]
        for i, c in enumerate(columns):
            ws.write_string(0, i, c.header(lang), header)
        self.row = 1

    def write(self, values: list[Any], fmts: list[str] | None = None) -> None:
        """One row; `fmts`: each cell's number format key (default: its column's). The
        widths are measured on the first `WIDTH_ROWS` rows (a long table costs no more)."""
        cell_formats = self.cell_formats if fmts is None else [self.formats.get(f) for f in fmts]
        row, ws = self.row, self.ws
        self.row += 1
        if row <= WIDTH_ROWS:
            for i, value in enumerate(values):
                if value is not None:
                    self.widths[i] = max(self.widths[i], _cell(ws, row, i, value, cell_formats[i]))
            return
        # past the measured rows: the common types inline (a long table is mostly this loop)
        for i, value in enumerate(values):
            kind = type(value)
            if kind is str and len(value) <= MAX_CELL_CHARS:
                ws.write_string(row, i, value)
            elif kind is int:
                ws.write_number(row, i, value, cell_formats[i])
            elif value is not None:
                _cell(ws, row, i, value, cell_formats[i])

    def note(self, text: str, fmt: Format) -> None:
        self.ws.write_string(self.row, 0, text, fmt)
        self.row += 1

    def close(self) -> None:
        last = max(self.row - 1, 0)
        self.ws.freeze_panes(1, 0)
        self.ws.autofilter(0, 0, last, max(len(self.columns) - 1, 0))
        for i, w in enumerate(self.widths):
            self.ws.set_column(i, i, min(max(w, MIN_WIDTH), MAX_WIDTH))


def _cell(ws: Worksheet, row: int, col: int, value: Any, fmt: Format | None) -> int:
    """Write one value (not None) as its type; the width it needs (characters). A number
    that is not finite is an empty cell (a workbook has no NaN)."""
    kind = type(value)
    if kind is str:
        ws.write_string(row, col, value[:MAX_CELL_CHARS])
        return len(value) if "\n" not in value else max(map(len, value.splitlines()))
    if kind is bool:
        ws.write_boolean(row, col, value)
        return 5
    if kind is int or kind is float or isinstance(value, (int, float)):
        if not math.isfinite(value):
            return 0
        ws.write_number(row, col, value, fmt)
        return len(str(value)) + 2
    return _cell(ws, row, col, json.dumps(value, separators=(",", ":")), fmt)


def _summary_rows(bundle: ReportBundle, lang: str) -> list[tuple[str, Any, str | None]]:
    """(field, value, number format key) of the Summary sheet."""
    zh = lang == "zh"
    r = bundle.report
    rows: list[tuple[str, Any, str | None]] = [
        ("运行" if zh else "Run", bundle.run, None),
        ("Worker", bundle.worker, None),
        ("Span", bundle.span, None),
        ("来源" if zh else "Source", bundle.source, None),
        ("输入格式" if zh else "Input format", r.get("format"), None),
        ("框架" if zh else "Framework", r.get("framework"), None),
        ("设备" if zh else "Device", f"{device_name(r)} ({r.get('device_type')})", None),
        ("版本" if zh else "mindinsight_profiler version", bundle.version, None),
        ("导出格式版本" if zh else "Export schema version", EXPORT_SCHEMA_VERSION, "int"),
        ("生成时间 (UTC)" if zh else "Generated (UTC)", bundle.generated_at, None),
        ("时间零点" if zh else "Time zero",
         "时间 (us) 自 trace 的第一个事件起 (与时间线相同)" if zh
         else "times (us) count from the trace's first event, as on the timeline", None),
    ]  # fmt: skip
    return rows


def _write_summary(wb: xlsxwriter.Workbook, bundle: ReportBundle, lang: str,
                   formats: dict[str, Format], header: Format) -> None:  # fmt: skip
    zh = lang == "zh"
    columns = (Column("field", "Field", "项目"), Column("value", "Value", "数值"),
               Column("share", "Share of the step", "占迭代比例", "ratio"),
               Column("note", "Note", "说明"))  # fmt: skip
    sheet = _Sheet(wb.add_worksheet("摘要" if zh else "Summary"), columns, lang, formats, header)
    for field, value, fmt in _summary_rows(bundle, lang):
        sheet.write([field, value], ["text", fmt or "text"])
    for f in figures(bundle):
        unit = {"us": " (us)", "bytes": " (bytes)"}.get(f.fmt, "")
        sheet.write(
            [f.label(lang) + unit, f.value, f.share, f.note], ["text", f.fmt, "ratio", "text"]
        )
    sheet.close()


def _write_table(wb: xlsxwriter.Workbook, table: Table, lang: str,
                 formats: dict[str, Format], header: Format, italic: Format) -> int:  # fmt: skip
    """One table's sheet; the number of data rows written."""
    sheet = _Sheet(wb.add_worksheet(table.spec.title(lang)), table.columns, lang, formats,
                   header)  # fmt: skip
    keys = [c.key for c in table.columns]
    count = 0
    for row in table.rows:
        if sheet.row >= MAX_ROWS - 1:
            sheet.note(f"cut at Excel's {MAX_ROWS:,} rows: the rest is not shown", italic)
            break
        sheet.write([row.get(k) for k in keys])
        count += 1
    note = table.note_text(lang)
    if count == 0 and note:
        sheet.note(note, italic)
    sheet.close()
    return count


def write_xlsx(
    bundle: ReportBundle,
    out: IO[bytes],
    lang: str = "en",
    file: TraceFile | None = None,
    workspace: Workspace | None = None,
    options: Options = DEFAULT_OPTIONS,
) -> None:
    """One sheet per table, numeric cells, units in the headers, frozen headers, filters,
    into `out` (`export.write.write_format` makes it the temporary file it renames).
    `file` gives the tables read from the cached trace (None: those sheets say so)."""
    trace = trace_of(file, workspace, options) if file is not None else None
    wb = xlsxwriter.Workbook(out, WORKBOOK_OPTIONS)
    header = wb.add_format({"bold": True, "bg_color": "#E8EEF7", "bottom": 1})
    italic = wb.add_format({"italic": True, "font_color": "#555555"})
    formats = {k: wb.add_format({"num_format": v}) for k, v in NUMBER_FORMATS.items()}
    _write_summary(wb, bundle, lang, formats, header)
    for table in tables(bundle, trace, lang):
        _write_table(wb, table, lang, formats, header, italic)
    wb.close()
