"""Reading rule files without trusting them: every resource a file can make us use is capped.

A rule file is data a user hands the server or the CLI, so reading one must not hang or
exhaust the machine, whatever it holds. Only regular files are read (a FIFO would block the
reader forever, `/dev/zero` would fill memory): the kind is checked with `stat` before
opening, and again on the open descriptor, opened non-blocking. At most `MAX_FILE_BYTES`
are read. The TOML is then checked, iteratively, for nesting (`MAX_DEPTH`), size
(`MAX_ITEMS` keys and list items in all, strings of at most `MAX_STRING` characters) and
integers beyond +-2**53; a nesting deep enough to exhaust the TOML parser's recursion is
reported as such. Every problem is an `InputError` naming the file.
"""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path
from typing import Any

from mindinsight_profiler.errors import InputError

#: Largest rule file (the built-in ones are about 2 KiB).
MAX_FILE_BYTES = 256 * 1024
#: Most rule files in one folder.
MAX_FILES = 500
#: Deepest nesting of tables and arrays (a rule needs 3: [[actions]] inside the file).
MAX_DEPTH = 8
#: Most keys and list items in one file, counted together.
MAX_ITEMS = 2000
#: Longest string value, in characters.
MAX_STRING = 4000
#: Longest key, in characters.
MAX_KEY = 200
#: Largest integer magnitude (exact as a float).
MAX_INT = 2**53

_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def rule_paths(folder: Path) -> list[Path]:
    """The `*.toml` files of one rules folder, by name (InputError past MAX_FILES)."""
    if not folder.is_dir():
        raise InputError(folder, "rules folder not found")
    paths: list[Path] = []
    for path in folder.glob("*.toml"):
        if any(ord(c) < 32 for c in path.name):  # every error names the file on one line
            raise InputError(folder, f"a rule file name with control characters: {path.name!r}")
        paths.append(path)
        if len(paths) > MAX_FILES:
            raise InputError(folder, f"more than {MAX_FILES} rule files in one folder")
    return sorted(paths)


def _not_regular(path: Path, mode: int) -> InputError:
    kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
    if path.is_symlink():
        target = os.path.realpath(path)
        return InputError(path, f"is a link to {target} ({kind}): rule files must be "
                          "regular files")  # fmt: skip
    return InputError(path, f"is {kind}: rule files must be regular files")


def read_bytes(path: Path) -> bytes:
    """The file's bytes, when it is a regular file of at most MAX_FILE_BYTES."""
    try:
        st = os.stat(path)  # follows links: a link to a regular file is fine
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode)
        if st.st_size > MAX_FILE_BYTES:
            raise InputError(path, f"is {st.st_size} bytes: rule files are limited to "
                             f"{MAX_FILE_BYTES}")  # fmt: skip
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise InputError(path, f"cannot read rule file: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)  # what was opened, should the path have changed since the stat
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode)
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, MAX_FILE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise InputError(path, f"cannot read rule file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if size > MAX_FILE_BYTES:
        raise InputError(path, f"is more than {MAX_FILE_BYTES} bytes: rule files are limited "
                         "to that")  # fmt: skip
    return b"".join(chunks)


def read_toml(path: Path) -> dict[str, Any]:
    """The file parsed as TOML, within the size and nesting limits."""
    raw = read_bytes(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text (byte {raw[exc.start]:#04x} at offset "
                         f"{exc.start})") from None  # fmt: skip
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, f"not valid TOML: {exc}") from None
    except RecursionError:
        raise InputError(path, f"not valid TOML: nested more than {MAX_DEPTH} deep") from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise InputError(path, f"not valid TOML: {str(exc)[:80]}") from None
    _check_sizes(path, data)
    return data


def _check_sizes(path: Path, data: dict[str, Any]) -> None:
    """Depth, item count, string length and integer size of a parsed file, iteratively."""
    stack: list[tuple[str, Any, int]] = [("", data, 0)]
    items = 0
    while stack:
        where, value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth >= MAX_DEPTH:
                raise InputError(path, f"{where}: nested more than {MAX_DEPTH} deep")
            items += len(value)
            if items > MAX_ITEMS:
                raise InputError(path, f"more than {MAX_ITEMS} keys and list items")
            pairs = value.items() if isinstance(value, dict) else enumerate(value)
            for key, child in pairs:
                if isinstance(key, str) and len(key) > MAX_KEY:
                    raise InputError(path, f"{where}: a key of {len(key)} characters (at most "
                                     f"{MAX_KEY})")  # fmt: skip
                name = f"{where}.{key}" if isinstance(key, str) else f"{where}[{key}]"
                stack.append((name.lstrip(".")[:80], child, depth + 1))
        elif isinstance(value, str) and len(value) > MAX_STRING:
            raise InputError(path, f"{where}: a string of {len(value)} characters (at most "
                             f"{MAX_STRING})")  # fmt: skip
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            raise InputError(path, f"{where}: integers are limited to +-2**53 ({MAX_INT})")
