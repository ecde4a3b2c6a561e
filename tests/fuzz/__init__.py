"""Seeded fuzzing of the readers: mutated real inputs must give an error or a sound report."""
