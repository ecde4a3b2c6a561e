"""One error type for the API, turned into JSON in one place (never a stack trace).

Every error a client sees has one shape, `{"error": {"code", "message", ...}}`: the app's
(here), and those the worker answers before a request reaches the app (`worker.py`: a head
too large or too slow). Messages pass `public` (the server's `redact.redactor`): no server
paths, no exception class names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask, Response, jsonify
from werkzeug.exceptions import HTTPException


class ApiError(Exception):
    """A request that cannot be answered: `code` is stable for clients, `message` for people."""

    def __init__(self, status: int, code: str, message: str, **detail: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.detail = status, code, message, detail


def error_document(code: str, message: str, **detail: Any) -> dict[str, Any]:
    """The JSON body of every error answer."""
    return {"error": {"code": code, "message": message, **detail}}


def _body(status: int, code: str, message: str, **detail: Any) -> tuple[Response, int]:
    response = jsonify(error_document(code, message, **detail))
    response.headers["Cache-Control"] = "no-store"
    return response, status


def register_error_handlers(app: Flask, public: Callable[[str], str] = str) -> None:
    @app.errorhandler(ApiError)
    def api_error(exc: ApiError) -> tuple[Response, int]:
        detail = {k: public(v) if isinstance(v, str) else v for k, v in exc.detail.items()}
        return _body(exc.status, exc.code, public(exc.message), **detail)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> tuple[Response, int]:
        status = exc.code or 500
        return _body(status, (exc.name or "error").lower().replace(" ", "_"),
                     public(exc.description or ""))  # fmt: skip

    @app.errorhandler(Exception)
    def internal(exc: Exception) -> tuple[Response, int]:
        app.logger.exception("internal error")
        return _body(500, "internal", "internal server error (see the server log)")
