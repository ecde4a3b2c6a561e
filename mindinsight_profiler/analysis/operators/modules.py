"""Module view: time per `nn.Module`, from the `python_function` events of `with_stack`
(on torch 2.13 in eager mode `with_modules` alone records none).

torch names a module's forward `nn.Module: <Class>_<n>` (one name per module instance). A
module's host total is its duration, its host self the part not inside child modules; its
device self is the device time of the operators whose innermost module it is, its device
total that of all operators under it. Grouped by name; each row names its parent module.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.analysis.operators.stats import OpTree, accumulate_up
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.links import innermost_enclosing, nesting_parents
from mindinsight_profiler.model.trace import Trace

MODULE_PREFIX = "nn.Module: "


def module_section(trace: Trace, tree: OpTree) -> dict[str, Any] | None:
    """Per module (by name): occurrences, host and device self/total, parent; None without."""
    ev = trace.events
    is_module = trace.names_matching(lambda s: s.startswith(MODULE_PREFIX))
    mods = np.flatnonzero(is_module & (ev["kind"] == Kind.PYTHON_FUNCTION))
    if len(mods) == 0:
        return None
    local = np.full(len(ev["kind"]), -1, dtype=np.int64)
    local[mods] = np.arange(len(mods))
    # Parent module: the innermost other module whose range covers this one.
    parent = nesting_parents(ev["track"][mods], ev["start_ns"][mods], ev["end_ns"][mods])
    dur = (ev["end_ns"][mods] - ev["start_ns"][mods]).astype(np.float64)
    child = np.bincount(parent[parent >= 0], weights=dur[parent >= 0], minlength=len(mods))
    rows = np.flatnonzero(tree.is_row)
    owner = innermost_enclosing(trace, mods, tree.index[rows])
    has = owner >= 0
    dev_self = np.bincount(
        local[owner[has]], weights=tree.device_self_ns[rows][has], minlength=len(mods)
    )
    dev_total = accumulate_up(dev_self, parent)
    names = np.array(trace.strings.lookup(ev["name"][mods]), dtype=object)
    parent_names = np.where(parent >= 0, names[np.clip(parent, 0, None)], None)
    out: dict[str, dict[str, Any]] = {}
    for i, name in enumerate(names.tolist()):
        row = out.setdefault(
            name,
            {"name": name, "parent": parent_names[i], "occurrences": 0, "host_total_us": 0.0,
             "host_self_us": 0.0, "device_self_us": 0.0, "device_total_us": 0.0},
        )  # fmt: skip
        row["occurrences"] += 1
        row["host_total_us"] += dur[i] / 1000.0
        row["host_self_us"] += (dur[i] - child[i]) / 1000.0
        row["device_self_us"] += dev_self[i] / 1000.0
        row["device_total_us"] += dev_total[i] / 1000.0
    return {"modules": sorted(out.values(), key=lambda r: -r["host_total_us"])}
