"""Kineto (PyTorch profiler) Chrome-trace JSON: decode, merge chunks, read."""
