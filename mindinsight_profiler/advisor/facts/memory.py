"""Facts: memory (see registry.py for how facts work)."""

from __future__ import annotations
