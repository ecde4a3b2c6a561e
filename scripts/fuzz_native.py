"""Fuzz the native Kineto scanner built with AddressSanitizer and UBSan.

The scanner is C: a bad read or an overflow there crashes the process or reads garbage
instead of raising. This builds a sanitized copy of `formats/kineto/_scan.c` into a
temporary folder, then feeds it mutated chunks (byte edits, deletions, insertions of JSON
tokens that steer it into its rarer paths, every truncation of a small chunk) made from a
real trace and the hand-made cases of `tests/unit/test_native_scan.py`. Each result must
equal the Python path's batch, or be None; the sanitizers abort on any memory or
undefined-behaviour error.

    python scripts/fuzz_native.py [--cases 30000] [--seed 1]

It re-runs itself with the sanitizer runtimes preloaded (`LD_PRELOAD`); it needs gcc.
Run it after changing `_scan.c` (30,000 cases take about 3 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "mindinsight_profiler" / "formats" / "kineto" / "_scan.c"
TRACE = (
    ROOT.parent / "shared/data/kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
)
ALPHABET = b'{}[]:,"\\ 0123456789.-+eEtrufalsnux\x00\x1f\x7f\xc3\xa9\xff\xed\xa0\x80\xf0\x9f'
TOKENS = [b'"\\u', b"\\ud83d", b"1e999", b"-0", b"null", b"true", b'"ph":"B"', b'"ts":"1"',
          b"9223372036854775808", b'{"a":[[[[[', b'"args":{', b'"stream":"0x',
          b'"id":"']  # fmt: skip


def _build(folder: Path) -> Path:
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    out = folder / f"_scan{suffix}"
    subprocess.run(
        ["gcc", "-O1", "-g", "-fsanitize=address,undefined", "-fno-omit-frame-pointer",
         "-shared", "-fPIC", f"-I{sysconfig.get_paths()['include']}", str(SOURCE), "-o",
         str(out)],
        check=True,
    )  # fmt: skip
    return out


def _runtimes() -> str:
    libs = []
    for name in ("libasan.so", "libubsan.so"):
        path = subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True,
                              text=True, check=True).stdout.strip()  # fmt: skip
        libs.append(path)
    return ":".join(libs)


def _mutant(rng: random.Random, base: bytes) -> bytes:
    data = bytearray(base)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(data) + 1)
        r = rng.random()
        if r < 0.3 and at < len(data):
            data[at] = rng.choice(ALPHABET)
        elif r < 0.5 and at < len(data):
            del data[at : at + rng.randint(1, 8)]
        elif r < 0.8:
            data[at:at] = bytes([rng.choice(ALPHABET)])
        else:
            data[at:at] = rng.choice(TOKENS)
    return bytes(data)


def _fuzz(folder: Path, cases: int, seed: int) -> int:
    sys.path[:0] = [str(folder), str(ROOT)]
    import _scan  # type: ignore[import-not-found]  # the sanitized build

    from mindinsight_profiler.formats.kineto import decode, native
    from tests.unit.test_native_scan import DECLINED, READ, assert_same

    native._scan = _scan

    def check(data: bytes) -> bool:
        os.environ["MINDINSIGHT_NATIVE_SCAN"] = "0"
        try:
            reference: object = decode.decode_batch(data)
        except Exception as exc:  # the reference refuses it: so must the scanner
            reference = exc
        os.environ["MINDINSIGHT_NATIVE_SCAN"] = "1"
        got = native.scan_batch(data)
        if isinstance(reference, Exception) or got is None:
            assert got is None, f"read what the Python path refuses: {data[:300]!r}"
            return False
        assert_same(got, reference)  # type: ignore[arg-type]
        return True

    bases = [*READ.values(), *DECLINED.values()]
    if TRACE.exists():
        with gzip.open(TRACE) as f:
            events = json.loads(f.read())["traceEvents"]
        bases += [json.dumps(events[i : i + 40]).encode() for i in range(0, 4000, 400)]
    rng = random.Random(seed)
    read = sum(check(_mutant(rng, rng.choice(bases))) for _ in range(cases))
    small = READ["ops and kernels"]
    for n in range(len(small)):
        check(small[:n])
    print(f"{cases} mutants and {len(small)} truncations: no sanitizer error, every result "
          f"equal to the Python path's or declined ({read} read natively)")  # fmt: skip
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=30000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--built", help=argparse.SUPPRESS)  # the re-run, sanitizers loaded
    args = parser.parse_args()
    if args.built:
        return _fuzz(Path(args.built), args.cases, args.seed)
    with tempfile.TemporaryDirectory(prefix="mi-fuzz-native-") as tmp:
        _build(Path(tmp))
        env = {**os.environ, "LD_PRELOAD": _runtimes(), "ASAN_OPTIONS": "detect_leaks=0"}
        cmd = [sys.executable, __file__, "--cases", str(args.cases), "--seed", str(args.seed),
               "--built", tmp]  # fmt: skip
        return subprocess.run(cmd, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
