"""The folder that discovery looks at: a local folder, or a listing of object keys.

Discovery's rules (names, folder shapes, which files a worker folder holds) only need to
know which entries exist below a root, which are folders, and the names around them. Both
a local folder (`LocalTree`, asked through the filesystem exactly as before) and a listing
of relative file paths from object storage (`ListingTree`, where folders exist only as the
prefixes of keys) answer that, so one set of rules serves both.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Protocol

from mindinsight_profiler.formats.jsonstream import GZIP_MAGIC

#: The root of a tree, as a relative path.
ROOT = PurePosixPath(".")


class Tree(Protocol):
    """Entries below a root, by path relative to it (the root itself is `ROOT`)."""

    def entries(self) -> list[PurePosixPath]:
        """Every file and folder below the root (not the root), sorted."""
        ...

    def is_dir(self, rel: PurePosixPath) -> bool: ...

    def is_file(self, rel: PurePosixPath) -> bool: ...

    def names(self, rel: PurePosixPath) -> list[str]:
        """The names inside folder `rel`."""
        ...

    def name(self, rel: PurePosixPath) -> str:
        """The entry's own name; for `ROOT`, the root folder's name."""
        ...

    def parent_name(self, rel: PurePosixPath) -> str:
        """The name of the folder holding the entry (for `ROOT`: the root's parent's)."""
        ...

    def head(self, rel: PurePosixPath, size: int) -> bytes | None:
        """Up to `size` bytes from the start of the file's text (gzip undone), or None
        when the tree cannot read contents (a listing without an opener) or the file is
        unreadable."""
        ...


#: Opens one file of a tree for reading bytes.
Opener = Callable[[], BinaryIO]


def read_head(open_file: Opener, size: int) -> bytes | None:
    """Up to `size` bytes of a file's text, gzip undone; None when it cannot be read.

    The file is opened once (an object in storage: one request)."""
    try:
        with open_file() as f:
            magic = f.read(2)
            f.seek(0)
            if magic != GZIP_MAGIC:
                return f.read(size)
            with gzip.GzipFile(fileobj=f) as z:
                return z.read(size)
    except (OSError, EOFError, zlib.error):
        return None


class LocalTree:
    """A local folder, asked through the filesystem (symlinks behave as with pathlib)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def entries(self) -> list[PurePosixPath]:
        return [PurePosixPath(p.relative_to(self.root)) for p in sorted(self.root.rglob("*"))]

    def is_dir(self, rel: PurePosixPath) -> bool:
        return (self.root / rel).is_dir()

    def is_file(self, rel: PurePosixPath) -> bool:
        return (self.root / rel).is_file()

    def names(self, rel: PurePosixPath) -> list[str]:
        return [p.name for p in (self.root / rel).iterdir()]

    def name(self, rel: PurePosixPath) -> str:
        return (self.root / rel).name

    def parent_name(self, rel: PurePosixPath) -> str:
        return (self.root / rel).parent.name

    def head(self, rel: PurePosixPath, size: int) -> bytes | None:
        return read_head(lambda: (self.root / rel).open("rb"), size)


class ListingTree:
    """The files of a listing (relative paths); folders are the prefixes of those paths."""

    def __init__(
        self,
        files: Iterable[PurePosixPath],
        root_name: str,
        root_parent: str = "",
        opener: Callable[[PurePosixPath], Opener] | None = None,
    ) -> None:
        """`opener(rel)`, when given, opens a listed file (for `head`; one request each)."""
        self.files = {PurePosixPath(f) for f in files} - {ROOT}
        self.root_name, self.root_parent = root_name, root_parent
        self.opener = opener
        self.children: dict[PurePosixPath, set[str]] = {ROOT: set()}
        for f in self.files:
            for child in (f, *f.parents[:-1]):
                self.children.setdefault(child.parent, set()).add(child.name)
        self.dirs = set(self.children)

    def entries(self) -> list[PurePosixPath]:
        return sorted((self.files | self.dirs) - {ROOT})

    def is_dir(self, rel: PurePosixPath) -> bool:
        return rel in self.dirs

    def is_file(self, rel: PurePosixPath) -> bool:
        return rel in self.files

    def names(self, rel: PurePosixPath) -> list[str]:
        return sorted(self.children.get(rel, ()))

    def name(self, rel: PurePosixPath) -> str:
        return self.root_name if rel == ROOT else rel.name

    def parent_name(self, rel: PurePosixPath) -> str:
        return self.root_parent if rel == ROOT else self.name(rel.parent)

    def head(self, rel: PurePosixPath, size: int) -> bytes | None:
        if self.opener is None or rel not in self.files:
            return None
        return read_head(self.opener(rel), size)
