"""Hostile rule files are refused when loaded, naming the file, without exhausting anything.

Each file is written here (a memory bomb, a huge format width, deep nesting in TOML and in
expressions, a FIFO, a link to /dev/zero, a 10 MB file, binary junk, ...) and loaded in a
child process limited to 1 GiB of address space, with a generous timeout only to catch a
hang. The child also counts the bytes it reads from the hostile file and whether it opened
it at all, so the bounded work is asserted by counts, not by time.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from mindinsight_profiler.advisor.expr import MAX_SEQUENCE, ExpressionError, evaluate
from mindinsight_profiler.advisor.rule_files import MAX_FILE_BYTES, MAX_FILES
from mindinsight_profiler.advisor.rules import load_rules
from mindinsight_profiler.advisor.text import ELLIPSIS, MAX_RENDERED, render
from mindinsight_profiler.errors import InputError
from tests.conftest import ROOT, shared
from tests.integration.cli import run_cli

ADDRESS_SPACE = 1 << 30
HANG_S = 120  # generous: only to turn a hang into a failure

# Loads the folder in argv[1] under RLIMIT_AS and prints what happened as JSON: the error,
# or the crash, and per path the bytes read and whether it was opened.
_CHILD = """
import json, os, resource, sys
from mindinsight_profiler.advisor.rules import load_rules
from mindinsight_profiler.errors import InputError
hard = resource.getrlimit(resource.RLIMIT_AS)[1]
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), hard))
fds, read = {}, {}
real_open, real_read = os.open, os.read
def counting_open(path, *args, **kwargs):
    fd = real_open(path, *args, **kwargs)
    fds[fd] = os.fspath(path)
    read.setdefault(fds[fd], 0)
    return fd
def counting_read(fd, n):
    data = real_read(fd, n)
    if fd in fds:
        read[fds[fd]] += len(data)
    return data
os.open, os.read = counting_open, counting_read
out = {}
try:
    load_rules([sys.argv[1]])
except InputError as exc:
    out["error"] = str(exc)
except BaseException as exc:
    out["crash"] = (type(exc).__name__ + ": " + str(exc))[:300]
out["read"] = read
print(json.dumps(out))
"""

RULE = """
id = "{id}"
category = "data_pipeline"
sources = ["test"]
facts = ["data.wait_share", "step.average_us"]
when = {when}
severity = "low"
{extra}
[params]
threshold = 0.05
{params}
[title]
en = {title}
zh = "标题"
[message]
en = {message}
zh = "占比 {{data.wait_share:.1%}}"
"""


def rule(rid: str = "x", when: str = "data.wait_share > threshold", extra: str = "",
         params: str = "", title: str = "t", message: str = "share {data.wait_share:.1%}",
         ) -> str:  # fmt: skip
    """A valid rule file's text, with one part replaced (strings written as TOML strings)."""
    return RULE.format(id=rid, when=json.dumps(when), extra=extra, params=params,
                       title=json.dumps(title), message=json.dumps(message))  # fmt: skip


def text(body: str, name: str = "x.toml") -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        (folder / name).write_text(body, encoding="utf-8")
        return folder / name

    return write


def raw(body: bytes) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        (folder / "x.toml").write_bytes(body)
        return folder / "x.toml"

    return write


def fifo(folder: Path) -> Path:
    os.mkfifo(folder / "x.toml")
    return folder / "x.toml"


def link_to(target: str) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        (folder / "x.toml").symlink_to(target)
        return folder / "x.toml"

    return write


def link_loop(folder: Path) -> Path:
    (folder / "x.toml").symlink_to(folder / "y.toml")
    (folder / "y.toml").symlink_to(folder / "x.toml")
    return folder / "x.toml"


def a_folder(folder: Path) -> Path:
    (folder / "x.toml").mkdir()
    return folder / "x.toml"


def requires_cycle(folder: Path) -> Path:
    (folder / "a.toml").write_text(rule("a", extra='requires = ["b"]'), encoding="utf-8")
    (folder / "b.toml").write_text(rule("b", extra='requires = ["a"]'), encoding="utf-8")
    return folder / "a.toml"


def newline_in_name(folder: Path) -> Path:
    (folder / "x\ny.toml").write_text(rule(), encoding="utf-8")
    return folder  # the folder is named: the file's name would break the line


ACTIONS = "\n".join('[[actions]]\nen = "a"\nzh = "动作"' for _ in range(100))

#: id -> (writes the hostile file and returns its path, what the error must say)
CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    # expressions: memory bombs
    "string_repeat_bomb": (text(rule(when="len('a' * 10000000000) > 0")), "repeating"),
    "param_repeat_bomb": (
        text(rule(when="len(s * n) > 0", params=f's = "ab"\nn = {2**53}')),
        "repeating",
    ),
    "chained_repeat": (text(rule(when="len('x' * 100 * 100 * 100) > threshold")), "repeating"),
    "join_bomb": (
        text(rule(when="len(s * 40 + s * 40) > 0", params=f's = "{"a" * 200}"')),
        "joining",
    ),
    "list_repeat_bomb": (text(rule(when="len([1, 2] * 9000000000000000) > 0")), "repeating"),
    "power": (text(rule(when="2 ** 100000000 > threshold")), "Pow is not allowed"),
    "always_fails": (text(rule(when="1 / 0 > threshold")), "always fails"),
    # expressions: size and nesting
    "expr_nested_100k": (text(rule(when="(" * 100_000 + "1" + ")" * 100_000)), "characters"),
    "expr_too_long": (text(rule(when="-" * 3000 + "data.wait_share > 0")), "characters long"),
    "expr_deep_not": (text(rule(when="not " * 200 + "data.wait_share")), "nested more than"),
    "expr_many_nodes": (
        text(rule(when="1+" * 300 + "data.wait_share > 0")),
        "syntax nodes|nested more than",
    ),
    "expr_huge_int": (text(rule(when="data.wait_share > " + "9" * 900)), "integer constants"),
    "expr_long_string": (text(rule(when=f"'{'a' * 500}' in data.wait_share")), "string constant"),
    "expr_null_byte": (text(rule(when="data.wait_share\x00 > 0")), "cannot parse"),
    # texts: format widths and the format language
    "title_width": (text(rule(title="{threshold:>500000000}")), "format width"),
    "message_width": (text(rule(message="{data.wait_share:>999999999}")), "format width"),
    "precision": (text(rule(message="{data.wait_share:.500f}")), "format precision"),
    "nested_field": (text(rule(message="{data.wait_share:{threshold}}")), "inside a format spec"),
    "index_access": (text(rule(message="{data.wait_share[0]}")), "no \\[index\\]"),
    "private_attribute": (text(rule(message="{threshold.__class__}")), "_private"),
    "conversion": (text(rule(message="{threshold!r}")), "conversions"),
    "unbalanced_brace": (text(rule(message="share {data.wait_share")), "literal brace"),
    "long_text": (text(rule(message="x" * 3000)), "characters long"),
    # TOML: nesting, counts, sizes
    "toml_deep_arrays": (text("x = " + "[" * 100_000 + "]" * 100_000), "nested more than"),
    "toml_deep_tables": (
        text("x = " + "{a = " * 12 + "1" + "}" * 12 + "\n" + rule()),
        "nested more than",
    ),
    "toml_many_keys": (
        text(rule(params="\n".join(f"k{i} = {i}" for i in range(5000)))),
        "keys and list items",
    ),
    "toml_huge_int": (text("x = " + "9" * 5000 + "\n" + rule()), "not valid TOML"),
    "toml_int_beyond_2_53": (text(rule(params=f"n = {10**18}")), "integers are limited"),
    "toml_long_string": (text(rule(params=f'n = "{"a" * 100_000}"')), "a string of"),
    "toml_long_key": (text(rule(params=f"{'k' * 1000} = 1")), "a key of"),
    "long_param_string": (text(rule(params=f'n = "{"a" * 1000}"')), "string parameter"),
    "many_actions": (text(rule() + ACTIONS), "actions: more than"),
    # what the file is
    "ten_megabytes": (text(rule() + "#" * (10 << 20)), "bytes: rule files are limited"),
    "fifo": (fifo, "is a FIFO"),
    "link_to_dev_zero": (link_to("/dev/zero"), "link to /dev/zero"),
    "dangling_link": (link_to("/nonexistent/rule.toml"), "cannot read"),
    "link_loop": (link_loop, "cannot read"),
    "folder": (a_folder, "is a folder"),
    "binary_junk": (raw(bytes(range(256)) * 400), "not UTF-8"),
    "control_characters": (raw(b"\x00\x01\x02\x03" * 1000), "not valid TOML"),
    "invalid_utf8": (raw(rule().encode().replace(b'"t"', b'"\xff\xfe"')), "not UTF-8"),
    "newline_in_name": (newline_in_name, "control characters: 'x\\\\ny.toml'"),
    "newline_in_key": (text('"a\\nb" = 1\n' + rule()), "unknown field `a\\\\x0ab`"),
    # references between rules
    "requires_itself": (text(rule(extra='requires = ["x"]')), "cycle: x -> x"),
    "requires_cycle": (requires_cycle, "cycle: a -> b -> a"),
}


def _load_in_child(folder: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(folder), str(ADDRESS_SPACE)],
        capture_output=True, text=True, timeout=HANG_S, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict = json.loads(done.stdout)
    return result


def test_there_are_enough_hostile_files() -> None:
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_rule_file_is_refused_at_load(tmp_path: Path, case: str) -> None:
    write, problem = CASES[case]
    folder = tmp_path / "rules"
    folder.mkdir()
    path = write(folder)
    result = _load_in_child(folder)
    assert "crash" not in result, result["crash"]
    assert "error" in result, "the hostile file was accepted"
    assert result["error"].startswith(f"{path}: "), result["error"]
    assert "\n" not in result["error"]
    assert re.search(problem, result["error"]), result["error"]
    read = result["read"].get(str(path))
    if case in ("fifo", "link_to_dev_zero", "ten_megabytes", "folder"):
        assert read is None, "refused by stat, before it is opened"
    assert (read or 0) <= MAX_FILE_BYTES + 1


def test_the_child_would_see_a_bomb(tmp_path: Path) -> None:
    """The harness can fail: without the loader's checks the same bomb crashes the child."""
    folder = tmp_path / "rules"
    folder.mkdir()
    child = _CHILD.replace("load_rules([sys.argv[1]])", "'a' * 10000000000")
    done = subprocess.run(
        [sys.executable, "-c", child, str(folder), str(ADDRESS_SPACE)],
        capture_output=True, text=True, timeout=HANG_S, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert json.loads(done.stdout)["crash"].startswith("MemoryError")


def test_too_many_files_in_a_folder(tmp_path: Path) -> None:
    for i in range(MAX_FILES + 1):
        (tmp_path / f"r{i}.toml").write_text("")
    with pytest.raises(InputError, match="more than 500 rule files") as err:
        load_rules([tmp_path])
    assert err.value.path == str(tmp_path)


def test_a_link_to_a_regular_rule_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "x.toml").write_text(rule(), encoding="utf-8")
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "x.toml").symlink_to(tmp_path / "elsewhere" / "x.toml")
    assert "x" in {r.id for r in load_rules([tmp_path / "rules"])}


def test_limits_leave_room_for_real_rules(tmp_path: Path) -> None:
    """Widths up to 100, literal braces and links to params still load and render."""
    (tmp_path / "x.toml").write_text(
        rule(title="{{literal}} {threshold:>100.3f}", params='s = "{threshold}"',
             message="{s} {data.wait_share:.1%}"),
        encoding="utf-8",
    )  # fmt: skip
    (loaded,) = [r for r in load_rules([tmp_path]) if r.id == "x"]
    values = {**loaded.params, "data.wait_share": 0.5}
    assert render(loaded.title.en, values) == "{literal} " + " " * 95 + "0.050"
    assert render(loaded.message.en, values) == "{threshold} 50.0%"  # never expanded twice


def test_evaluation_bounds_what_facts_can_make() -> None:
    """A fact's list or string is only known per input: `+` and `*` are bounded there."""
    values = {"xs": list(range(100)), "s": "ab", "n": 10**12}
    with pytest.raises(ExpressionError, match="repeating"):
        evaluate("len(xs * n) > 0", values)
    with pytest.raises(ExpressionError, match="repeating"):
        evaluate("len(n * s) > 0", values)
    with pytest.raises(ExpressionError, match="joining"):
        evaluate("len(xs * 60 + xs * 60) > 0", values)
    assert evaluate(f"len(s * {MAX_SEQUENCE // 2})", values) == MAX_SEQUENCE
    assert evaluate("len(xs + xs) == 200 and 3 * 4 == 12", values) is True


def test_rendered_text_is_cut_with_an_ellipsis() -> None:
    long_name = "op" * 1_000_000
    shown = render("top: {names} / {x:>100}", {"names": [long_name] * 5, "x": 1})
    assert len(shown) == MAX_RENDERED and shown.endswith(ELLIPSIS)
    assert render("{x:,.0f} us", {"x": 12345.6}) == "12,346 us"


def test_bad_rule_file_exits_2_with_one_line(tmp_path: Path) -> None:
    """The CLI checks the rules before any analysis: the bomb is one line and exit 2."""
    folder = tmp_path / "rules"
    folder.mkdir()
    path = text(rule(when="len('a' * 10000000000) > 0"))(folder)
    out = run_cli("advise", tmp_path / "no-input", "--rules-dir", folder, timeout=HANG_S)
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and out.stderr.startswith(f"mindinsight: error: {path}: ")
    assert out.stdout == ""


def test_server_start_refuses_a_bad_rules_folder(tmp_path: Path) -> None:
    """`mindinsight start` checks the rules before starting gunicorn: exit 2, one line."""
    folder = tmp_path / "rules"
    folder.mkdir()
    path = fifo(folder)
    (tmp_path / "base").mkdir()
    out = run_cli("start", "--summary-base-dir", tmp_path / "base", "--workspace",
                  tmp_path / "ws", "--rules-dir", folder, timeout=HANG_S)  # fmt: skip
    assert out.returncode == 2, out.stderr
    assert (
        out.stderr == f"mindinsight: error: {path}: is a FIFO: rule files must be regular files\n"
    )
    assert not (tmp_path / "ws").exists(), "refused before the workspace or a server existed"


def test_a_running_server_reports_a_bad_rule_file(tmp_path: Path, advisor_ws: Path) -> None:
    """A rule file spoilt while the server runs: the background analysis of each input
    records the error naming the rule file as its advice stage's failure (the advice route
    answers 422 with it) instead of crashing; the overview stays ready."""
    from mindinsight_profiler.formats.discovery import discover
    from mindinsight_profiler.server.jobs import analyse_input
    from mindinsight_profiler.server.state import FAILED, READY, StateStore

    (run,) = discover(shared("kineto/resnet50_num_workers_4"))
    file = run.select()
    folder = tmp_path / "rules"
    folder.mkdir()
    path = text(rule(message="{data.wait_share:>999999999}"))(folder)
    assert analyse_input(file, run, advisor_ws, (folder,), "fp") == READY
    recorded = StateStore(advisor_ws).read(file)
    assert recorded is not None and recorded["state"] == READY and "error" not in recorded
    advice = recorded["stages"]["advice"]
    assert advice["state"] == FAILED and advice["error"].startswith(f"{file.path}: "), advice
    assert f": {path}: message.en: " in advice["error"], advice
