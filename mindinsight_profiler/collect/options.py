"""The Profiler's options: MindInsight's argument names plus what PyTorch users expect.

Validated once, at construction, so a typo fails before hours of training, not after.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SUBGRAPHS = ("all", "forward", "backward", "Default", "Gradients")
FRAMEWORKS = ("auto", "pytorch", "mindspore")


@dataclass(frozen=True)
class Schedule:
    """Skip `wait` steps, warm up for `warmup`, record `active`; `repeat` cycles (0 = forever)."""

    wait: int = 0
    warmup: int = 0
    active: int = 1
    repeat: int = 0

    def __post_init__(self) -> None:
        if min(self.wait, self.warmup, self.repeat) < 0 or self.active < 1:
            raise ValueError(f"invalid schedule {self}: wait, warmup, repeat >= 0; active >= 1")


def _types(value: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else list(value)
    return tuple(s.strip() for s in items if s.strip())


@dataclass(frozen=True)
class ProfilerOptions:
    output_path: Path
    subgraph: str = "all"
    is_detail: bool = True
    is_show_op_path: bool = False
    optypes_to_deal: tuple[str, ...] = ()
    optypes_not_deal: tuple[str, ...] = ("Variable",)
    framework: str = "auto"
    schedule: Schedule | None = None
    record_shapes: bool = False
    profile_memory: bool = False
    with_stack: bool = False
    worker_name: str | None = None
    use_gzip: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def create(
        cls,
        output_path: str | Path = "./data",
        subgraph: str = "all",
        is_detail: bool = True,
        is_show_op_path: bool = False,
        optypes_to_deal: str | list[str] = "",
        optypes_not_deal: str | list[str] = "Variable",
        framework: str = "auto",
        schedule: Schedule | tuple[int, ...] | None = None,
        **kwargs: Any,
    ) -> ProfilerOptions:
        """Validate user arguments (raises ValueError naming the bad one)."""
        if subgraph not in SUBGRAPHS:
            raise ValueError(f"subgraph must be one of {SUBGRAPHS}, not {subgraph!r}")
        if framework not in FRAMEWORKS:
            raise ValueError(f"framework must be one of {FRAMEWORKS}, not {framework!r}")
        if isinstance(schedule, tuple):
            schedule = Schedule(*schedule)
        known = {"record_shapes", "profile_memory", "with_stack", "worker_name", "use_gzip"}
        flags = {k: kwargs.pop(k) for k in list(kwargs) if k in known}
        return cls(
            output_path=Path(output_path),
            subgraph=subgraph,
            is_detail=bool(is_detail),
            is_show_op_path=bool(is_show_op_path),
            optypes_to_deal=_types(optypes_to_deal),
            optypes_not_deal=_types(optypes_not_deal),
            framework=framework,
            schedule=schedule,
            extra=kwargs,  # passed on to the framework's own profiler
            **flags,
        )

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["output_path"] = str(self.output_path)
        return data
