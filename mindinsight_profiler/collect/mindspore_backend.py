"""MindSpore backend: delegates collection to MindSpore's own profiler.

MindSpore writes `<host>_<pid>_<ts>_ascend_ms/` folders (also on CPU and GPU); the
MindSpore readers turn them into the same model as Kineto traces.
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path
from typing import Any

from mindinsight_profiler.collect.options import ProfilerOptions


def _rank() -> tuple[int | None, int | None]:
    try:
        from mindspore.communication import get_group_size, get_rank

        return int(get_rank()), int(get_group_size())
    except Exception:  # not initialised (single process): no rank
        return None, None


class MindSporeBackend:
    """Owns one `mindspore.profiler.profile` for the Profiler's lifetime."""

    framework = "mindspore"

    def __init__(self, options: ProfilerOptions, trace_dir: Path) -> None:
        import mindspore as ms
        from mindspore.profiler import (
            ProfilerActivity,
            profile,
            schedule,
            tensorboard_trace_handler,
        )

        rank, _ = _rank()
        self.worker = options.worker_name or (f"rank{rank}" if rank is not None else "worker0")
        self.device = str(ms.get_context("device_target"))
        activities = [ProfilerActivity.CPU]
        if self.device == "Ascend":
            activities.append(ProfilerActivity.NPU)
        elif self.device == "GPU":
            activities.append(ProfilerActivity.GPU)
        sched = None
        if options.schedule is not None:
            s = options.schedule
            sched = schedule(
                wait=s.wait, warmup=s.warmup, active=s.active, repeat=s.repeat, skip_first=0
            )
        self._steps = 0
        self.profile = profile(
            activities=activities,
            schedule=sched,
            on_trace_ready=tensorboard_trace_handler(str(trace_dir)),
            profile_memory=options.profile_memory,
            with_stack=options.with_stack,
            record_shapes=options.record_shapes,
            start_profile=False,
            **options.extra,
        )

    def start(self) -> None:
        self.profile.start()

    def stop(self) -> None:
        self.profile.stop()

    def step(self) -> None:
        self.profile.step()
        self._steps += 1

    @property
    def step_num(self) -> int:
        return self._steps

    def metadata(self) -> dict[str, Any]:
        import mindspore as ms

        rank, world = _rank()
        return {
            "framework": "mindspore",
            "framework_version": ms.__version__,
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "rank": rank,
            "world_size": world,
            "worker": self.worker,
            "device": self.device.lower(),
            "devices": [],
        }
