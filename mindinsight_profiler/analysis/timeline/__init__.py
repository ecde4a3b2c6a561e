"""Timeline: the level-of-detail index, windows, event details and export."""
