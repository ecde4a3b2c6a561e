"""Server settings: from `mindinsight start` options or `MINDINSIGHT_<NAME>` variables.

gunicorn workers are separate processes: the CLI passes settings to them through the
environment, so `Settings.from_env()` is the one way a worker learns its configuration.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path

from mindinsight_profiler.analysis.options import Options, resolve_device
from mindinsight_profiler.analysis.steps.step_trace import StepPoints
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.sources import parse_location

ENV_PREFIX = "MINDINSIGHT_"


@dataclass(frozen=True)
class Settings:
    summary_base_dir: Path | str  # a folder, or an object-storage URL (`s3://bucket/prefix`)
    workspace: Path | None = None
    rules_dirs: tuple[Path, ...] = field(default_factory=tuple)
    host: str = "127.0.0.1"
    port: int = 8080
    workers: int = 2
    url_path_prefix: str = ""
    reload_interval: float = 60.0  # seconds between run discovery scans; 0 = once
    jobs: int = 1  # background analysis processes per server (local pool)
    scheduler: str | None = None  # Dask scheduler address: analyse there instead of locally
    max_page_size: int = 1000
    # FP start / BP end operators of the step trace (MindInsight's FP_POINT/BP_POINT)
    fp_point: str | None = None
    bp_point: str | None = None
    # the device the performance model measures against: a table name or a TOML file
    device_spec: str | None = None
    # Host names (besides the bound address) that requests may name: `guard.py`
    allowed_hosts: tuple[str, ...] = ()
    # Every request but /healthz must carry it (None: no authentication): `guard.py`
    token: str | None = field(default=None, repr=False)

    @property
    def points(self) -> StepPoints:
        """The configured step-trace points, as the pipeline takes them."""
        return StepPoints(self.fp_point, self.bp_point)

    @cached_property
    def options(self) -> Options:
        """What the user configured that shapes every report (part of each cache key)."""
        return Options(self.points, resolve_device(self.device_spec))

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        """Settings from `MINDINSIGHT_SUMMARY_BASE_DIR`, `MINDINSIGHT_PORT`, ..."""
        env = dict(os.environ if env is None else env)
        values: dict[str, object] = {}
        for name in ("FP_POINT", "BP_POINT"):  # the names MindInsight users know
            if env.get(name):
                env.setdefault(ENV_PREFIX + name, env[name])
        for f in fields(cls):
            raw = env.get(ENV_PREFIX + f.name.upper())
            if raw is None or raw == "":
                continue
            try:
                values[f.name] = _parse(f.name, raw)
            except ValueError as exc:
                raise InputError(ENV_PREFIX + f.name.upper(), f"bad value {raw!r}: {exc}") from None
        if "summary_base_dir" not in values:
            raise InputError(ENV_PREFIX + "SUMMARY_BASE_DIR", "not set")
        settings = cls(**values)  # type: ignore[arg-type]
        _ = settings.options  # a wrong device spec fails here, where settings enter
        return settings

    def to_env(self) -> dict[str, str]:
        """The inverse of `from_env`, for the gunicorn child processes."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            if isinstance(value, tuple):
                value = ("," if f.name == "allowed_hosts" else os.pathsep).join(map(str, value))
            out[ENV_PREFIX + f.name.upper()] = str(value)
        return out


def _parse(name: str, raw: str) -> object:
    if name == "summary_base_dir":
        return parse_location(raw)
    if name == "workspace":
        return Path(raw)
    if name == "allowed_hosts":
        return tuple(h.strip().lower() for h in raw.split(",") if h.strip())
    if name == "rules_dirs":
        return tuple(Path(p) for p in raw.split(os.pathsep) if p)
    if name in ("port", "workers", "jobs", "max_page_size"):
        value = int(raw)
        if value < 0 or (name == "port" and value > 65535) or (name == "jobs" and value < 1):
            raise ValueError("out of range")
        return value
    if name == "reload_interval":
        value_f = float(raw)
        if value_f < 0:
            raise ValueError("must be >= 0")
        return value_f
    if name == "url_path_prefix":
        return "/" + raw.strip("/") if raw.strip("/") else ""
    return raw
