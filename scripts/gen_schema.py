"""Write `docs/schema/report.schema.json` from the report structs, or check that it is current.

    python scripts/gen_schema.py            # rewrite the file
    python scripts/gen_schema.py --check    # exit 1 when the committed file differs

The schema itself is built by `mindinsight_profiler.analysis.schema.publish`; this script
only writes or compares it (the test `tests/unit/test_schema_files.py` runs it in-process).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from mindinsight_profiler.analysis.schema.publish import SCHEMA_FILE, render

ROOT = Path(__file__).resolve().parents[1]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file differs")
    parser.add_argument("--output", type=Path, default=ROOT / SCHEMA_FILE, help="schema file")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.is_file() else None
        if current != text:
            print(
                f"{args.output} is out of date: run python scripts/gen_schema.py", file=sys.stderr
            )
            return 1
        print(f"{args.output} is up to date")
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
