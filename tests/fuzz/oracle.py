"""The oracle of a fuzz case: a clear input error, or a report that is sound.

Sound means: every number finite; no negative duration, time, count or size (the only
signed figures are a memory increase and a collective's start/end relative to its step);
percentages within [0, 100] and fractions within [0, 1]; every warning a string. Anything
else, any exception other than `InputError`, a hang or a memory blow-up is a failure.
"""

from __future__ import annotations

import math
import re
import resource
import signal
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.analysis.schema import report_builtins, to_report
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.detect import read_trace

#: Figures that may be negative: a change, and times relative to a step's origin.
SIGNED = frozenset({"increase_bytes"})
RELATIVE = frozenset({"start_us", "end_us"})  # inside `collectives` only
PERCENT = frozenset(
    {
        "percent", "utilization", "sm_efficiency", "occupancy", "cube_utilization",
        "device_user", "device_sys", "device_idle", "device_io", "process_user",
        "process_sys",
    }
)  # fmt: skip
FRACTION = frozenset(
    {"share", "loader_share", "empty_rate", "full_rate", "tc_self_ratio", "tc_total_ratio"}
)
#: numpy's warnings when a NaN, an infinity or a number out of range became an integer,
#: or a value wrapped around: a silent wrong answer.
_GARBAGE = re.compile(r"invalid value encountered in cast|overflow encountered")
#: A case must finish in this long (generous: only to catch hangs) ...
CASE_SECONDS = 120
#: ... and the process must stay below this peak RSS.
MAX_RSS_BYTES = 3 << 30

#: (target, class, outcome) -> count, for the summary table.
TALLY: Counter[tuple[str, str, str]] = Counter()
OUTCOMES = ("report", "report+warning", "input error", "FAIL")


@dataclass
class Outcome:
    kind: str  # one of OUTCOMES but FAIL
    message: str = ""
    warnings: list[str] = field(default_factory=list)


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    def alarm(signum: int, frame: Any) -> None:
        raise Hang(f"no answer in {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _field(key: str, parent: str) -> str:
    """The figure a dict entry holds: its key, or its parent's for id-keyed maps."""
    return parent if key.lstrip("-").isdigit() else key


def _is_warning(w: object) -> bool:
    """A report warning: {"file": name or None, "message": text} (analysis.input_warnings);
    a reader's meta warning is a plain string."""
    if isinstance(w, str):
        return True
    return (
        isinstance(w, dict)
        and set(w) == {"file", "message"}
        and isinstance(w["message"], str)
        and (w["file"] is None or isinstance(w["file"], str))
    )


def report_problems(node: Any, path: str = "", key: str = "", inside: str = "") -> Iterator[str]:
    """Every place where a report breaks the oracle (see module doc)."""
    if isinstance(node, dict):
        for k, v in node.items():
            k = str(k)
            if k == "warnings":
                if not (isinstance(v, list) and all(_is_warning(w) for w in v)):
                    yield f"{path}.{k}: warnings are not (file, message) records: {v!r:.80}"
                continue
            within = "collectives" if k == "collectives" else inside
            yield from report_problems(v, f"{path}.{k}", _field(k, key), within)
        return
    if isinstance(node, list):
        for i, v in enumerate(node):
            yield from report_problems(v, f"{path}[{i}]", key, inside)
        return
    if isinstance(node, bool) or not isinstance(node, int | float):
        return
    if isinstance(node, float) and not math.isfinite(node):
        yield f"{path} = {node}: not finite"
        return
    signed = key in SIGNED or (key in RELATIVE and inside == "collectives")
    if node < 0 and not signed:
        yield f"{path} = {node}: negative"
    if key in PERCENT and node > 100 + 1e-6:
        yield f"{path} = {node}: a percentage above 100"
    if (key in FRACTION or key.endswith("_ratio")) and node > 1 + 1e-9:
        yield f"{path} = {node}: a fraction above 1"


def _strings(meta: dict[str, Any], key: str) -> list[str]:
    value = meta.get(key, [])
    assert isinstance(value, list) and all(isinstance(w, str) for w in value), (
        f"meta[{key!r}] is not a list of strings: {value!r:.200}"
    )
    return value


def check_error(exc: InputError, root: Path) -> None:
    """An input error names a file or folder of the case, in one line."""
    text = str(exc)
    assert "\n" not in text and exc.problem.strip(), f"not one line: {text!r}"
    named = Path(exc.path).resolve()
    assert named == root.resolve() or root.resolve() in named.parents, (
        f"the error names {exc.path}, not a file of the case: {text}"
    )


def analyse(entry: Path, fmt: str, worker: str, root: Path, base_warnings: set[str]) -> Outcome:
    """Read and analyse one case in this process; AssertionError (or the exception) if unsound."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with time_limit(CASE_SECONDS):
                trace = read_trace(entry, fmt, worker)
                report = report_builtins(to_report(build_report(trace)))
        except InputError as exc:
            check_error(exc, root)
            return Outcome("input error", str(exc))
    garbage = [str(w.message) for w in caught if _GARBAGE.search(str(w.message))]
    assert not garbage, f"numbers made garbage on the way: {garbage[:3]}"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    assert peak < MAX_RSS_BYTES, f"peak RSS {peak >> 20} MB"
    problems = list(report_problems(report))
    assert not problems, "unsound report:\n  " + "\n  ".join(problems[:20])
    said = _strings(trace.meta, "warnings") + _strings(trace.meta, "skipped_files")
    new = [w for w in (w.replace(str(root), "<input>") for w in said) if w not in base_warnings]
    return Outcome("report+warning" if new else "report", warnings=new)  # paths as <input>


def summary_lines() -> list[str]:
    """The outcome counts by mutation class (and the total), as a table."""
    if not TALLY:
        return []
    classes = sorted({c for _, c, _ in TALLY})
    targets = sorted({t for t, _, _ in TALLY})
    width = max(len(c) for c in [*classes, *targets, "mutation class"])
    head = f"{'mutation class':<{width}} " + " ".join(f"{o:>15}" for o in OUTCOMES)
    lines = [head, "-" * len(head)]
    for c in [*classes, "all"]:
        counts = [
            sum(n for (_, cc, o), n in TALLY.items() if (c == "all" or cc == c) and o == out)
            for out in OUTCOMES
        ]
        lines.append(f"{c:<{width}} " + " ".join(f"{n:>15}" for n in counts))
    lines.append("")
    for t in targets:
        counts = [
            sum(n for (tt, _, o), n in TALLY.items() if tt == t and o == out) for out in OUTCOMES
        ]
        lines.append(f"{t:<{width}} " + " ".join(f"{n:>15}" for n in counts))
    return lines
