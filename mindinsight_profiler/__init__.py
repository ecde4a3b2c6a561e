"""mindinsight_profiler: training-performance analysis for PyTorch and MindSpore profiles.

Data flows one way: formats/ (readers) -> model/ (one normalised trace) -> store/ (cache)
-> analysis/ (pure functions) -> cli/ (and later server/, advisor/).
"""

from mindinsight_profiler._version import __version__

__all__ = ["__version__"]
