"""The run list and one run's inputs (`/runs`, `/runs/<run>`).

Producers: `server.services.run_json` and `server.state.StateStore`. A run's state is the
worst of its inputs'; `progress` is present while it is queued or analysed, `error` once an
input failed, `summary` once one is analysed (the first analysed input speaks for the run),
`pending` while the advice or the timeline index of a ready input is still being built.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from mindinsight_profiler.analysis.schema.base import Record
from mindinsight_profiler.analysis.schema.steps import StepsCovered

RunState = Literal["queued", "analysing", "ready", "failed"]
#: What follows an input's overview (`server.stages`), in the order it is built.
StageName = Literal["advice", "timeline"]


class RunSummary(Record, frozen=True, kw_only=True):
    """The run list's badges (`server.jobs.input_summary`): framework, device, steps.

    Copied from the report's required fields (`framework`, `device_type`, `steps.count`,
    `steps.average_us`), so never null.
    """

    framework: Literal["pytorch", "mindspore", "unknown"]
    device: Literal["gpu", "npu", "cpu"]
    steps: int
    step_us: float
    step_covered: StepsCovered  # which steps `step_us` covers (`steps.covered`)


class Run(Record, frozen=True, kw_only=True):
    """One run of the run list."""

    id: str
    name: str  # its folder relative to the summary base dir
    workers: list[str]
    formats: list[str]
    pages: list[str]  # the dashboard pages its formats can have, in menu order
    notes: list[str]  # what discovery left out of the run and why
    state: RunState
    progress: float | msgspec.UnsetType = msgspec.UNSET  # percent
    error: str | msgspec.UnsetType = msgspec.UNSET
    summary: RunSummary | msgspec.UnsetType = msgspec.UNSET
    # stages of a ready input still queued or being built (the overview is served meanwhile)
    pending: list[StageName] | msgspec.UnsetType = msgspec.UNSET


class RunList(Record, frozen=True, kw_only=True):
    """`/runs`."""

    runs: list[Run]


class StageState(Record, frozen=True, kw_only=True):
    """One stage after the overview: its state, and the reason (naming the file) it failed."""

    state: RunState
    error: str | msgspec.UnsetType = msgspec.UNSET


class InputStages(Record, frozen=True, kw_only=True):
    """The advice and the timeline index of a ready input (`server.stages`)."""

    advice: StageState
    timeline: StageState


class RunInput(Record, frozen=True, kw_only=True):
    """One input (worker and span) of a run, and its own analysis state."""

    worker: str
    span: str
    state: RunState
    progress: float | msgspec.UnsetType = msgspec.UNSET
    error: str | msgspec.UnsetType = msgspec.UNSET
    stages: InputStages | msgspec.UnsetType = msgspec.UNSET  # once the overview is ready


class RunDetail(Run, frozen=True, kw_only=True):
    """`/runs/<run>`: the run and each of its inputs."""

    inputs: list[RunInput]
