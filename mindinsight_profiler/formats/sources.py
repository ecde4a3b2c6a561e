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
from dataclasses import dataclass
from pathlib import Path


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
