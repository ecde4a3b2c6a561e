"""Memory: curves, peaks, allocation records and window queries per device."""
