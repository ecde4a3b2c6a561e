"""PyTorch backend: `torch.profiler` with CPU (and CUDA when present) activities.

Writes Kineto traces with torch's own `tensorboard_trace_handler`, so the output is exactly
what `torch.profiler` users already have and what every reader understands.
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path
from typing import Any

from mindinsight_profiler.collect.options import ProfilerOptions


def _distributed() -> tuple[int | None, int | None]:
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return None, None


class TorchBackend:
    """Owns one `torch.profiler.profile` for the Profiler's lifetime."""

    framework = "pytorch"

    def __init__(self, options: ProfilerOptions, trace_dir: Path) -> None:
        import torch
        from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

        rank, _ = _distributed()
        self.worker = options.worker_name or (f"rank{rank}" if rank is not None else "worker0")
        activities = [ProfilerActivity.CPU]
        if torch.cuda.is_available():
            activities.append(ProfilerActivity.CUDA)
        sched = None
        if options.schedule is not None:
            s = options.schedule
            sched = schedule(wait=s.wait, warmup=s.warmup, active=s.active, repeat=s.repeat)
        self.profile = profile(
            activities=activities,
            schedule=sched,
            on_trace_ready=tensorboard_trace_handler(
                str(trace_dir), worker_name=self.worker, use_gzip=options.use_gzip
            ),
            record_shapes=options.record_shapes,
            profile_memory=options.profile_memory,
            with_stack=options.with_stack,
            **options.extra,
        )

    def start(self) -> None:
        self.profile.start()

    def stop(self) -> None:
        self.profile.stop()

    def step(self) -> None:
        self.profile.step()

    @property
    def step_num(self) -> int:
        return int(self.profile.step_num)

    def metadata(self) -> dict[str, Any]:
        """Framework, versions, distributed rank and devices, for the run's metadata file."""
        import torch

        rank, world = _distributed()
        devices = []
        if torch.cuda.is_available():
            for i in range(torch.cuda.device_count()):
                p = torch.cuda.get_device_properties(i)
                devices.append({"id": i, "name": p.name, "total_memory": p.total_memory})
        return {
            "framework": "pytorch",
            "framework_version": torch.__version__,
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "rank": rank,
            "world_size": world,
            "worker": self.worker,
            "device": "cuda" if devices else "cpu",
            "devices": devices,
            "num_threads": torch.get_num_threads(),
        }
