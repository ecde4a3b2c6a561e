"""The fact registry and every fact module (importing a module registers its facts)."""

from mindinsight_profiler.advisor.facts import (  # noqa: F401  (registration)
    cluster,
    cluster_ms,
    cluster_pipeline,
    communication,
    compiled,
    compute,
    config,
    create_on_device,
    data_pipeline,
    debug,
    device_copies,
    device_ops,
    device_sync,
    fusion,
    graphs,
    host,
    host_cpu,
    ledger,
    memory,
    memory_capacity,
    minddata,
    npu,
    operators,
    perf,
    perf_compute,
    stability,
    steps,
    sync_inferred,
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
