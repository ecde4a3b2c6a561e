"""`mindinsight advise PATH`: the ranked findings of one worker, as text or JSON.

`--fail-on S` exits 3 when a finding of severity S or higher is shown, so a CI pipeline can
gate on performance regressions the way it gates on tests.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import TYPE_CHECKING

import msgspec

from mindinsight_profiler.cli.options import (
    add_cache_options,
    add_device_option,
    add_rules_option,
    configured_options,
    pick_input,
)
from mindinsight_profiler.formats.sources import parse_location

if TYPE_CHECKING:  # the advisor is loaded by this command only, not by every `mindinsight`
    from mindinsight_profiler.advisor.model import Advice, Evidence, Finding

#: Exit status when `--fail-on` matches a finding.
EXIT_FINDINGS = 3
SEVERITIES = ("high", "medium", "low")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("advise", help="optimisation advice for one worker of a run")
    p.add_argument(
        "path", type=parse_location,
        help="a trace file, or a run folder; or an s3://, gs://, az://, file:// URL",
    )  # fmt: skip
    p.add_argument("--worker", help="worker to advise on (default: the first)")
    p.add_argument("--run", help="run to read when the folder holds several (its name)")
    p.add_argument("--span", help="span (default: the worker's first)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the text output")
    p.add_argument(
        "--min-severity",
        choices=SEVERITIES,
        default="low",
        help="show findings of this severity or higher",
    )
    p.add_argument(
        "--fail-on",
        choices=SEVERITIES,
        help=f"exit {EXIT_FINDINGS} when a shown finding has this severity or higher",
    )
    add_rules_option(p)
    add_device_option(p)
    add_cache_options(p)
    p.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="text: also list the rules checked and those not evaluated",
    )


def _at_least(f: Finding, severity: str) -> bool:
    from mindinsight_profiler.advisor.model import SEVERITY_RANK

    return SEVERITY_RANK[f.severity] <= SEVERITY_RANK[severity]


def _evidence(e: Evidence, lang: str = "en") -> str:
    """`label = value unit`, times in whole microseconds, shares as percentages."""
    text = (e.label_zh if lang == "zh" else None) or e.label
    if e.value is None:
        return text
    if e.unit in ("us", "ns", "bytes", "count"):
        value = f"{e.value:,.0f}"
    elif e.unit == "ratio":
        return f"{text} = {e.value:.1%}"
    else:
        value = f"{e.value:,.4g}"
    if value in text:  # the label states it already
        return text
    return f"{text} = {value}" + (f" {e.unit}" if e.unit and e.unit != "count" else "")


def render_text(advice: Advice, lang: str = "en", verbose: bool = False) -> str:
    """The findings as readable text (one block per finding, most valuable first)."""
    out = [
        f"{len(advice.findings)} finding(s) from {advice.rules} rules "
        f"({len(advice.checked)} checked and fine, {len(advice.not_evaluated)} not evaluated)"
    ]
    if advice.window_limit is not None:
        out += textwrap.wrap(getattr(advice.window_limit, lang), 96, subsequent_indent="  ")
    if advice.combined_saving_us:
        share = advice.combined_saving_share or 0.0
        out.append(
            f"together they could save about {advice.combined_saving_us / 1000:,.2f} ms per "
            f"step ({share:.1%}): time several findings are about is counted once"
        )
    for i, f in enumerate(advice.findings, 1):
        saving = (
            f", saves up to {f.estimated_saving_us / 1000:,.2f} ms/step"
            if f.estimated_saving_us
            else ""
        )
        out.append(
            f"\n{i}. [{f.severity.upper()}] {getattr(f.title, lang)}  ({f.id}, "
            f"{f.category}{saving})"
        )
        out += textwrap.wrap(
            getattr(f.message, lang), 96, initial_indent="   ", subsequent_indent="   "
        )
        for a in f.actions:
            out += textwrap.wrap(
                getattr(a, lang), 96, initial_indent="   - ", subsequent_indent="     "
            )
        if f.evidence:
            shown = "; ".join(_evidence(e, lang) for e in f.evidence[:5])
            out.append(f"   evidence: {shown}" + (" ..." if len(f.evidence) > 5 else ""))
        if f.docs:
            out.append(f"   see {f.docs}")
    if verbose:
        out.append("\nchecked and fine: " + (", ".join(c.id for c in advice.checked) or "none"))
        for n in advice.not_evaluated:
            out.append(f"not evaluated: {n.id}: {n.reason or ', '.join(n.missing)}")
    return "\n".join(out) + "\n"


def run(args: argparse.Namespace) -> int:
    from mindinsight_profiler.advisor.rules import load_rules
    from mindinsight_profiler.pipeline.advice import advise_file

    load_rules(args.rules_dir)  # a bad rule file is reported before minutes of analysis
    options = configured_options(args)  # read where settings enter
    workspace, run_, file = pick_input(args, "advising on")
    advice = advise_file(file, run_, workspace, args.rules_dir, options)
    advice.findings = [f for f in advice.findings if _at_least(f, args.min_severity)]
    if args.format == "json":
        sys.stdout.write(msgspec.json.encode(advice).decode() + "\n")
    else:
        sys.stdout.write(render_text(advice, args.lang, args.verbose))
    if args.fail_on and any(_at_least(f, args.fail_on) for f in advice.findings):
        return EXIT_FINDINGS
    return 0
