"""One time budget that every phase of a command spends (`--time-limit`): each phase asks what is left
instead of getting its own limit, so the answer is out when the budget says."""

from __future__ import annotations

import time


class Deadline:
    """`seconds` from now (None: no limit)."""

    def __init__(self, seconds: float | None) -> None:
        self.start = time.monotonic()
        self.seconds = seconds
        self.end = None if seconds is None else self.start + seconds

    def left(self, reserve: float = 0.0) -> float | None:
        """Seconds left before the end, less `reserve` (never below 0); None without a limit."""
        if self.end is None:
            return None
        return max(0.0, self.end - time.monotonic() - reserve)

    def expired(self) -> bool:
        return self.end is not None and time.monotonic() >= self.end

    def elapsed(self) -> float:
        return time.monotonic() - self.start
