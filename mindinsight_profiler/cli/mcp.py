"""`mindinsight mcp`: the MCP server for coding agents (`agents.server`), over stdio (what a
local agent starts) or streamable HTTP on 127.0.0.1.

HTTP follows the web server's token rules: none on loopback unless given; a bind to any
other address gets one (given with --token, else a new one, printed), sent by clients as
`Authorization: Bearer TOKEN`; --no-auth turns it off, with a warning.
"""

from __future__ import annotations

import argparse
import hmac
import os
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from mindinsight_profiler.cli.options import add_device_option, configured_options
from mindinsight_profiler.cli.server import token_for
from mindinsight_profiler.errors import InputError, ResourceError

ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "mcp",
        help="serve the analysed runs to coding agents (Model Context Protocol)",
        description="An MCP server over the runs under a folder: tools (overview, advice, "
        "tables, timeline windows, cluster, diff), each run's report and advice as "
        "resources, and prompts to diagnose or compare runs. Agents name runs, never paths.",
    )
    p.add_argument("--summary-base-dir", type=Path,
                   default=os.environ.get("MINDINSIGHT_SUMMARY_BASE_DIR") or ".",
                   help="the folder of profiler outputs (default: the current folder)")  # fmt: skip
    p.add_argument("--workspace", type=Path, help="cache folder (default ~/.mindinsight)")
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP address (default loopback)")
    p.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    p.add_argument("--token", default=os.environ.get("MINDINSIGHT_TOKEN"),
                   help="HTTP: the token clients send (Authorization: Bearer)")  # fmt: skip
    p.add_argument("--no-auth", action="store_true", help="HTTP: no token, even off loopback")
    add_device_option(p)


def with_token(app: ASGIApp, token: str) -> ASGIApp:
    """`app` answering 401 to HTTP requests without `Authorization: Bearer <token>`."""
    expected = f"Bearer {token}".encode()

    async def guarded(
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                body = b'{"error": "missing or wrong token (Authorization: Bearer TOKEN)"}'
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json")]})  # fmt: skip
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return guarded


def run(args: argparse.Namespace) -> int:
    from mindinsight_profiler.agents.catalog import Catalog
    from mindinsight_profiler.store.cache import Workspace

    try:
        from mindinsight_profiler.agents.server import build_server
    except ImportError as exc:  # the [agents] extra is not installed
        raise ResourceError(
            f"mindinsight mcp needs the MCP SDK ({exc.name or exc}): "
            "pip install 'mindinsight-profiler[agents]'"
        ) from None

    if not 1 <= args.port <= 65535:
        raise InputError("--port", "must be 1 to 65535")
    token = token_for(args) if args.transport == "http" else None
    catalog = Catalog(args.summary_base_dir, Workspace(args.workspace), configured_options(args))
    server = build_server(catalog)
    if args.transport == "stdio":
        server.run("stdio")
        return 0
    import uvicorn

    app: Any = server.streamable_http_app(host=args.host)
    if token is not None:
        app = with_token(app, token)
        print(f"mindinsight: MCP token: {token}", file=sys.stderr)
    elif args.host not in ("127.0.0.1", "localhost", "::1"):
        warning = (f"mindinsight: WARNING: MCP on {args.host} with --no-auth: the profiles "
                   f"under {catalog.base_dir} are readable by anyone who can reach it")  # fmt: skip
        print(warning, file=sys.stderr)
    print(f"mindinsight: MCP at http://{args.host}:{args.port}/mcp over {catalog.base_dir}",
          file=sys.stderr)  # fmt: skip
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
