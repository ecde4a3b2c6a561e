"""How an analysis route is declared: its query schema and response schema, in one place.

`endpoint` registers a thin view that parses the query through its schema (400 on any bad
parameter), calls the plain function with the run id and the parsed parameters, and dumps
the answer through the response schema. The same declarations feed the OpenAPI document,
so the document cannot drift from what the routes accept.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
from flask import Blueprint, Response, request
from marshmallow import Schema

from mindinsight_profiler.server.schemas import parse


@dataclass(frozen=True)
class Endpoint:
    rule: str  # relative to /api/v1
    name: str
    summary: str
    query: type[Schema]
    response: type[Schema] | None  # None: a file download


#: Every declared route, for the OpenAPI document.
ENDPOINTS: list[Endpoint] = []

View = Callable[..., Any]


def json_response(data: Any) -> Response:
    """JSON through msgspec (several times faster than the json module on large answers)."""
    return Response(msgspec.json.encode(data), mimetype="application/json")


def endpoint(
    bp: Blueprint, rule: str, query: type[Schema], response: type[Schema] | None
) -> Callable[[View], View]:
    """Declare `GET rule`: `fn(run, params)` returns a dict (or a Response, for downloads)."""

    def wrap(fn: View) -> View:
        name = fn.__name__
        summary = (fn.__doc__ or name).strip().splitlines()[0]
        ENDPOINTS.append(Endpoint(rule, name, summary, query, response))

        # One instance each, shared by all requests: building a marshmallow schema costs
        # more than most answers (schemas keep no per-call state).
        query_schema = query()
        response_schema = response() if response is not None else None

        def view(run: str) -> Response:
            params = parse(query_schema, request.args)
            result = fn(run, params)
            if isinstance(result, Response):
                return result
            assert response_schema is not None
            return json_response(response_schema.dump(result))

        view.__name__ = name
        view.__doc__ = fn.__doc__
        bp.add_url_rule(rule, endpoint=name, view_func=view, methods=["GET"])
        return fn

    return wrap


def stream_file(path: Path, chunk: int = 1 << 16) -> Iterator[bytes]:
    """The file's bytes for a download; it is unlinked once open, so an aborted download
    leaves nothing behind."""
    with open(path, "rb") as f:
        path.unlink(missing_ok=True)
        while data := f.read(chunk):
            yield data


def download(
    write: Callable[[Path], object], filename: str, mimetype: str,
    headers: dict[str, str] | None = None,
) -> Response:  # fmt: skip
    """A file written by `write` into a temporary path (removed if writing fails), sent as
    an attachment named `filename` and gone once sent (`stream_file`)."""
    suffix = "".join(Path(filename).suffixes[-2:])
    fd, name = tempfile.mkstemp(prefix="mindinsight-download-", suffix=suffix)
    os.close(fd)
    path = Path(name)
    try:
        write(path)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    sent = {
        "Content-Disposition": f'attachment; filename="{filename}"',
        "Content-Length": str(path.stat().st_size),
        "Cache-Control": "no-store",
        **(headers or {}),
    }
    return Response(stream_file(path), mimetype=mimetype, headers=sent)
