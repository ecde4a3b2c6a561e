"""Facts: host (see registry.py for how facts work)."""

from __future__ import annotations
