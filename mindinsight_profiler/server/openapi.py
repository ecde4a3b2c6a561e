"""The OpenAPI document of /api/v1: parameters from the routes' marshmallow schemas, answers
from the declared answer structs.

Parameters come from `routes.common.ENDPOINTS`, the same declarations the views validate
with, so the document says what the server really accepts. Answers come from
`server.answers` (msgspec structs, with the report's own section structs inside), the same
declarations `docs/schema/api.schema.json` and the dashboard's TypeScript types are
generated from and the drift test holds real answers to: one contract, three outputs.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Blueprint, Response, jsonify, request

from mindinsight_profiler._version import __version__
from mindinsight_profiler.server import schemas
from mindinsight_profiler.server.answers import ENDPOINT_ANSWERS, answer_types
from mindinsight_profiler.server.routes.common import ENDPOINTS

RUN_PARAM = {"in": "path", "name": "run", "required": True, "schema": {"type": "string"},
             "description": "opaque run id from GET /runs"}  # fmt: skip
_ERRORS = {
    "400": "a bad parameter (the error names it)",
    "404": "unknown run, worker, span or device",
    "409": "not analysed yet (code not_ready): ask again later; `stage` (advice, timeline) "
    "when the overview is ready and that stage is still being built",
    "422": "the input's analysis failed (code analysis_failed, with state and reason; `stage` "
    "when only the advice or the timeline index failed, the overview being served)",
}


def _path(rule: str) -> str:
    """Flask's `<run>` as OpenAPI's `{run}`."""
    return re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule)


def _responses(ok: dict[str, Any]) -> dict[str, Any]:
    error = {"content": {"application/json": {"schema": "Error"}}}
    return {"200": ok, **{code: {"description": d, **error} for code, d in _ERRORS.items()}}


def _answer(rule: str) -> dict[str, Any]:
    """The OpenAPI schema of a route's answer: a reference to its struct, or one of them."""
    found = ENDPOINT_ANSWERS[rule]
    if isinstance(found, tuple):
        return {"oneOf": [{"$ref": f"{_REF}{c.__name__}"} for c in found]}
    return {"$ref": f"{_REF}{found.__name__}"}


_REF = "#/components/schemas/"


def _json(description: str, rule: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _answer(rule)}}}


def build_spec(server_url: str = "/api/v1") -> dict[str, Any]:
    """The document; paths are relative to `server_url` (the API's mount point)."""
    spec = APISpec(
        title="mindinsight_profiler", version=__version__, openapi_version="3.1.0",
        plugins=[MarshmallowPlugin()], servers=[{"url": server_url}],
    )  # fmt: skip
    spec.components.schema("Error", schema=schemas.Error)
    spec.path(path="/runs", operations={"get": {
        "summary": "Every run under the base dir: id, name, workers, formats, pages",
        "responses": {"200": _json("the runs", "/runs")},
    }})  # fmt: skip
    spec.path(path="/runs/{run}", operations={"get": {
        "summary": "One run", "parameters": [RUN_PARAM],
        "responses": _responses(_json("the run", "/runs/<run>")),
    }})  # fmt: skip
    spec.path(path="/openapi.json", operations={"get": {
        "summary": "This document", "responses": {"200": {"description": "OpenAPI 3"}},
    }})  # fmt: skip
    for ep in ENDPOINTS:
        if ep.response is None:
            ok: dict[str, Any] = {"description": "a file download (Content-Disposition)"}
        else:
            ok = _json(ep.summary, ep.rule)
        operation = {
            "operationId": ep.name, "summary": ep.summary,
            "parameters": [RUN_PARAM, {"in": "query", "schema": ep.query}],
            "responses": _responses(ok),
        }  # fmt: skip
        spec.path(path=_path(ep.rule), operations={"get": operation})
    doc = spec.to_dict()
    # added as they are: apispec would rewrite JSON Schema it does not know (`items: false`)
    _, answers = msgspec.json.schema_components(answer_types(), ref_template=_REF + "{name}")
    doc["components"]["schemas"].update(answers)
    return doc


def register(api: Blueprint) -> None:
    @api.get("/openapi.json")
    def openapi_json() -> Response:
        """The OpenAPI document, its server URL where this request found the API."""
        return jsonify(build_spec(request.script_root + request.path[: -len("/openapi.json")]))
