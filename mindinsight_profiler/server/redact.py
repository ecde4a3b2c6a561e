"""What of an error message an API client may see: no server paths, no exception class names.

Messages are written for the person at the terminal (`InputError` names the file by its full
path, an unexpected failure its exception type); the server log keeps them whole. A client
of the API sees a run's files by their names under the base dir, the workspace as
`<workspace>`, any other absolute path by its last part, and no `SomethingError:` prefixes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from mindinsight_profiler.util.paths import last_parts

#: `ValueError: `, `json.decoder.JSONDecodeError: `, `botocore.exceptions.NoCredentialsError`.
_CLASS_NAME = re.compile(
    r"\b(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning)\b(?::\s*)?"
)


def public_text(text: str, roots: list[tuple[str, str]]) -> str:
    """`text` with each root folder `(path, name)` renamed (longest first), then the rest.

    `name` "" makes paths under that root relative to it (the root itself becomes ".").
    """
    for root, name in sorted(roots, key=lambda r: -len(r[0])):
        if root:
            text = re.sub(re.escape(root) + r"(/|(?=[\s'\"():,;]|$))", _renamed(name), text)
    text = last_parts(text)
    return _CLASS_NAME.sub("", text).strip()


def _renamed(name: str) -> Callable[[re.Match[str]], str]:
    def rename(m: re.Match[str]) -> str:
        slash = m[1]
        return name + slash if name else ("" if slash else ".")

    return rename


def redactor(base: Path | str, workspace: Path) -> Callable[[str], str]:
    """`public_text` for one server: paths under a local base dir become relative to it,
    the workspace (where a URL base's objects are staged) becomes `<workspace>`."""
    roots = [(str(workspace), "<workspace>"), (str(workspace.resolve()), "<workspace>")]
    if isinstance(base, Path):
        roots += [(str(base), ""), (str(base.resolve()), "")]
    return lambda text: public_text(text, roots)
