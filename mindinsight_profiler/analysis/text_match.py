"""What a table's `search` text matches: a part of the name, or one exact name.

Plain text matches every name containing it, in any case, as a search box should. A name
in double quotes (`"aten::add"`) matches that name only: "the calls of this operator" must
not also list `aten::add_` and `aten::addmm`, which contain it. Every table search of the
API (operators, kernels, instances, memory) reads its text through here.
"""

from __future__ import annotations

from collections.abc import Callable


def name_matcher(search: str | None) -> Callable[[str], bool] | None:
    """A test for names, or None when `search` is empty (everything matches)."""
    if not search:
        return None
    if len(search) > 2 and search[0] == search[-1] == '"':
        exact = search[1:-1]
        return lambda name: name == exact
    needle = search.lower()
    return lambda name: needle in name.lower()
