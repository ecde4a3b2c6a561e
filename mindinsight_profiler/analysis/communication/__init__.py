"""Communication: overlap with compute per step, collectives, links, parallel layout."""
