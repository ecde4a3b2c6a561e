"""`heads.examine`, the worker's one decision: wait, hand the request to a thread, or refuse.

A request handed over incomplete would block a thread on its socket (the slow-client attack
the worker exists for), so every way of being incomplete is checked byte by byte here.
"""

from __future__ import annotations

from mindinsight_profiler.server.heads import (
    MAX_HEAD_BYTES,
    MAX_REQUEST_LINE,
    WAIT,
    Complete,
    Refused,
    examine,
)

GET = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def test_complete_only_at_the_end_of_the_head() -> None:
    for cut in range(len(GET)):
        assert examine(GET[:cut]) == WAIT, cut
    assert examine(GET) == Complete(len(GET))
    assert examine(GET + b"GET /next") == Complete(len(GET))  # pipelined: the first one
    assert examine(b"\r\n\r\n" + GET) == Complete(4 + len(GET))  # empty lines before it


def test_a_body_is_waited_for_whole() -> None:
    head = b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n"
    for cut in range(len(head), len(head) + 5):
        assert examine(head + b"hello"[: cut - len(head)]) == WAIT
    assert examine(head + b"hello") == Complete(len(head) + 5)


def test_refusals() -> None:
    long_line = b"GET /" + b"a" * MAX_REQUEST_LINE
    assert isinstance(refused := examine(long_line), Refused) and refused.status == 414
    assert examine(long_line[:MAX_REQUEST_LINE]) == WAIT  # not over the limit yet
    big = b"GET / HTTP/1.1\r\n" + b"X: " + b"a" * 7000 + b"\r\n"
    huge = b"GET / HTTP/1.1\r\n" + b"".join(b"X%d: %s\r\n" % (i, b"a" * 7000) for i in range(10))
    assert examine(big) == WAIT and len(huge) > MAX_HEAD_BYTES
    assert isinstance(refused := examine(huge), Refused) and refused.status == 431
    chunked = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    assert isinstance(refused := examine(chunked), Refused) and refused.status == 411
    two = b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"
    assert isinstance(refused := examine(two), Refused) and refused.status == 400
