"""Is a request's head (and body) all here, still coming, or refused? A pure check of bytes.

The server's worker (`worker.py`) reads each request into a buffer on its event loop and
hands a request to a thread only when this says it is complete, so a client that sends its
headers slowly, or never finishes them, holds a buffer and no thread. The limits are the
server's own, a little below gunicorn's (`mindinsight start` raises gunicorn's limits to
`GUNICORN_LIMITS`): a request over them is refused here, in the API's JSON error shape,
before gunicorn's parser would answer with its own plain-text page.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The request line (method, target, version), without its CRLF.
MAX_REQUEST_LINE = 8000
#: One header field, `name: value`, without its CRLF.
MAX_FIELD = 8000
MAX_FIELDS = 100
#: The whole head, request line and fields: a bound on what a slow client makes us hold.
MAX_HEAD_BYTES = 64 * 1024
#: The API only reads (GET); a body, if any, is taken whole before a thread sees it.
MAX_BODY_BYTES = 64 * 1024
#: gunicorn's own limits, set just above ours so that ours always answer first.
GUNICORN_LIMITS = {
    "--limit-request-line": "8190",
    "--limit-request-fields": "128",
    "--limit-request-field_size": "8190",
}

WAIT = "wait"


@dataclass(frozen=True)
class Complete:
    """The request is all in the buffer: `size` bytes from its start (later bytes are the
    next pipelined request)."""

    size: int


@dataclass(frozen=True)
class Refused:
    """A request the server will not read: answer `status` with this JSON error and close."""

    status: int
    code: str
    message: str


def examine(buf: bytes) -> str | Complete | Refused:
    """`WAIT` for more bytes, `Complete`, or `Refused` (over a limit, or a body we won't take).

    Empty lines before a request line are skipped as RFC 9112 allows; gunicorn does the same.
    """
    start = len(buf) - len(buf.lstrip(b"\r\n"))
    end = buf.find(b"\r\n\r\n", start)
    if end < 0:
        eol = buf.find(b"\r\n", start)
        if (eol if eol >= 0 else len(buf)) - start > MAX_REQUEST_LINE:
            return _uri_too_long()
        if len(buf) - start > MAX_HEAD_BYTES:
            return _head_too_large()
        return WAIT
    lines = buf[start:end].split(b"\r\n")
    if len(lines[0]) > MAX_REQUEST_LINE:
        return _uri_too_long()
    if end - start > MAX_HEAD_BYTES:
        return _head_too_large()
    if len(lines) - 1 > MAX_FIELDS:
        return Refused(431, "header_too_large", f"more than {MAX_FIELDS} header fields")
    lengths = set()
    for line in lines[1:]:
        if len(line) > MAX_FIELD:
            return Refused(431, "header_too_large",
                           f"a header field is longer than {MAX_FIELD} bytes")  # fmt: skip
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"transfer-encoding":
            return Refused(411, "length_required", "a request body needs a Content-Length")
        if name == b"content-length":
            value = value.strip()
            if not value.isdigit():
                return Refused(400, "bad_request", "Content-Length is not a number")
            lengths.add(int(value))
    if len(lengths) > 1:
        return Refused(400, "bad_request", "conflicting Content-Length fields")
    body = lengths.pop() if lengths else 0
    if body > MAX_BODY_BYTES:
        return Refused(413, "content_too_large", f"a request body over {MAX_BODY_BYTES} bytes")
    size = end + 4 + body
    return Complete(size) if len(buf) >= size else WAIT


def _uri_too_long() -> Refused:
    return Refused(414, "uri_too_long", f"the request line is longer than {MAX_REQUEST_LINE} bytes")


def _head_too_large() -> Refused:
    return Refused(431, "header_too_large", f"the request head is over {MAX_HEAD_BYTES} bytes")
