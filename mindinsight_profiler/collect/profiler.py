"""`Profiler`: collect a profile in a training script, then `analyse()` it.

Argument names follow MindInsight's Profiler (output_path, subgraph, is_detail, ...) so
MindSpore users feel at home; schedule, step(), start()/stop(), context-manager use and
record_shapes/profile_memory/with_stack follow torch.profiler so PyTorch users do too.
Output layout: `<output_path>/profiler/` holds the traces, `run_meta.json`,
`dataloader_probe.json` and `analysis/`, so `<output_path>` is a run under a summary base
directory, as MindInsight lays out `<summary-base-dir>/<run>/profiler`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

from mindinsight_profiler.collect.loader_probe import ProbedLoader
from mindinsight_profiler.collect.options import ProfilerOptions, Schedule
from mindinsight_profiler.store.atomic import write_json_atomic

META_SCHEMA_VERSION = 1


def _resolve_framework(name: str) -> str:
    if name != "auto":
        return name
    if "mindspore" in sys.modules and "torch" not in sys.modules:
        return "mindspore"
    return "pytorch"


def _make_backend(framework: str, options: ProfilerOptions, trace_dir: Path) -> Any:
    if framework == "mindspore":
        from mindinsight_profiler.collect.mindspore_backend import MindSporeBackend

        return MindSporeBackend(options, trace_dir)
    from mindinsight_profiler.collect.torch_backend import TorchBackend

    return TorchBackend(options, trace_dir)


class Profiler:
    """Profile a training loop: `prof = Profiler(...)`; `prof.step()` per step; `prof.analyse()`."""

    def __init__(
        self,
        output_path: str | Path = "./data",
        subgraph: str = "all",
        is_detail: bool = True,
        is_show_op_path: bool = False,
        optypes_to_deal: str | list[str] = "",
        optypes_not_deal: str | list[str] = "Variable",
        framework: str = "auto",
        *,
        schedule: Schedule | tuple[int, ...] | None = None,
        start_profile: bool = True,
        **kwargs: Any,
    ) -> None:
        self.options = ProfilerOptions.create(
            output_path, subgraph, is_detail, is_show_op_path, optypes_to_deal,
            optypes_not_deal, framework, schedule, **kwargs,
        )  # fmt: skip
        self.framework = _resolve_framework(self.options.framework)
        self.profiler_dir = self.options.output_path / "profiler"
        self._backend: Any = None
        self._probes: list[ProbedLoader] = []
        self._running = False
        if start_profile:
            self.start()

    @property
    def torch_profiler(self) -> Any:
        """The underlying framework profiler (`torch.profiler.profile` for PyTorch)."""
        return None if self._backend is None else self._backend.profile

    def start(self) -> None:
        if self._running:
            return
        self.profiler_dir.mkdir(parents=True, exist_ok=True)
        if self._backend is None:
            self._backend = _make_backend(self.framework, self.options, self.profiler_dir)
        self._backend.start()
        self._running = True

    def step(self) -> None:
        """Mark the end of a training step (drives the schedule and the step ranges)."""
        if self._running:
            self._backend.step()

    def stop(self) -> None:
        """Stop collecting and write the run metadata and probe data beside the traces."""
        if not self._running:
            return
        self._backend.stop()
        self._running = False
        meta = {
            "schema_version": META_SCHEMA_VERSION,
            **self._backend.metadata(),
            "options": self.options.to_json(),
        }
        write_json_atomic(self.profiler_dir / "run_meta.json", meta)
        if self._probes:
            probes = [p.to_json() for p in self._probes]
            write_json_atomic(
                self.profiler_dir / f"{self._backend.worker}.dataloader_probe.json",
                {"schema_version": META_SCHEMA_VERSION, "loaders": probes},
            )

    def wrap(self, loader: Iterable[Any]) -> ProbedLoader:
        """Iterate `loader` through this, to record each step's wait for its batch."""
        probe = ProbedLoader(loader, lambda: self._backend.step_num if self._backend else 0)
        self._probes.append(probe)
        return probe

    def __enter__(self) -> Profiler:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def analyse(self, quiet: bool = False) -> dict[str, Any]:
        """Stop if needed, analyse the traces, write `analysis/report.json`, print a summary."""
        from mindinsight_profiler.collect.analyse import analyse_run, summary

        self.stop()
        report = analyse_run(self.profiler_dir, self.options)
        if not quiet:
            print(summary(report, self.profiler_dir), file=sys.stderr)
        return report
