"""The advisor's data: rule files as read from `rules/`, and the findings it reports.

Both are msgspec structs so that a rule file is validated field by field when it is read
(a typo in a rule is an error naming the file, not a silently skipped rule) and so that the
JSON schemas published in `docs/` are generated from the same definitions the code uses.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

#: Bump when the advice document gains or changes fields (stored advice is rebuilt).
ADVICE_VERSION = 5  # 4: claims, combined_saving_us/_share, ledger_us; 5: window_limit

Category = Literal[
    "data_pipeline",
    "host_overhead",
    "device_compute",
    "memory",
    "communication",
    "synchronization",
    "operator",
    "optimizer",
    "precision",
    "step_stability",
    "configuration",
]
Severity = Literal["high", "medium", "low"]
SEVERITY_RANK: dict[str, int] = {"high": 0, "medium": 1, "low": 2}


class Text(msgspec.Struct, forbid_unknown_fields=True):
    """One text in English and Chinese; `{name}` or `{name:.1%}` insert a fact or parameter."""

    en: str
    zh: str


DeviceType = Literal["gpu", "npu", "cpu"]
Framework = Literal["pytorch", "mindspore"]


class Action(Text, forbid_unknown_fields=True):
    """An action of a rule, shown only on the devices and frameworks it fits (empty: all):
    CUDA advice never reaches an Ascend run, torch_npu advice never a MindSpore one."""

    devices: list[DeviceType] = []
    frameworks: list[Framework] = []

    def fits(self, device: str | None, framework: str | None) -> bool:
        return (not self.devices or device in self.devices) and (
            not self.frameworks or framework in self.frameworks
        )


class Graded(msgspec.Struct, forbid_unknown_fields=True):
    """Severity graded by an expression (default: the estimated saving as a share of the step).

    high when `by >= high`, medium when `by >= medium`, else low.
    """

    high: float
    medium: float
    by: str = "saving_share"


class Rule(msgspec.Struct, forbid_unknown_fields=True):
    """One rule file in `rules/` (see rules/README.md)."""

    id: str
    category: Category
    title: Text
    message: Text
    facts: list[str]
    when: str
    severity: Severity | Graded
    actions: list[Action] = []
    params: dict[str, float | int | str | bool] = {}
    saving_us: str | None = None
    # facts only `saving_us` reads: when one is unavailable the finding stands, without a
    # saving (a MindData queue finding holds without steps; its saving is the steps' wait)
    saving_facts: list[str] = []
    claims: list[str] = []  # ledger parts the saving comes from (advisor/ledger.py)
    # judges steady-state timing: not evaluated on a window that is mostly one-off work
    steady_state: bool = False
    evidence: list[str] = []
    requires: list[str] = []
    suppresses: list[str] = []
    docs: str | None = None
    sources: list[str] = []


class Evidence(msgspec.Struct, omit_defaults=True):
    """What made a rule fire; the fields that are set say where to look.

    `page` names the dashboard page; `step`, `name` (operator, kernel, queue or pipeline op),
    `rank` and `start_ns`/`end_ns` (a time range for the timeline) locate it there.
    """

    kind: Literal[
        "step", "operator", "operator_type", "kernel", "rank", "time_range", "queue",
        "pipeline_op", "metric",
    ]  # fmt: skip
    label: str
    page: str
    label_zh: str | None = None  # the label in Chinese (advisor/labels.py)
    value: float | None = None
    unit: str | None = None
    step: str | None = None
    name: str | None = None
    rank: int | None = None
    start_ns: int | None = None
    end_ns: int | None = None


class Finding(msgspec.Struct):
    """A rule that fired on this run."""

    id: str
    category: Category
    severity: Severity
    title: Text
    message: Text
    actions: list[Text]
    estimated_saving_us: float | None
    saving_share: float | None
    evidence: list[Evidence]
    facts: dict[str, Any]
    docs: str | None = None
    claims: list[str] = []  # the ledger parts its saving comes from (advisor/ledger.py)


class Checked(msgspec.Struct):
    """A rule that was evaluated and did not fire: checked and fine."""

    id: str
    category: Category
    title: Text
    facts: dict[str, Any]


class NotEvaluated(msgspec.Struct):
    """A rule that could not be evaluated, and the facts this input lacks."""

    id: str
    category: Category
    title: Text
    missing: list[str]
    reason: str


class Suppressed(msgspec.Struct):
    """A rule that fired but is hidden by a more specific or more important finding."""

    id: str
    by: str


class Advice(msgspec.Struct):
    """`mindinsight advise --format json`: ranked findings and what else was checked."""

    advice_version: int
    source: str | None
    worker: str | None
    rules: int
    findings: list[Finding]
    checked: list[Checked]
    not_evaluated: list[NotEvaluated]
    suppressed: list[Suppressed]
    # the findings' savings taken once per ledger part: never more than the step
    combined_saving_us: float | None = None
    combined_saving_share: float | None = None
    ledger_us: dict[str, float] | None = None  # the average step's ledger
    # why the window cannot be judged in steady state (sampled, fragment, toy: its
    # steady-state rules are listed as not evaluated); None when it can
    window_limit: Text | None = None
