"""Who may read this server: the `Host` a request names, and its token (as Jupyter does).

- Host: a web page can make its own domain resolve to 127.0.0.1 (DNS rebinding) and then
  read a loopback server as same-origin; the browser still sends the page's domain as
  `Host`. So a request must name the bound address (a loopback bind: also `localhost`,
  `127.0.0.1`, `::1`; a wildcard bind `0.0.0.0`/`::`: any IP address or this machine's
  name), or one of `--allowed-hosts` (`*`: any); other names get 403 `host_not_allowed`.
- Token: when set (`mindinsight start` sets one for every bind but loopback, unless
  `--no-auth`), every request but `/healthz` must carry it: `?token=` (the URL the start
  prints; the answer then sets an HttpOnly cookie, so the dashboard's own API calls carry
  it), `Authorization: Bearer <token>`, or that cookie; compared in constant time.
  Without it: 401 `unauthorized`. The `token` parameter is taken out of the query before
  the app sees it (API views refuse unknown parameters).
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import unquote_plus

from flask import Flask, Response, request

from mindinsight_profiler.server.errors import ApiError
from mindinsight_profiler.server.settings import Settings

#: Addresses that only this machine can reach: no token unless one is given.
LOOPBACK = ("127.0.0.1", "localhost", "::1")
_LOOPBACK_NAMES = frozenset(LOOPBACK)
_WILDCARD = ("0.0.0.0", "::", "")
#: Where the middleware leaves a `?token=` it took out of the query.
_QUERY_TOKEN = "mindinsight.query_token"


def cookie_name(port: int) -> str:
    """Per port: cookies do not tell ports apart, two servers on one host must not collide."""
    return f"mindinsight-token-{port}"


def host_name(header: str) -> str:
    """The name or address of a `Host` header, without port, brackets or final dot."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    if header.count(":") == 1:
        header = header.split(":")[0]
    return header.rstrip(".")


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_allowed(header: str, bound: str, extra: Iterable[str] = ()) -> bool:
    """Whether a request naming `header` may reach a server bound to `bound`."""
    name, allowed = host_name(header), set(extra)
    if "*" in allowed or name in allowed or name == bound.lower().strip("[]"):
        return True
    if bound in _LOOPBACK_NAMES:
        return name in _LOOPBACK_NAMES
    if bound in _WILDCARD:  # an address cannot be rebound; a name must be this machine's
        return _is_address(name) or name in _machine_names()
    return False


def _machine_names() -> set[str]:
    return {n.lower() for n in (socket.gethostname(), socket.getfqdn(), "localhost") if n}


def token_matches(given: Iterable[str | None], token: str) -> bool:
    """Any of the presented values equals the token (constant time in the token's content)."""
    expected = token.encode()
    return any(g is not None and hmac.compare_digest(g.encode(), expected) for g in given)


def take_query_token(app: Callable[..., Any]) -> Callable[..., Any]:
    """WSGI middleware: move `token=` out of QUERY_STRING into the environ."""

    def middleware(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        query = environ.get("QUERY_STRING", "")
        if "token" in query:
            kept = []
            for part in query.split("&"):
                key, _, value = part.partition("=")
                if unquote_plus(key) == "token":
                    environ[_QUERY_TOKEN] = unquote_plus(value)
                else:
                    kept.append(part)
            environ["QUERY_STRING"] = "&".join(kept)
        return app(environ, start_response)

    return middleware


def install_guard(app: Flask, settings: Settings) -> None:
    """The Host check and, when the settings have a token, the token check, on every request."""
    app.wsgi_app = take_query_token(app.wsgi_app)  # type: ignore[method-assign]
    open_path = f"{settings.url_path_prefix}/healthz"
    token = settings.token

    @app.before_request
    def guard() -> None:
        if not host_allowed(request.host, settings.host, settings.allowed_hosts):
            shown = host_name(request.host)[:100]
            raise ApiError(403, "host_not_allowed", f"this server does not answer to the host "
                           f"name {shown!r} (allow it with --allowed-hosts)")  # fmt: skip
        if token is None or request.path == open_path:
            return
        bearer = request.headers.get("Authorization", "")
        given = (
            request.environ.get(_QUERY_TOKEN),
            bearer[7:].strip() if bearer[:7].lower() == "bearer " else None,
            request.cookies.get(cookie_name(settings.port)),
        )
        if not token_matches(given, token):
            raise ApiError(401, "unauthorized", "this server needs its token: open the URL "
                           "`mindinsight start` printed (with ?token=), or send "
                           "`Authorization: Bearer <token>`")  # fmt: skip

    @app.after_request
    def remember(response: Response) -> Response:
        if response.status_code == 401:
            response.headers["WWW-Authenticate"] = 'Bearer realm="mindinsight"'
        given = request.environ.get(_QUERY_TOKEN)
        if token is not None and given is not None and token_matches([given], token):
            response.set_cookie(cookie_name(settings.port), token, httponly=True,
                                samesite="Lax", path=settings.url_path_prefix or "/")  # fmt: skip
        return response
