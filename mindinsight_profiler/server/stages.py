"""What follows an input's overview: its advice, then its timeline index, each a stage.

The overview (the cached report) is what every page starts from, so an input is `ready` as
soon as its report is cached; the background job then builds the advice and the timeline
index, in that order, and records each one's state in the input's state file:

    "stages": {"advice": {"state": "ready", "seconds": 0.8, "rules": "advice-....json"},
               "timeline": {"state": "failed", "error": "<file>: ...", "seconds": 1.2}}

A stage is `queued`, `analysing`, `ready` or `failed` (with the error, naming the file). A
failed stage leaves the overview usable: its route answers 422 with the reason, and the
scheduler does not retry it for the same content (nor, for the advice, the same rules:
`rules` is the name of the advice file it was to write). A `ready` state written before
stages existed (no `stages` key) was written after everything was built: every stage reads
as ready. This module is pure (records in, records out); `jobs` and `scheduler` write them.
"""

from __future__ import annotations

from typing import Any

#: The states of an input and of each of its stages (`state.StateStore` re-exports them).
QUEUED, ANALYSING, READY, FAILED = "queued", "analysing", "ready", "failed"
ADVICE, TIMELINE = "advice", "timeline"
#: In the order the job builds them (the advisor is on every page, the timeline on one).
STAGES = (ADVICE, TIMELINE)
_STATES = (QUEUED, ANALYSING, READY, FAILED)
#: What the messages call each stage.
LABELS = {ADVICE: "advice", TIMELINE: "timeline index"}


def stage_of(record: dict[str, Any] | None, name: str) -> dict[str, Any] | None:
    """The stage's record in an input's state; None while the overview itself is not ready."""
    if record is None or record.get("state") != READY:
        return None
    stages = record.get("stages")
    if not isinstance(stages, dict):
        return {"state": READY}  # written before stages existed: after all of them
    found = stages.get(name)
    if isinstance(found, dict) and found.get("state") in _STATES:
        return found
    return {"state": QUEUED}  # a stage this record does not know yet: it has to be built


def stages_of(record: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Every stage's record (empty while the overview is not ready)."""
    found = {name: stage_of(record, name) for name in STAGES}
    return {name: rec for name, rec in found.items() if rec is not None}


def pending(record: dict[str, Any] | None) -> list[str]:
    """The stages of a ready input still to come (queued or being built), in order."""
    return [n for n, rec in stages_of(record).items() if rec["state"] in (QUEUED, ANALYSING)]


def failed_for(record: dict[str, Any] | None, name: str, rules: str | None = None) -> str | None:
    """The error of a failed stage, or None; a failed advice counts only for the same rules
    (`rules`: the advice file's name now), since other rules may well succeed."""
    found = stage_of(record, name)
    if found is None or found["state"] != FAILED:
        return None
    if name == ADVICE and rules is not None and found.get("rules") not in (None, rules):
        return None
    return _error(name, found)


def _error(name: str, stage: dict[str, Any]) -> str:
    """A failed stage's reason as recorded (naming the file), or a plain one."""
    return str(stage.get("error") or f"the {LABELS[name]} could not be built")


def to_resume(record: dict[str, Any], advice_stored: bool, rules: str) -> tuple[str, ...]:
    """The stages a job must build for a ready input: the advice when its file (for the
    current rules) is missing and it did not fail for them; the timeline index when the
    state says it was queued or being built (a killed job) and not built since."""
    todo = []
    if not advice_stored and failed_for(record, ADVICE, rules) is None:
        todo.append(ADVICE)
    timeline = stage_of(record, TIMELINE)
    if timeline is not None and timeline["state"] in (QUEUED, ANALYSING):
        todo.append(TIMELINE)
    return tuple(todo)


def public_stages(record: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The stages as the run detail shows them: each one's state, and a failure's error."""
    out = {}
    for name, rec in stages_of(record).items():
        item = {"state": rec["state"]}
        if rec["state"] == FAILED:
            item["error"] = _error(name, rec)
        out[name] = item
    return out
