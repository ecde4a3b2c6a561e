"""What one worker's input is: a local path, or a remote input staged before it is read.

Readers only ever read local files. A remote input (a trace object, or the objects of an
Ascend/MindSpore worker folder in object storage) is described here by what its listing
said: each object's URL, size and version (ETag, generation or mtime), and the local path
it is staged to in the workspace. Its identity is that listing, so the cache notices a
change on the server without downloading anything (see `store/remote.py`, which lists and
stages; this module is plain data so that discovery, the cache and the server can carry it).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

_URL = re.compile(r"^(?P<protocol>[A-Za-z][A-Za-z0-9+.-]*)://")


def url_protocol(location: str | Path) -> str | None:
    """The protocol of a URL (`s3`, `gs`, `file`, ...), or None for a plain path."""
    m = _URL.match(location) if isinstance(location, str) else None
    return m.group("protocol").lower() if m else None


def parse_location(text: str | Path) -> Path | str:
    """A command-line or settings location: a `Path`, or a URL kept as text.

    `file://` URLs are local paths and become `Path`s here, so everything past this point
    sees either a local path or a URL that needs fsspec.
    """
    protocol = url_protocol(text)
    if protocol is None:
        return Path(text)
    if protocol in ("file", "local"):
        parts = urlsplit(str(text))
        host = "" if parts.netloc in ("", "localhost") else parts.netloc
        return Path(unquote(host + parts.path))
    stripped = str(text).rstrip("/")  # `s3://bucket/runs/` is `s3://bucket/runs`
    return str(text) if stripped.endswith(":") else stripped


@dataclass(frozen=True)
class Member:
    """One object of a remote input, as listed."""

    url: str
    local: Path
    size: int
    version: str


@dataclass(frozen=True)
class RemoteInput:
    """A remote trace file or worker folder, its objects, and where they are staged.

    `scopes` are the staged folders this input owns, with whether they are owned
    recursively: staging removes files there that are no longer listed, so a file deleted
    on the server is not read from an older copy.
    """

    url: str
    local: Path
    members: tuple[Member, ...]
    scopes: tuple[tuple[Path, bool], ...] = ()
    #: The staging folder of the input's filesystem (`<workspace>/remote/<hash>`).
    stage_dir: Path = Path()

    @property
    def size(self) -> int:
        return sum(m.size for m in self.members)

    def identity(self) -> str:
        """The listing of the input: any change of an object's size or version changes it."""
        h = hashlib.sha256()
        for m in sorted(self.members, key=lambda m: m.url):
            h.update(f"{m.url}|{m.size}|{m.version}\n".encode())
        return f"remote|{self.url}|{h.hexdigest()}"

    def url_of(self, local: str | Path) -> str:
        """The URL of a staged path (for messages that should name what the user gave)."""
        text = str(local)
        for m in self.members:
            if str(m.local) == text:
                return m.url
        if text == str(self.local):
            return self.url
        prefix = str(self.local) + "/"
        if text.startswith(prefix):
            return self.url.rstrip("/") + "/" + text[len(prefix) :]
        return text


#: What the pipeline reads: a local trace file or folder, or a remote input to stage first.
Source = Path | RemoteInput
