"""What the readers could not read or did not use, as the report's `warnings`.

A damaged optional file is skipped so the rest of an input can still be analysed, but a
figure built without it can be wrong in ways the user cannot see (an empty queue log turns
a data-pipeline verdict into "none"; a damaged AI Core file makes kernel time 0). So every
skipped or partly read file reaches the user: each warning names its file (`file`, a name
relative to the input, or None for a warning about the input as a whole) and the problem.
Absolute paths are cut to file names: reports are shared and served, and the server's
directory layout is nobody's business.
"""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.util.paths import last_parts

#: Between a skipped file's name and its problem: the advisor finds skipped files by it.
SKIPPED = ": skipped: "


def input_warnings(trace: Trace) -> list[dict[str, Any]]:
    """[{"file", "message"}]: each damaged file once ("skipped: <problem>"), then the
    readers' other warnings, in the order they were found, without repeats."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    damaged = trace.meta.get("damaged_files") or []
    for d in damaged:
        message = f"{d['file']}{SKIPPED}{last_parts(str(d['problem']))}"
        if message not in seen:
            seen.add(message)
            out.append({"file": str(d["file"]), "message": message})
    skipped_names = {str(d["file"]) for d in damaged}
    for w in trace.meta.get("warnings") or []:
        message = last_parts(str(w))
        head = message.split(":", 1)[0]
        if message in seen or head in skipped_names:  # said by the damaged-file entry
            continue
        seen.add(message)
        is_file = "." in head and " " not in head
        out.append({"file": head if is_file else None, "message": message})
    return out
