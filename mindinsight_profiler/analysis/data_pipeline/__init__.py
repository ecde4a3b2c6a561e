"""Data pipeline: DataLoader waits and MindData queue verdicts."""
