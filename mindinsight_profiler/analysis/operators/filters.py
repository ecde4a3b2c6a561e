"""The Profiler's operator filters: subgraph, optypes_to_deal and optypes_not_deal.

MindInsight filters operator statistics by graph (`Default` = forward, `Gradients` =
backward) and by operator type. For PyTorch traces we define (docs/definitions.md):
- an operator's type is its name without the namespace (`aten::addmm` -> `addmm`), or for
  MindSpore's scoped names the last scope without the instance suffix
  (`Default/network/Conv2D-op12` -> `Conv2D`); a filter entry matches the full name or the type;
- a backward operator is one inside an `autograd::engine::evaluate_function: ...` range
  (where the autograd engine runs gradient functions), or such a range itself; in MindSpore,
  one in the `Gradients/` scope (`Default/` is the forward graph).
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.analysis.categories import op_type
from mindinsight_profiler.analysis.operators.stats import OpTree
from mindinsight_profiler.model.trace import Trace

BACKWARD_PREFIX = "autograd::engine::evaluate_function"
MINDSPORE_BACKWARD_SCOPE = "Gradients/"
_SUBGRAPH = {"all": None, "forward": False, "Default": False, "backward": True, "Gradients": True}


def backward_nodes(trace: Trace, tree: OpTree) -> np.ndarray:
    """Per node: inside (or being) an autograd evaluate_function range."""
    own = trace.names_matching(lambda s: s.startswith((BACKWARD_PREFIX, MINDSPORE_BACKWARD_SCOPE)))[
        tree.index
    ]
    flag = own.copy()
    anc = tree.parent.copy()
    while (anc >= 0).any():  # one pass per tree level: inherit from every ancestor
        has = anc >= 0
        flag[has] |= own[anc[has]]
        anc = np.where(has, tree.parent[np.clip(anc, 0, None)], -1)
    return flag


def operator_mask(
    trace: Trace,
    tree: OpTree,
    subgraph: str = "all",
    to_deal: tuple[str, ...] = (),
    not_deal: tuple[str, ...] = (),
) -> np.ndarray:
    """Per node: counted as an operator row under the given filters."""
    if subgraph not in _SUBGRAPH:
        raise ValueError(f"unknown subgraph {subgraph!r}")
    mask = tree.is_row.copy()
    want_backward = _SUBGRAPH[subgraph]
    if want_backward is not None:
        mask &= backward_nodes(trace, tree) == want_backward
    if to_deal:
        keep = set(to_deal)
        mask &= trace.names_matching(lambda s: s in keep or op_type(s) in keep)[tree.index]
    if not_deal:
        drop = set(not_deal)
        mask &= ~trace.names_matching(lambda s: s in drop or op_type(s) in drop)[tree.index]
    return mask
