"""The fact registry and every fact module (importing a module registers its facts)."""

from mindinsight_profiler.advisor.facts import (  # noqa: F401  (registration)
    aicore_freq,
    ascend,
    block_dim,
    cluster,
    cluster_ms,
    comm_split,
    communication,
    compute,
    config,
    data_pipeline,
    hccl_packets,
    host,
    memory,
    minddata,
    npu,
    operators,
    perf,
    stability,
    steps,
    window,
)
from mindinsight_profiler.advisor.facts.registry import (
    FACTS,
    Context,
    FactSpec,
    Observed,
    Unavailable,
    fact,
)

__all__ = ["FACTS", "Context", "FactSpec", "Observed", "Unavailable", "fact"]
