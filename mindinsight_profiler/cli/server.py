"""`mindinsight start` / `mindinsight stop`: the service under gunicorn, by pid file.

`start` runs `python -m gunicorn 'mindinsight_profiler.server.app:create_app()'` in its own
session (so `stop` can end the whole process group: master, workers and analysis
processes, and nothing else), hands it the settings through `MINDINSIGHT_*` variables,
waits for `/healthz` and prints the URL. Its workers are `server.worker.GatedThreadWorker`
(slow clients hold no thread); a bind other than loopback gets a token (printed in the URL,
as Jupyter does) unless `--no-auth` says otherwise, see `server/guard.py`. gunicorn writes
`<workspace>/server-<port>.pid` and removes it on a clean exit; a pid file whose process is
gone or is not our server is stale and is removed with a message.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from mindinsight_profiler.cli.options import DEVICE_HELP
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.sources import parse_location
from mindinsight_profiler.store.cache import Workspace

APP = "mindinsight_profiler.server.app:create_app()"
START_TIMEOUT_S = 60.0
WORKER = "mindinsight_profiler.server.worker.GatedThreadWorker"


def _env(name: str, default: Any) -> Any:
    """An option's default from `MINDINSIGHT_<NAME>` (the command line still wins).

    Returned as text: argparse converts a string default with the option's type, so a bad
    value is reported like a bad command-line value.
    """
    raw = os.environ.get(f"MINDINSIGHT_{name}")
    return default if raw in (None, "") else raw


def add_parsers(sub: Any) -> None:
    s = sub.add_parser(
        "start",
        help="start the REST service (gunicorn) in the background",
        description="Options default to MINDINSIGHT_<OPTION> environment variables "
        "(e.g. MINDINSIGHT_SUMMARY_BASE_DIR, MINDINSIGHT_PORT).",
    )
    base = _env("SUMMARY_BASE_DIR", None)
    s.add_argument("--summary-base-dir", type=parse_location, required=base is None,
                   default=base, help="folder of runs, or a URL: s3://bucket/prefix, gs://, "
                   "az://, file:// (see docs/remote.md)")  # fmt: skip
    s.add_argument("--port", type=int, default=_env("PORT", 8080))
    s.add_argument("--host", default=_env("HOST", "127.0.0.1"),
                   help="address to bind (default loopback)")  # fmt: skip
    s.add_argument("--workers", type=int, default=_env("WORKERS", 2),
                   help="gunicorn worker processes")  # fmt: skip
    s.add_argument("--threads", type=int, default=_env("THREADS", 8),
                   help="request threads per worker (1-64); requests are read on each "
                        "worker's event loop, so slow clients hold none")  # fmt: skip
    s.add_argument("--allowed-hosts", default=_env("ALLOWED_HOSTS", ""),
                   help="comma-separated host names requests may use besides the bound "
                        "address, e.g. a reverse proxy's (* = any)")  # fmt: skip
    s.add_argument("--token", default=_env("TOKEN", None),
                   help="the token clients must send (default: a random one when binding "
                        "anything but loopback; none on loopback)")  # fmt: skip
    s.add_argument("--no-auth", action="store_true",
                   help="no token even when binding anything but loopback (anyone who can "
                        "reach the address reads the profiles)")  # fmt: skip
    s.add_argument("--url-path-prefix", default=_env("URL_PATH_PREFIX", ""),
                   help="serve under this path prefix")  # fmt: skip
    s.add_argument("--reload-interval", type=float, default=_env("RELOAD_INTERVAL", 60.0),
                   help="seconds between run discovery scans (0: once)")  # fmt: skip
    s.add_argument("--workspace", type=Path, default=_env("WORKSPACE", None),
                   help="cache and state folder (~/.mindinsight)")  # fmt: skip
    s.add_argument("--jobs", type=int, default=_env("JOBS", 1),
                   help="background analysis processes (local pool, default 1)")  # fmt: skip
    s.add_argument("--scheduler", default=_env("SCHEDULER", None),
                   help="Dask scheduler address (tcp://host:port): analyse there; the base dir "
                        "and workspace must be at the same paths on its workers")  # fmt: skip
    s.add_argument("--rules-dir", type=Path, action="append", default=[], help="advisor rules")
    s.add_argument("--device-spec", metavar="NAME|FILE", default=_env("DEVICE_SPEC", None),
                   help=DEVICE_HELP)  # fmt: skip
    s.add_argument("--foreground", action="store_true", help="stay attached until Ctrl-C")
    t = sub.add_parser("stop", help="stop the service started by `mindinsight start`")
    t.add_argument("--port", type=int, default=8080)
    t.add_argument("--workspace", type=Path, help="as given to start (~/.mindinsight)")
    t.add_argument("--timeout", type=float, default=30.0, help="seconds before SIGKILL")


def pid_file(workspace: Path, port: int) -> Path:
    return workspace / f"server-{port}.pid"


def _server_pid(path: Path) -> int | None:
    """The pid in `path` if that process is alive and is our gunicorn; else None."""
    try:
        pid = int(path.read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except (OSError, ValueError):
        return None
    return pid if b"gunicorn" in cmdline and APP.encode() in cmdline else None


def _check_port(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            raise InputError(f"{host}:{port}", f"cannot bind: {exc.strerror}") from None


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=2) as r:
            return bool(r.status == 200)
    except OSError:
        return False


def start(args: argparse.Namespace) -> int:
    # the server's modules (Flask) are loaded only by the commands that serve
    from mindinsight_profiler.server.guard import LOOPBACK
    from mindinsight_profiler.server.heads import GUNICORN_LIMITS
    from mindinsight_profiler.server.settings import Settings

    base = args.summary_base_dir
    if isinstance(base, str):  # a URL: reachable, with these credentials
        from mindinsight_profiler.store.remote import check_location

        check_location(base)
    elif not base.is_dir():
        raise InputError(base, "summary base dir does not exist or is not a folder")
    if not 0 < args.port < 65536 or args.workers < 1 or args.reload_interval < 0:
        raise InputError("--port/--workers/--reload-interval", "out of range")
    if args.jobs < 1:
        raise InputError("--jobs", "must be at least 1")
    if args.scheduler and importlib.util.find_spec("distributed") is None:
        from mindinsight_profiler.pipeline.scale import NEEDS_DASK

        raise InputError("--scheduler", NEEDS_DASK)
    if not 1 <= args.threads <= 64:
        raise InputError("--threads", "must be between 1 and 64")
    from mindinsight_profiler.advisor.rules import load_rules

    load_rules(args.rules_dir)  # a bad rule file stops the start here, not every analysis later
    token = token_for(args)
    workspace = Workspace(args.workspace).root.resolve()
    workspace.mkdir(parents=True, exist_ok=True)
    pidf = pid_file(workspace, args.port)
    if pidf.exists():
        pid = _server_pid(pidf)
        if pid is not None:
            raise InputError(pidf, f"a server is already running on port {args.port} (pid {pid})")
        print(f"mindinsight: removing stale pid file {pidf}", file=sys.stderr)
        pidf.unlink(missing_ok=True)
    _check_port(args.host, args.port)
    if args.host not in LOOPBACK:
        print(_warning(args.host, base, token), file=sys.stderr)
    settings = Settings(
        summary_base_dir=base if isinstance(base, str) else base.resolve(), workspace=workspace,
        rules_dirs=tuple(p.resolve() for p in args.rules_dir), host=args.host, port=args.port,
        workers=args.workers, url_path_prefix=args.url_path_prefix,
        reload_interval=args.reload_interval, jobs=args.jobs, scheduler=args.scheduler or None,
        fp_point=os.environ.get("FP_POINT") or None, bp_point=os.environ.get("BP_POINT") or None,
        device_spec=_device_spec(args.device_spec),
        allowed_hosts=tuple(h for h in args.allowed_hosts.split(",") if h.strip()), token=token,
    )  # fmt: skip
    settings = Settings.from_env(settings.to_env())  # normalised exactly as workers will see it
    logs = workspace / "logs"
    logs.mkdir(exist_ok=True)
    bind = f"[{args.host}]:{args.port}" if ":" in args.host else f"{args.host}:{args.port}"
    cmd = [
        sys.executable, "-m", "gunicorn", "--bind", bind, "--workers", str(args.workers),
        "--worker-class", WORKER, "--threads", str(args.threads), "--keep-alive", "5",
        *(x for item in GUNICORN_LIMITS.items() for x in item),
        "--pid", str(pidf), "--timeout", "120", "--graceful-timeout", "20", "--no-control-socket",
        "--error-logfile", str(logs / f"gunicorn-{args.port}.log"), "--capture-output",
        "--name", f"mindinsight-{args.port}", APP,
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "MINDINSIGHT_TOKEN"}
    env.update(settings.to_env())  # a token only when the settings have one (not --no-auth)
    if args.foreground:  # before the child exists: a signal during start-up also stops it
        for signum in (signal.SIGINT, signal.SIGTERM):  # also when started with SIGINT ignored
            signal.signal(signum, _interrupt)
    log_out = open(logs / f"gunicorn-{args.port}.out", "ab")  # noqa: SIM115 (child keeps it)
    proc = subprocess.Popen(
        cmd, env=env, stdin=subprocess.DEVNULL, stdout=log_out, stderr=log_out,
        start_new_session=True,
    )  # fmt: skip
    log_out.close()
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{args.port}{settings.url_path_prefix}"
    shown = f"{url}/?token={token}" if token else f"{url}/"
    try:
        return _serve(proc, url, shown, logs, args.port, args.foreground, f"{base}", workspace)
    except KeyboardInterrupt:
        _terminate(proc.pid, 30.0, proc)
        pidf.unlink(missing_ok=True)
        return 0


def _serve(
    proc: subprocess.Popen[bytes], url: str, shown: str, logs: Path, port: int,
    foreground: bool, base: str, workspace: Path,
) -> int:  # fmt: skip
    """Wait until the server answers, then return (or, in the foreground, wait for it)."""
    from mindinsight_profiler.server.static import UI_DIR

    deadline = time.monotonic() + START_TIMEOUT_S
    while not _healthy(url):
        if proc.poll() is not None or time.monotonic() > deadline:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            tail = _tail(logs / f"gunicorn-{port}.log")
            raise InputError(url, f"server did not start (see {logs}):\n{tail}")
        time.sleep(0.2)
    print(f"mindinsight: serving {base} at {shown} (pid {proc.pid}, workspace {workspace})")
    if not (UI_DIR / "index.html").is_file():  # the API works; the page would only say so
        print(f"mindinsight: warning: the dashboard is not built ({UI_DIR} is missing); "
              "only the API is served. From a source checkout: bash scripts/build_ui.sh",
              file=sys.stderr)  # fmt: skip
    sys.stdout.flush()
    return proc.wait() if foreground else 0


def token_for(args: argparse.Namespace) -> str | None:
    """The token clients must send: given, or new for a bind other than loopback (the
    dashboard's and the MCP server's rule: `--host`, `--token`, `--no-auth`)."""
    from mindinsight_profiler.server.guard import LOOPBACK

    if args.no_auth and args.token:
        raise InputError("--no-auth", "contradicts --token (or MINDINSIGHT_TOKEN)")
    if args.token is not None and not re.fullmatch(r"[A-Za-z0-9._~-]{16,256}", args.token):
        raise InputError("--token", "must be 16 to 256 letters, digits or . _ ~ - (it goes "
                         "into a URL)")  # fmt: skip
    if args.no_auth or (args.token is None and args.host in LOOPBACK):
        return None
    return str(args.token or secrets.token_urlsafe(32))


def _device_spec(value: str | None) -> str | None:
    """A device file by its absolute path (workers start elsewhere), a name as given."""
    if value and (value.lower().endswith(".toml") or Path(value).is_file()):
        return str(Path(value).resolve())
    return value or None


def _warning(host: str, base: object, token: str | None) -> str:
    if token is None:
        return (f"mindinsight: WARNING: binding to {host} with --no-auth: the profiles under "
                f"{base} are readable by anyone who can reach this address "
                "(no authentication)")  # fmt: skip
    return (f"mindinsight: WARNING: binding to {host}: the profiles under {base} are readable "
            "by anyone who can reach this address and has the token in the URL below "
            "(requests without it get 401; --no-auth turns this off)")  # fmt: skip


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _terminate(pid: int, timeout: float, child: subprocess.Popen[bytes] | None = None) -> bool:
    """SIGTERM the master, wait for the whole group to leave; SIGKILL what remains.

    Returns True when it stopped gracefully within `timeout`. `child`: the master when it is
    our own child (foreground), reaped here so its zombie does not keep the group alive.
    """
    own_group = os.getpgid(pid) == pid  # started by us in its own session
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child is not None:
            child.poll()
        alive = _group_alive(pid) if own_group else Path(f"/proc/{pid}").exists()
        if not alive:
            return True
        time.sleep(0.1)
    if own_group:
        os.killpg(pid, signal.SIGKILL)
    else:
        os.kill(pid, signal.SIGKILL)
    if child is not None:
        child.wait()
    while _group_alive(pid) if own_group else Path(f"/proc/{pid}").exists():
        time.sleep(0.05)
    return False


def stop(args: argparse.Namespace) -> int:
    workspace = Workspace(args.workspace).root.resolve()
    pidf = pid_file(workspace, args.port)
    if not pidf.exists():
        raise InputError(pidf, f"no server started on port {args.port} with this workspace")
    pid = _server_pid(pidf)
    if pid is None:
        pidf.unlink(missing_ok=True)
        raise InputError(pidf, "stale pid file (no such server process); removed it")
    graceful = _terminate(pid, args.timeout)
    pidf.unlink(missing_ok=True)
    how = "stopped" if graceful else f"killed (no exit within {args.timeout:g} s)"
    print(f"mindinsight: server on port {args.port} (pid {pid}) {how}")
    return 0
