"""Steps and what happens inside them: boundaries, breakdown, FP/BP step trace."""
