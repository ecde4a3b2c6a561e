"""Cluster views over the ranks of a run: summaries, stages, outliers, matrix."""
