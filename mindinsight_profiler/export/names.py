"""How the files the CLI writes and the dashboard sends are named: one rule for both (the
server may not import the CLI). Light on purpose: the CLI imports it at start-up."""

from __future__ import annotations

import re

#: File suffix of each report format.
SUFFIX = {"html": ".html", "xlsx": ".xlsx", "md": ".md"}


def file_stem(*parts: str, default: str = "report") -> str:
    """A file name of `parts` joined by '-': letters, digits, dot, dash and underscore only."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", "-".join(parts)).strip("._") or default
