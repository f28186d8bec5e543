"""DRA objects -> the facts of a Problem (devices, pools per node, claims, selectors, in-use state)."""
