"""Workspace storage: caches of parsed traces and analysis results."""
