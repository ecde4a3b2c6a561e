"""How an analysis route is declared: its query schema and response schema, in one place.

`endpoint` registers a thin view that parses the query through its schema (400 on any bad
parameter), calls the plain function with the run id and the parsed parameters, and dumps
the answer through the response schema. The same declarations feed the OpenAPI document,
so the document cannot drift from what the routes accept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, jsonify, request
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


def endpoint(
    bp: Blueprint, rule: str, query: type[Schema], response: type[Schema] | None
) -> Callable[[View], View]:
    """Declare `GET rule`: `fn(run, params)` returns a dict (or a Response, for downloads)."""

    def wrap(fn: View) -> View:
        name = fn.__name__
        summary = (fn.__doc__ or name).strip().splitlines()[0]
        ENDPOINTS.append(Endpoint(rule, name, summary, query, response))

        def view(run: str) -> Response:
            params = parse(query(), request.args)
            result = fn(run, params)
            if isinstance(result, Response):
                return result
            assert response is not None
            return jsonify(response().dump(result))

        view.__name__ = name
        view.__doc__ = fn.__doc__
        bp.add_url_rule(rule, endpoint=name, view_func=view, methods=["GET"])
        return fn

    return wrap
