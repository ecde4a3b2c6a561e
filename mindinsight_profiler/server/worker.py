"""The gunicorn worker of `mindinsight start`: threads for answers, never for waiting on clients.

gunicorn's sync worker reads a request in the process that answers it, so two sockets
sending their headers a byte a second stop a two-worker server; its `gthread` worker waits
(up to 5 s) for a first byte on the event loop but then reads the rest of the head in a
thread, on a blocking socket with no deadline, so one trickling client per thread does it
too. This worker, a `gthread` worker, reads every request on its event loop instead: into a
buffer, without blocking, until `heads.examine` says the head (and body, if any) is
complete, and only then gives the connection to a thread, whose parser reads from that
buffer and never waits on the socket. A request still incomplete `HEAD_TIMEOUT_S` after it
began is answered 408 and closed (silently when nothing came); a request over the head
limits is answered with the API's JSON error (`heads.py`). Closing a connection after its
answer lingers on the event loop as well (gunicorn lingers up to 2 s in its loop thread, so
clients that never close would stall it), and an answer a client does not read fails after
`SEND_TIMEOUT_S` without progress instead of holding its thread.

TLS is not gated (`mindinsight start` serves plain HTTP; put a proxy in front for TLS).
Built on gunicorn 27's `ThreadWorker` (`enqueue_req`, `finish_request`, `murder_pending`):
setup.py pins that major version.
"""

from __future__ import annotations

import contextlib
import json
import selectors
import socket
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from gunicorn import http
from gunicorn.http import errors as parse_errors
from gunicorn.workers.gthread import ThreadWorker

from mindinsight_profiler.server.errors import error_document
from mindinsight_profiler.server.heads import WAIT, Refused, examine

#: A request's head and body must all arrive within this many seconds of its first byte
#: (of the connection's start, for the first request).
HEAD_TIMEOUT_S = 10.0
#: How long a connection being closed is drained for the client's FIN (as gunicorn does).
LINGER_S = 2.0
#: Sending an answer fails when the client takes no bytes for this long.
SEND_TIMEOUT_S = 20.0
_SECURITY = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}
#: What gunicorn's parser may still refuse (a malformed request), as our JSON errors; the
#: first match wins. The text is ours: gunicorn's echoes the request and names its classes.
_PARSE_ERRORS: list[tuple[type[Exception], Refused | None]] = [
    (parse_errors.InvalidResponseHeader, None),  # the app's fault: a 500
    (parse_errors.InvalidResponseHeaderName, None),
    (parse_errors.ConfigurationProblem, None),
    (parse_errors.LimitRequestLine, Refused(414, "uri_too_long", "the request line is too long")),
    (parse_errors.LimitRequestHeaders, Refused(431, "header_too_large", "the head is too large")),
    (
        parse_errors.UnsupportedTransferCoding,
        Refused(501, "not_implemented", "unsupported transfer coding"),
    ),
    (parse_errors.ExpectationFailed, Refused(417, "expectation_failed", "unsupported Expect")),
    (parse_errors.ParseException, Refused(400, "bad_request", "malformed HTTP request")),
]
_INTERNAL = Refused(500, "internal", "internal server error (see the server log)")


@dataclass(eq=False)
class _Gate:
    """A connection read by the event loop: its bytes so far and its deadline."""

    conn: Any  # gunicorn.workers.gthread.TConn
    deadline: float
    buf: bytearray = field(default_factory=bytearray)
    closing: bool = False  # answered (or done): only draining until the client closes
    registered: bool = False


class GatedThreadWorker(ThreadWorker):
    """gthread, with request heads read on the event loop under a deadline (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._gates: dict[int, _Gate] = {}  # by id(conn)

    def enqueue_req(self, conn: Any) -> None:
        """Every way into the thread pool (new, kept-alive, pipelined) passes the gate."""
        if self.cfg.is_ssl:
            super().enqueue_req(conn)
            return
        held = conn.parser.unreader.take_buffered() if conn.parser is not None else b""
        gate = _Gate(conn, time.monotonic() + HEAD_TIMEOUT_S, bytearray(held))
        self._gates[id(conn)] = gate
        self._advance(gate)

    def finish_request(self, conn: Any, fs: Future[Any]) -> None:
        """A connection to close after its answer lingers on the event loop, not in it."""
        if fs.cancelled() or fs.exception() is not None or fs.result() or self.cfg.is_ssl:
            super().finish_request(conn, fs)
            return
        try:  # the thread may have closed it already (an error after the answer began)
            conn.sock.setblocking(False)
        except OSError:
            self.nr_conns -= 1
            conn.close()
            return
        gate = _Gate(conn, time.monotonic() + LINGER_S, closing=True)
        self._gates[id(conn)] = gate
        _shutdown_write(conn.sock)
        self._register(gate)

    def handle_request(self, req: Any, conn: Any) -> bool:
        """Answer in a thread; the socket's reads are all buffered, its writes bounded."""
        conn.sock.settimeout(SEND_TIMEOUT_S)
        try:
            return bool(super().handle_request(req, conn))
        except TimeoutError:
            self.log.info("closed a connection that took no bytes of its answer for %g s",
                          SEND_TIMEOUT_S)  # fmt: skip
            return False

    def handle_error(self, req: Any, client: socket.socket, addr: Any, exc: Exception) -> None:
        """gunicorn's error pages (HTML that echoes the request) as the API's JSON errors."""
        refused = next((r for cls, r in _PARSE_ERRORS if isinstance(exc, cls)), None)
        if refused is None:
            self.log.exception("error handling a request")
        else:
            self.log.warning("invalid request from %s: %s", (addr or ("?",))[0], exc)
        with contextlib.suppress(OSError):
            client.sendall(_answer(refused or _INTERNAL))

    def murder_pending(self) -> None:
        """Each loop turn: also answer or close gated connections past their deadline."""
        super().murder_pending()
        now = time.monotonic()
        for gate in list(self._gates.values()):
            if not self.alive:  # stopping: a request in flight gets the linger time, no more
                gate.deadline = min(gate.deadline, now + LINGER_S)
            if gate.deadline > now:
                continue
            if gate.closing or not gate.buf.strip(b"\r\n"):
                self._close(gate)
            else:
                self._refuse(gate, Refused(408, "request_timeout", "the request did not "
                                           f"arrive within {HEAD_TIMEOUT_S:g} s"))  # fmt: skip

    def _readable(self, gate: _Gate, _sock: object) -> None:
        try:
            data = gate.conn.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the client closed (or reset) the connection
            self._close(gate)
        elif not gate.closing:
            gate.buf += data
            self._advance(gate)

    def _advance(self, gate: _Gate) -> None:
        verdict = examine(bytes(gate.buf))
        if verdict == WAIT:
            self._register(gate)
        elif isinstance(verdict, Refused):
            self._refuse(gate, verdict)
        else:
            self._dispatch(gate)

    def _dispatch(self, gate: _Gate) -> None:
        self._unregister(gate)
        del self._gates[id(gate.conn)]
        conn = gate.conn
        if conn.parser is None:
            conn.parser = http.get_parser(self.cfg, conn.sock, conn.client)
        conn.parser.unreader.unread(bytes(gate.buf))
        conn.data_ready = True  # the thread must not wait for data: it is all buffered
        super().enqueue_req(conn)

    def _refuse(self, gate: _Gate, refused: Refused) -> None:
        """The JSON error, then a lingering close (so the client reads it, not a reset)."""
        with contextlib.suppress(OSError):  # a small answer fits the socket's buffer
            gate.conn.sock.send(_answer(refused))
        _shutdown_write(gate.conn.sock)
        gate.closing, gate.buf = True, bytearray()
        gate.deadline = time.monotonic() + LINGER_S
        self._register(gate)
        self.log.info("refused a request: %s %s", refused.status, refused.message)

    def _register(self, gate: _Gate) -> None:
        if not gate.registered:
            gate.conn.sock.setblocking(False)
            self.poller.register(gate.conn.sock, selectors.EVENT_READ,
                                 lambda sock: self._readable(gate, sock))  # fmt: skip
            gate.registered = True

    def _unregister(self, gate: _Gate) -> None:
        if gate.registered:
            with contextlib.suppress(KeyError, ValueError, OSError):
                self.poller.unregister(gate.conn.sock)
            gate.registered = False

    def _close(self, gate: _Gate) -> None:
        self._unregister(gate)
        self._gates.pop(id(gate.conn), None)
        self.nr_conns -= 1
        gate.conn.close()


def _answer(refused: Refused) -> bytes:
    """The whole HTTP answer of a refused request: its JSON error, then the end."""
    body = json.dumps(error_document(refused.code, refused.message)).encode()
    head = [f"HTTP/1.1 {refused.status} {HTTPStatus(refused.status).phrase}",
            "Content-Type: application/json", f"Content-Length: {len(body)}",
            "Connection: close", *(f"{k}: {v}" for k, v in _SECURITY.items())]  # fmt: skip
    return "\r\n".join(head).encode() + b"\r\n\r\n" + body


def _shutdown_write(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_WR)
