"""Floor: read + gunzip + typed decode of the seven fields every analysis needs.

No analysis can be faster than getting the events out of the file once, so this is the
denominator of "ours / bare decode": how much the real analysis costs on top of the
unavoidable decode. Uses msgspec with a Struct of only ph, name, cat, ts, dur, pid, tid
(msgspec skips the other fields, ``args`` included, without building them). Prints one
JSON line with the phase timings and the event count.

Usage: ``python bare_decode.py TRACE``
"""

from __future__ import annotations

import gzip
import json
import sys
import time
from pathlib import Path

import msgspec


class Event(msgspec.Struct):
    ph: str = ""
    name: str = ""
    cat: str = ""
    ts: int | float = 0
    dur: int | float = 0
    pid: int | str = 0
    tid: int | str = 0


class Trace(msgspec.Struct):
    events: list[Event] = msgspec.field(name="traceEvents")


def main(path: str) -> int:
    started = time.perf_counter()
    data = Path(path).read_bytes()
    read = time.perf_counter()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    unzipped = time.perf_counter()
    trace = msgspec.json.decode(data, type=Trace)
    decoded = time.perf_counter()
    summary = {
        "read_s": round(read - started, 3),
        "gunzip_s": round(unzipped - read, 3),
        "decode_s": round(decoded - unzipped, 3),
        "raw_bytes": len(data),
        "events": len(trace.events),
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
