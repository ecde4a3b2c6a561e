"""Pure analyses: functions of a `model.Trace` that return plain data (no charts, no HTTP)."""
