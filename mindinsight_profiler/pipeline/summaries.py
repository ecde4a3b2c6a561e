"""Each rank's `rank_summary`, stored in its cache entry beside its report, and read alone.

Every view over all the ranks of a run (the server's `/cluster`, `mindinsight cluster` on
a warm workspace, the advisor's cluster facts) needs each rank's summary: a few hundred
bytes of a report of tens or hundreds of kilobytes. Cutting it from the report meant a
typed decode of the whole report and its conversion to plain data, about 4.5 ms a rank:
4.6-5.5 s for the first cluster page of 1,000 ranks from a warm cache. So `save` writes the
summary into the same cache entry as the report (`reports._save`), listed in the entry's
sealed manifest with its SHA-256 like the report: the same write, the same checks, the same
invalidation and rebuild. Reading it costs the manifest and a small decode.

An entry without a summary of this `SUMMARY_VERSION` (written by an older version), or
whose summary is damaged (checksum, shape), is never served from it: the summary is cut
from the entry's verified report, as before, and added to the entry
(`CacheEntry.add_json`, under the entry's lock) so the next reader finds it.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec

from mindinsight_profiler.analysis.cluster.rank_summary import (
    SUMMARY_KEYS,
    SUMMARY_VERSION,
    rank_summary,
)
from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.analysis.schema import report_for
from mindinsight_profiler.errors import CacheError
from mindinsight_profiler.formats.sources import Source
from mindinsight_profiler.pipeline.keys import SUMMARY_NAME, cache_variant
from mindinsight_profiler.pipeline.reports import analyse_file, stored_report
from mindinsight_profiler.store.cache import CacheEntry, Workspace

log = logging.getLogger(__name__)


def stored_summary(entry: CacheEntry) -> dict[str, Any] | None:
    """The entry's stored summary (worker and span None: see `named`); None when the entry
    or its summary is absent; CacheError when either is damaged or not a summary."""
    raw = entry.load_report(SUMMARY_NAME)
    if raw is None:
        return None
    where = entry.dir / f"{SUMMARY_NAME}.json"
    try:
        summary = msgspec.json.decode(raw)
    except msgspec.DecodeError as exc:
        raise CacheError(f"{where}: undecodable rank summary: {exc}") from None
    if not isinstance(summary, dict) or tuple(summary) != SUMMARY_KEYS:
        raise CacheError(f"{where}: not a rank summary of version {SUMMARY_VERSION}")
    return summary


def named(summary: dict[str, Any], worker: str, span: str) -> dict[str, Any]:
    """A stored summary as `rank_summary(report_for(report, worker, span))` gives it."""
    return dict(summary, worker=worker, span=span)


def keep_summary(
    workspace: Workspace, entry: CacheEntry, summary: dict[str, Any], wait: bool = True
) -> None:
    """Add a summary cut from the entry's verified report to the entry (which lacked one or
    held a damaged one), unless the entry was rewritten with one meanwhile. Best effort: a
    read-only workspace only costs the speed-up. `wait=False` (a request): when another
    process holds the entry's lock it is writing the entry, summary included; skip."""
    data = msgspec.json.encode(dict(summary, worker=None, span=None))
    try:
        with workspace.lock(entry, wait) as held:
            if held and entry_summary(entry, quiet=True) is None:
                entry.add_json(SUMMARY_NAME, data)
    except (OSError, CacheError) as exc:
        log.warning("could not store the rank summary in %s: %s", entry.dir, exc)


def entry_summary(entry: CacheEntry, quiet: bool = False) -> dict[str, Any] | None:
    """`stored_summary`, a damaged one logged (unless `quiet`) and taken as absent."""
    try:
        return stored_summary(entry)
    except CacheError as exc:
        if not quiet:
            log.warning("rebuilding the rank summary: %s", exc)
        return None


def summary_of(
    source: Source,
    workspace: Workspace | None,
    fmt: str,
    worker: str,
    span: str,
    options: Options = DEFAULT_OPTIONS,
) -> dict[str, Any]:
    """One rank's summary: the stored one when its entry has it; else cut from the entry's
    report (and added to the entry); else from a new analysis (which stores both)."""
    if workspace is not None:
        entry = workspace.entry(source, cache_variant(fmt, worker, options))
        found = entry_summary(entry)
        if found is not None:
            return named(found, worker, span)
        try:
            typed = stored_report(entry)
        except CacheError:  # logged, invalidated and rebuilt by `analyse_file` below
            typed = None
        if typed is not None:
            summary = rank_summary(report_for(typed, worker, span))
            keep_summary(workspace, entry, summary)
            return summary
    report, _ = analyse_file(source, workspace, None, fmt, worker, options)
    return rank_summary(report_for(report, worker, span))
