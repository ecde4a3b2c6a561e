"""Summary dirs in object storage and other filesystems, through fsspec.

`s3://`, `gs://`, `az://` (any protocol fsspec knows) are listed with fsspec, and the
listing goes through discovery's own rules (`discover_tree`), so a bucket prefix gives the
runs that a local folder of the same files gives. Readers read only local files: an input
is staged into the workspace before it is read, mirroring the remote layout under
`<workspace>/remote/<hash of protocol and endpoint>/data/<bucket>/<key>` (a reader sees the
same names and neighbours as on the server). Only the objects a reader needs are staged
(raw `PROF_*` data and logs of a worker folder are not), each downloaded in 8 MiB blocks to
a temporary name and renamed into place, and only when its listed size or version (ETag,
generation, mtime) differs from the staged one. The cache keys a remote input by its
listing (`RemoteInput.identity`), so a change on the server is noticed without a download.

Credentials come from each backend's usual places (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
AWS_ENDPOINT_URL, ~/.aws; GOOGLE_APPLICATION_CREDENTIALS; AZURE_STORAGE_CONNECTION_STRING,
...). `MINDINSIGHT_STORAGE_OPTIONS` (a JSON object) is passed to the filesystem as keyword
arguments, e.g. `{"endpoint_url": "http://127.0.0.1:9000"}` for an S3-compatible server.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.discovery import Run, TraceFile, discover_tree
from mindinsight_profiler.formats.discovery import parse_name as _parse_name
from mindinsight_profiler.formats.registry import spec_of
from mindinsight_profiler.formats.sources import Member, RemoteInput, url_protocol
from mindinsight_profiler.formats.spec import FormatTag
from mindinsight_profiler.formats.tree import ROOT, ListingTree, Opener

log = logging.getLogger(__name__)

OPTIONS_ENV = "MINDINSIGHT_STORAGE_OPTIONS"
#: Bytes per read while downloading: what a staging process holds of an object at a time.
CHUNK = 8 << 20
#: The package implementing each protocol, named when it is missing.
PACKAGES = {"s3": "s3fs", "s3a": "s3fs", "gs": "gcsfs", "gcs": "gcsfs", "az": "adlfs",
            "abfs": "adlfs", "abfss": "adlfs", "adl": "adlfs"}  # fmt: skip
#: Fields of an fsspec info dict that tell versions of one object apart.
_VERSION_KEYS = ("ETag", "etag", "generation", "md5Hash", "VersionId", "LastModified",
                 "last_modified", "updated", "mtime")  # fmt: skip
_SECRET_WORDS = ("key", "secret", "token", "password", "credential", "sas", "sig")


def storage_options() -> dict[str, Any]:
    """Keyword arguments for the filesystem, from `MINDINSIGHT_STORAGE_OPTIONS` (JSON)."""
    raw = os.environ.get(OPTIONS_ENV, "").strip()
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise InputError(OPTIONS_ENV, f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise InputError(OPTIONS_ENV, "must be a JSON object of filesystem keyword arguments")
    return value


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def filesystem(url: str) -> tuple[Any, str]:
    """(fsspec filesystem, path within it) of a URL; a missing package is named."""
    protocol = url_protocol(url) or "file"
    try:
        import fsspec
    except ImportError:
        raise InputError(url, "reading URLs needs fsspec: pip install "
                         "'mindinsight_profiler[remote]'") from None  # fmt: skip
    try:
        fs, path = fsspec.core.url_to_fs(url, **storage_options())
    except ImportError as exc:
        package = PACKAGES.get(protocol)
        hint = f"the {package} package: pip install {package}" if package else f"a package ({exc})"
        raise InputError(url, f"{protocol}:// needs {hint}") from None
    except ValueError as exc:
        if "not known" in str(exc):
            raise InputError(url, f"unknown protocol {protocol}:// (not in fsspec)") from None
        raise InputError(url, f"bad URL or storage options: {_one_line(exc)}") from None
    except TypeError as exc:
        raise InputError(url, f"bad storage options ({OPTIONS_ENV}): {_one_line(exc)}") from None
    return fs, str(path).rstrip("/")


def stage_dir(workspace_root: Path, url: str) -> Path:
    """The staging folder of a URL's filesystem: one per protocol, endpoint and account.

    Secrets are left out of the hash, so rotating a key does not re-download everything.
    """
    options = {k: v for k, v in storage_options().items()
               if not any(w in k.lower() for w in _SECRET_WORDS)}  # fmt: skip
    env = [os.environ.get(n, "") for n in ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL",
                                           "AZURE_STORAGE_ACCOUNT_NAME")]  # fmt: skip
    ident = json.dumps([url_protocol(url), options, env], sort_keys=True, default=str)
    return workspace_root / "remote" / hashlib.sha256(ident.encode()).hexdigest()[:16]


def _local(stage: Path, fs_path: str) -> Path | None:
    """Where an object is staged; None for a key that is no safe local path (`..`, `//`)."""
    parts = fs_path.lstrip("/").split("/")
    if any(p in ("", ".", "..") or "\0" in p or len(p.encode()) > 255 for p in parts):
        return None
    return stage.joinpath("data", *parts)


def _staged(stage: Path, path: str, url: str) -> Path:
    local = _local(stage, path)
    if local is None:
        raise InputError(url, "this path cannot be staged locally (empty, '.' or '..' parts)")
    return local


def staged_path(url: str, workspace_root: Path) -> Path:
    """The local path a URL's objects are staged under (the server's base for safety checks)."""
    return _staged(stage_dir(workspace_root, url), filesystem(url)[1], url)


def _version(info: dict[str, Any]) -> str:
    return "|".join(f"{k}={info[k]}" for k in _VERSION_KEYS if info.get(k) not in (None, ""))


@contextlib.contextmanager
def _asking(url: str, doing: str) -> Iterator[None]:
    """Storage errors of the requests inside, as one-line InputErrors naming the URL."""
    try:
        yield
    except FileNotFoundError:
        raise InputError(url, "not found (no such bucket, prefix or object)") from None
    except PermissionError as exc:
        raise InputError(url, f"access denied, check the credentials: {_one_line(exc)}") from None
    except Exception as exc:  # each backend has its own errors; one line names the URL
        raise InputError(url, f"cannot {doing}: {_one_line(exc)}") from None


def _list(fs: Any, path: str, url: str) -> tuple[dict[str, dict[str, Any]], bool]:
    """({object path: info}, whether the URL is one object): a fresh listing."""
    with _asking(url, "list"):
        fs.invalidate_cache()
        info = fs.info(path)
        if info.get("type") == "file":
            return {path: info}, True
        found = fs.find(path, detail=True)
    prefix = path + "/"
    files = {name: i for name, i in found.items()
             if name.startswith(prefix) and i.get("type", "file") == "file"}  # fmt: skip
    return files, False


def check_location(url: str) -> None:
    """Raise a one-line InputError unless the URL is a readable prefix (a folder)."""
    fs, path = filesystem(url)
    with _asking(url, "read"):
        fs.invalidate_cache()
        info = fs.info(path)
    if info.get("type") == "file":
        raise InputError(url, "an object, not a prefix: give the folder of runs")


def _member(fs: Any, stage: Path, name: str, info: dict[str, Any]) -> Member | None:
    local = _local(stage, name)
    if local is None:
        log.warning("skipping %s: its key is not a safe local path", name)
        return None
    return Member(fs.unstrip_protocol(name), local, int(info.get("size") or 0), _version(info))


def discover_remote(url: str, workspace_root: Path) -> list[Run]:
    """The runs under a URL, as `discover` finds them in a local folder of the same files.

    Each input carries its `RemoteInput` (objects, versions, staging paths); nothing is
    downloaded here.
    """
    fs, path = filesystem(url)
    parts = path.split("/")
    name, parent = parts[-1], (parts[-2] if len(parts) > 1 else "")
    if name == "ASCEND_PROFILER_OUTPUT" and parent.endswith("_ascend_pt"):
        # the export folder given directly: its worker folder is read, as for a local path
        runs = discover_remote(url.rstrip("/").rsplit("/", 1)[0], workspace_root)
        return [Run(name, r.path / name, r.files) for r in runs]
    stage = stage_dir(workspace_root, url)
    found, single = _list(fs, path, url)
    base = _staged(stage, path, url)
    members = {}
    for obj, info in found.items():
        member = _member(fs, stage, obj, info)
        if member is not None:
            members[PurePosixPath(obj[len(path) + 1 :] if not single else ".")] = member
    if single:
        parsed = _parse_name(name, strict=False)
        worker, span = parsed if parsed else (name, "")
        probe = _probe(fs, stage, f"{path.rsplit('/', 1)[0]}/{worker}.dataloader_probe.json")
        remote = RemoteInput(fs.unstrip_protocol(path), base, (members[ROOT], *probe), (), stage)
        return [Run(parent or name, base.parent, [TraceFile(worker, span, base, remote=remote)])]

    def opener(rel: PurePosixPath) -> Opener:
        return lambda: fs.open(f"{path}/{rel}", "rb")

    tree = ListingTree(members, name, parent, opener)
    runs = discover_tree(tree, lambda rel: base / rel)
    root_ms = any(
        f.path == base and f.format == FormatTag.MINDSPORE2 for r in runs for f in r.files
    )
    beside = _beside_root(fs, stage, path) if root_ms else ()

    def url_of(rel: PurePosixPath) -> str:
        return str(fs.unstrip_protocol(path if rel == ROOT else f"{path}/{rel}"))

    for run in runs:
        run.files[:] = [
            replace(f, remote=_input(f, members, base, stage, beside, url_of)) for f in run.files
        ]
    return runs


def _probe(fs: Any, stage: Path, obj: str) -> tuple[Member, ...]:
    """The Profiler's DataLoader probe file beside a trace object, when there is one."""
    try:
        info = fs.info(obj)
    except Exception:  # absent (or unreadable): the report is made without it, as locally
        return ()
    member = _member(fs, stage, obj, info) if info.get("type") == "file" else None
    return (member,) if member else ()


def _beside_root(fs: Any, stage: Path, path: str) -> tuple[Member, ...]:
    """`minddata_profiling/` beside a MindSpore worker folder given directly (not listed)."""
    folder = f"{path.rsplit('/', 1)[0]}/minddata_profiling" if "/" in path else ""
    try:
        found = fs.find(folder, detail=True) if folder else {}
    except Exception:
        return ()
    out = (_member(fs, stage, n, i) for n, i in found.items() if i.get("type", "file") == "file")
    return tuple(m for m in out if m is not None)


def _input(
    file: TraceFile, members: dict[PurePosixPath, Member], base: Path, stage: Path,
    beside_root: tuple[Member, ...], url_of: Callable[[PurePosixPath], str],
) -> RemoteInput:  # fmt: skip
    """The objects one worker's reader needs, and the staged folders it owns."""
    rel = PurePosixPath(file.path.relative_to(base))
    url = url_of(rel)
    spec = spec_of(file.format)
    if spec is None or spec.staged_subfolders is None:  # one file, and its probe file
        probe = rel.parent / f"{file.worker}.dataloader_probe.json"
        chosen = tuple(members[r] for r in (rel, probe) if r in members)
        return RemoteInput(url, file.path, chosen, (), stage)
    # a worker folder: the sub-folders its reader reads, and the one beside it if it reads that
    subs, beside = spec.staged_subfolders, spec.staged_beside
    scopes = [(rel, False), *((rel / s, True) for s in subs)]
    if beside and rel != ROOT:
        scopes.append((rel.parent / "minddata_profiling", True))
    chosen = tuple(m for r, m in sorted(members.items()) if any(
        (folder in r.parents) if deep else (r.parent == folder) for folder, deep in scopes
    )) + (beside_root if beside and rel == ROOT else ())  # fmt: skip
    owned = tuple((base / folder, deep) for folder, deep in scopes)
    if beside and rel == ROOT:
        owned += ((base.parent / "minddata_profiling", True),)
    return RemoteInput(url, file.path, chosen, owned, stage)
