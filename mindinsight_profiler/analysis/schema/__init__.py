"""The typed contract of the report: one frozen msgspec struct per section (issue 14).

`build_report` still returns a plain dict; `codec.to_report` checks one against these
declarations and `codec.report_builtins` gives it back unchanged, byte for byte once
printed. `docs/schema/report.schema.json` is generated from them (`scripts/gen_schema.py`).
"""

from mindinsight_profiler.analysis.schema.codec import (
    report_builtins,
    to_analyse_output,
    to_report,
)
from mindinsight_profiler.analysis.schema.report import AnalyseOutput, Report

__all__ = ["AnalyseOutput", "Report", "report_builtins", "to_analyse_output", "to_report"]
