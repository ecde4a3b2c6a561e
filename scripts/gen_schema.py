"""Write the JSON Schemas of the report and of the API's answers, or check that they are current.

    python scripts/gen_schema.py            # rewrite docs/schema/{report,api}.schema.json
    python scripts/gen_schema.py --check    # exit 1 when a committed file differs

The report's schema is built by `mindinsight_profiler.analysis.schema.publish`, the API's by
`mindinsight_profiler.server.answers.publish`; this script only writes or compares them (the
test `tests/unit/test_schema_files.py` runs it in-process). `--root` writes or checks the
files under another folder (the tests use it on stale copies).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from mindinsight_profiler.analysis.schema import publish as report_schema
from mindinsight_profiler.server.answers import publish as api_schema

ROOT = Path(__file__).resolve().parents[1]

#: Each schema file (relative to the root) and the function giving its text.
SCHEMAS: dict[str, Callable[[], str]] = {
    report_schema.SCHEMA_FILE: report_schema.render,
    api_schema.SCHEMA_FILE: api_schema.render,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file differs")
    parser.add_argument("--root", type=Path, default=ROOT, help="folder the files are under")
    args = parser.parse_args(argv)
    stale = 0
    for name, render in SCHEMAS.items():
        path: Path = args.root / name
        text = render()
        if args.check:
            current = path.read_text(encoding="utf-8") if path.is_file() else None
            if current != text:
                print(f"{path} is out of date: run python scripts/gen_schema.py", file=sys.stderr)
                stale += 1
            else:
                print(f"{path} is up to date")
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
