"""One error type for the API, turned into JSON in one place (never a stack trace)."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify
from werkzeug.exceptions import HTTPException


class ApiError(Exception):
    """A request that cannot be answered: `code` is stable for clients, `message` for people."""

    def __init__(self, status: int, code: str, message: str, **detail: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.detail = status, code, message, detail


def _body(status: int, code: str, message: str, **detail: Any) -> tuple[Response, int]:
    response = jsonify({"error": {"code": code, "message": message, **detail}})
    response.headers["Cache-Control"] = "no-store"
    return response, status


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def api_error(exc: ApiError) -> tuple[Response, int]:
        return _body(exc.status, exc.code, exc.message, **exc.detail)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> tuple[Response, int]:
        status = exc.code or 500
        return _body(status, (exc.name or "error").lower().replace(" ", "_"),
                     exc.description or "")  # fmt: skip

    @app.errorhandler(Exception)
    def internal(exc: Exception) -> tuple[Response, int]:
        app.logger.exception("internal error")
        return _body(500, "internal", "internal server error (see the server log)")
