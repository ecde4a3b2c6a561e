"""Ground-floor helpers that every layer may use (no imports from the package)."""
