"""One error hierarchy for the whole product.

Readers raise `InputError` for anything wrong with a user's file; the CLI turns it into one
line and exit status 2, the server (later) into a 4xx. Nothing else should escape as a
traceback for bad input.
"""

from __future__ import annotations

from pathlib import Path


class ProfilerError(Exception):
    """Base class of every error this package raises on purpose."""


class InputError(ProfilerError):
    """A user's input is unreadable or not what it claims to be; names the file and the problem."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


class BadArgument(ProfilerError, ValueError):
    """An argument a program gave (an MCP tool's, the Python API's) that names nothing here
    or is out of bounds; the message starts with the parameter's name and says what is
    accepted."""

    def __init__(self, parameter: str, message: str) -> None:
        self.parameter = parameter
        super().__init__(f"{parameter}: {message}")


class ResourceError(ProfilerError):
    """The machine lacks what the work needs (e.g. disk space for a large trace's spill
    files); the message says what and how to give it. Not the input's fault, nor a bug."""


class CacheError(ProfilerError):
    """A cache entry is missing, stale or corrupt; callers rebuild it from the input."""
