"""The typed contract of the report: one frozen msgspec struct per section (issue 14).

`build_report` assembles a plain dict; the pipeline turns it into a `Report` at once
(`codec.to_report`, which checks every key and type), and that struct is what the cache
stores and reads back typed (`encode_report`/`decode_report`), what the CLI prints and the
server serves (`codec.report_builtins`: the same dict, byte for byte once printed).
`docs/schema/report.schema.json` is generated from the declarations (`scripts/gen_schema.py`).
"""

from mindinsight_profiler.analysis.schema.codec import (
    decode_report,
    encode_report,
    report_builtins,
    report_for,
    to_analyse_output,
    to_report,
)
from mindinsight_profiler.analysis.schema.report import AnalyseOutput, Report

__all__ = [
    "AnalyseOutput",
    "Report",
    "decode_report",
    "encode_report",
    "report_builtins",
    "report_for",
    "to_analyse_output",
    "to_report",
]
