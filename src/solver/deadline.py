"""One time budget that every phase of a command spends (`--time-limit`): each phase asks what is left
instead of getting its own limit, so the answer is out when the budget says."""

from __future__ import annotations

import time


class Deadline:
    """`seconds` (None: no limit) from now, or, made `waiting`, from when the command `begin`s spending
    it (the command line makes it before the input is read; the budget starts after)."""

    def __init__(self, seconds: float | None, waiting: bool = False) -> None:
        self.seconds = seconds
        self.start = time.monotonic()
        self.end = None if seconds is None or waiting else self.start + seconds

    def begin(self) -> Deadline:
        """The budget's clock starts now (again); the deadline itself, for chaining."""
        self.start = time.monotonic()
        self.end = None if self.seconds is None else self.start + self.seconds
        return self

    def share(self, fraction: float) -> Deadline:
        """A budget of `fraction` of this one's seconds, from now (a phase that must leave the rest)."""
        return Deadline(None if self.seconds is None else self.seconds * fraction)

    def left(self, reserve: float = 0.0) -> float | None:
        """Seconds left before the end, less `reserve` (never below 0); None without a limit."""
        if self.end is None:
            return None
        return max(0.0, self.end - time.monotonic() - reserve)

    def expired(self) -> bool:
        return self.end is not None and time.monotonic() >= self.end

    def elapsed(self) -> float:
        return time.monotonic() - self.start
