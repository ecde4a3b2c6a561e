"""Orchestration: input -> model -> report/advice through the workspace cache, and scale-out."""
