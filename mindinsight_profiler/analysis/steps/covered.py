"""Which steps an average covers, said with the average itself (`covered` in the report).

Every average the dashboard shows on more than one page (the mean step, the step-trace
stages, communication per step, data wait, MFU) is a mean over some of the profiled steps:
MindSpore's step trace leaves out the first step (graph compilation), and a communication
file may time fewer steps than the step trace. A reader comparing two pages cannot tell from
the numbers alone whether they describe the same steps, so each average carries this
description and every page prints it next to the figure (the UI's `AverageNote`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def steps_covered(
    names: Sequence[str], averaged: Sequence[str], compiling: Sequence[str] = ()
) -> dict[str, Any]:
    """The description of an average over `averaged` out of the profiled steps `names`.

    `left_out` lists the steps of `names` the average does not count, in their order;
    `compile` those of them left out because they carry graph compilation (`compiling`,
    MindSpore's first step, `boundaries.averaged_from`); the others are steps the section's
    own files have no figure for. `first`/`last` are the first and last step counted (None
    when no step is: an empty window).
    """
    counted = set(averaged)
    left_out = [n for n in names if n not in counted]
    compiled = set(compiling)
    return {
        "count": len(averaged),
        "first": averaged[0] if averaged else None,
        "last": averaged[-1] if averaged else None,
        "left_out": left_out,
        "compile": [n for n in left_out if n in compiled],
    }
