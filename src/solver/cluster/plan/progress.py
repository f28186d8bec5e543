"""What a plan is doing, on one stderr line refreshed every second from the first one: reading,
kube-scheduler's pass (pods/s), building, solving (the model's pods against kube-scheduler's, the bound,
the gap, the seconds left), checking. A thread writes the line, so it moves while a phase works (CP-SAT
releases the interpreter while it searches; Python phases give it a turn every few milliseconds)."""

from __future__ import annotations

import logging
import sys
import threading
import time
from typing import TextIO

from ...deadline import Deadline


class Progress:
    def __init__(self, enabled: bool, stream: TextIO | None = None, every: float = 1.0) -> None:
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.every = every
        self.start = time.monotonic()
        self.deadline: Deadline | None = None
        self.phase = "reading"
        self.detail = ""
        self.phase_start = self.start
        self.phase_cpu = time.process_time()
        self.history: list[tuple[str, float, float]] = []  # (phase, seconds, cpu seconds) of the phases left
        # Solving: the stage, its incumbent and bound, and kube-scheduler's count to compare with.
        self.incumbent: float | None = None
        self.bound: float | None = None
        self.baseline: int | None = None
        self.done = 0  # kube-scheduler's pass: pods tried so far
        self.total = 0
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._width = 0
        self._real = self.stream
        self._restore: list[tuple[object, str, object]] = []
        self.tty = self.stream.isatty()

    # --- what the plan reports ---------------------------------------------------------------------

    def enter(self, phase: str, detail: str = "") -> None:
        now, cpu = time.monotonic(), time.process_time()
        with self._lock:
            name = f"{self.phase} {self.detail}".strip()
            self.history.append((name, now - self.phase_start, cpu - self.phase_cpu))
            self.phase, self.detail = phase, detail
            self.phase_start, self.phase_cpu = now, cpu
            self.incumbent = self.bound = None
        self._show_soon()

    def timings(self) -> str:
        """Where the time went so far: `phase 1.2s (cpu 0.9s), ...` (each phase once, summed)."""
        spent: dict[str, tuple[float, float]] = {}
        for name, seconds, cpu in self.history:
            wall, used = spent.get(name, (0.0, 0.0))
            spent[name] = (wall + seconds, used + cpu)
        return ", ".join(f"{name} {wall:.1f}s (cpu {cpu:.1f}s)" for name, (wall, cpu) in spent.items())

    def solving(self, stage: str, baseline: int | None) -> None:
        self.enter("solving", stage)
        self.baseline = baseline

    def found(self, incumbent: float) -> None:
        self.incumbent = incumbent

    def bounded(self, bound: float) -> None:
        self.bound = bound

    def tried(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    # --- the line ------------------------------------------------------------------------------------

    def line(self) -> str:
        now = time.monotonic()
        phase, detail, spent = self.phase, self.detail, now - self.phase_start
        parts = [f"plan: {phase}" + (f" {detail}" if detail else "")]
        if phase == "kube-scheduler's pass" and self.total:
            rate = self.done / spent if spent > 0 else 0.0
            parts.append(f"{self.done}/{self.total} pods ({rate:.0f} pods/s)")
        if phase == "solving":
            found = "-" if self.incumbent is None else f"{self.incumbent:g}"
            against = "" if self.baseline is None else f" (kube-scheduler {self.baseline})"
            parts.append(f"{found} placed{against}")
            if self.bound is not None:
                parts.append(f"bound {self.bound:g}")
                if self.incumbent is not None and self.bound:
                    parts.append(f"gap {100 * (self.bound - self.incumbent) / self.bound:.1f}%")
        parts.append(f"{now - self.start:.0f}s")
        if self.deadline is not None:
            left = self.deadline.left()
            if left is not None:
                parts.append(f"{left:.0f}s left")
        return ", ".join(parts)

    def _write(self) -> None:
        text = self.line()
        with self._lock:
            if self.tty:
                self._real.write("\r" + text + "\x1b[K")
                self._width = len(text)
            else:
                self._real.write(text + "\n")
            self._real.flush()

    def clear(self) -> None:
        """Takes the line off the terminal before something else is written there."""
        if self._width:
            self._real.write("\r\x1b[K")
            self._width = 0

    def _show_soon(self) -> None:
        """A new phase shows at once on a terminal (elsewhere at the next tick)."""
        if self.enabled and self.tty and self._thread is not None:
            self._write()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self._write()

    def __enter__(self) -> Progress:
        if self.enabled and self._thread is None:
            if self.tty:
                self._guard()
            self._thread = threading.Thread(target=self._run, name="kubefit-progress", daemon=True)
            self._thread.start()
        return self

    def _guard(self) -> None:
        """Whatever else writes to stderr meanwhile (warnings, logs) first takes the line away."""
        guard = _Guarded(self, self._real)
        self._restore = [(sys, "stderr", sys.stderr)]
        sys.stderr = guard
        for handler in logging.getLogger().handlers:
            if isinstance(handler, logging.StreamHandler) and handler.stream is self._real:
                self._restore.append((handler, "stream", handler.stream))
                handler.stream = guard

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._thread = None
        for owner, attribute, value in reversed(self._restore):
            setattr(owner, attribute, value)
        self._restore = []
        with self._lock:
            self.clear()
            self._real.flush()


class _Guarded:
    """stderr while a progress line is on it."""

    def __init__(self, progress: Progress, real: TextIO) -> None:
        self._progress = progress
        self._real = real

    def write(self, text: str) -> int:
        with self._progress._lock:
            self._progress.clear()
            return self._real.write(text)

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)
