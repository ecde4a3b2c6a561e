"""Readers: one per input format, each producing the normalised `model.Trace`."""
