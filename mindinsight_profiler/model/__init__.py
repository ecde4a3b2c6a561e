"""The normalised trace model: every reader produces it, every analysis consumes only it."""

from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.strings import StringTable
from mindinsight_profiler.model.trace import SCHEMA_VERSION, Trace

__all__ = ["SCHEMA_VERSION", "Kind", "StringTable", "Trace"]
