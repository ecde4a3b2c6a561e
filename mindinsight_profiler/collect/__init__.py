"""Collection in a training script: `Profiler(...)`, then `profiler.analyse()`."""

from mindinsight_profiler.collect.profiler import Profiler

__all__ = ["Profiler"]
