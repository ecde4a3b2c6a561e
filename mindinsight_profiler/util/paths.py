"""Absolute paths inside messages, cut to their last part.

Reports and API answers are shared and served: the reader's own directory layout is nobody
else's business, but the file a message is about must still be named. One pattern serves
the report's warnings (`analysis.input_warnings`) and the server's error texts
(`server.redact`), so both cut the same paths the same way.
"""

from __future__ import annotations

import re

#: An absolute path (at least two parts) not inside a word, a URL or a relative path.
ABSOLUTE_PATH = re.compile(
    r"(?<![\w.~:/>\-])/(?:[^\s/'\"():,;\[\]{}<>]+/)+([^\s/'\"():,;\[\]{}<>]+)"
)


def last_parts(text: str) -> str:
    """`text` with every absolute path replaced by its last part (the file's name)."""
    return ABSOLUTE_PATH.sub(r"\1", text)
