"""Exceptions and input problems.

The exception tree::

    KubefitError                 anything kubefit raises on purpose
    ├── InputError               bad input: one or more Problems; the CLI exits 2
    └── CelError                 a CEL expression failed
        ├── CelCompileError      does not parse or type-check (position known)
        └── CelRuntimeError      failed while evaluating against one device

"Does not fit" is never an exception: it is an answer with reasons. Bad input is
always an exception, and always names the file, the object and the field path.

An input can hold any number of problems; kubefit reports the first MAX_PROBLEMS errors (and as many
warnings) and stops looking at the next error, so that a million broken objects cost what a
thousand do.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .terminal import escape

FieldPath = tuple[str | int, ...]

MAX_PROBLEMS = 1000


def format_path(path: FieldPath) -> str:
    """`("spec", "devices", 0, "name")` -> `spec.devices[0].name` (map keys with dots are bracketed)."""
    out = ""
    for part in path:
        if isinstance(part, int) or (out and ("." in part or "/" in part or not part)):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + part
    return out


def one_line(message: str) -> str:
    """A message on one line: CEL's source excerpt and caret lines (` | ...`) are left out."""
    lines = [line.strip() for line in message.splitlines() if not line.startswith(" | ")]
    return "; ".join(line for line in lines if line)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, located as precisely as we know."""

    message: str
    file: str = ""
    line: int = 0
    obj: str = ""
    path: FieldPath = ()
    warning: bool = False
    # The path as Kubernetes prints it for this object's schema (map keys in brackets), if known.
    path_text: str = ""
    # An API-validation problem no stored object can have (see validation.FieldError.unstorable).
    unstorable: bool = False

    def __str__(self) -> str:
        parts = []
        if self.file:
            parts.append(f"{self.file}:{self.line}" if self.line else self.file)
        if self.obj:
            parts.append(self.obj)
        if self.path:
            parts.append(self.path_text or format_path(self.path))
        prefix = "warning: " if self.warning else ""
        return escape(": ".join([*parts, prefix + one_line(self.message)]))

    def sort_key(self) -> tuple[str, int, str, str]:
        return (self.file, self.line, self.obj, format_path(self.path))


class KubefitError(Exception):
    """Base of every error kubefit raises on purpose."""


class InputError(KubefitError):
    """The input is bad. Carries every problem found (the first MAX_PROBLEMS of them, by where they are,
    and then a line saying that there are more: `more`, or more given)."""

    def __init__(self, problems: Sequence[Problem] | Problem | str, more: bool = False) -> None:
        if isinstance(problems, str):
            problems = [Problem(problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        found = sorted(problems, key=Problem.sort_key)
        if more or len(found) > MAX_PROBLEMS:
            found = [*found[:MAX_PROBLEMS], too_many("problems")]
        self.problems: list[Problem] = found
        super().__init__(found)  # (what pickling makes it again with)

    def __str__(self) -> str:  # made when asked: a thousand problems are formatted once, when printed
        return "\n".join(str(p) for p in self.problems)


def too_many(what: str, warning: bool = False) -> Problem:
    """The line after the first MAX_PROBLEMS problems (or warnings) shown."""
    if warning:
        return Problem(f"more warnings than these {MAX_PROBLEMS} are not shown", warning=True)
    return Problem(f"kubefit: stopped after {MAX_PROBLEMS} {what}: fix these first (there may be more)")


def capped(problems: list[Problem]) -> list[Problem]:
    """Problems found in order, cut after the first MAX_PROBLEMS (with the line that says so): what a
    search that stops at the next one after them gives. Warnings past them only counted as more."""
    errors = sum(1 for p in problems if not p.warning)
    if errors <= MAX_PROBLEMS and len(problems) - errors <= MAX_PROBLEMS:
        return problems
    kept: list[Problem] = []
    counts = [0, 0]  # errors, warnings
    hidden = [False, False]
    for p in problems:
        kind = int(p.warning)
        if counts[kind] < MAX_PROBLEMS:
            kept.append(p)
        else:
            hidden[kind] = True
        counts[kind] += 1
    if hidden[1]:
        kept.append(too_many("warnings", warning=True))
    if hidden[0]:
        kept.append(too_many("problems"))
    return kept


@dataclass
class ProblemList:
    """Collects problems while reading input; raises them all at once, or as soon as there are more
    than MAX_PROBLEMS errors (reading stops there). Warnings past MAX_PROBLEMS are only counted."""

    items: list[Problem] = field(default_factory=list)
    error_count: int = 0
    warning_count: int = 0

    def add(self, problem: Problem) -> None:
        if problem.warning:
            self.warning_count += 1
            if self.warning_count <= MAX_PROBLEMS:
                self.items.append(problem)
            return
        self.error_count += 1
        self.items.append(problem)
        if self.error_count > MAX_PROBLEMS:
            raise InputError(self.errors, more=True)

    def extend(self, problems: Iterable[Problem]) -> None:
        for problem in problems:
            self.add(problem)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.items if not p.warning]

    @property
    def warnings(self) -> list[Problem]:
        shown = [p for p in self.items if p.warning]
        return [*shown, too_many("warnings", warning=True)] if self.warning_count > MAX_PROBLEMS else shown

    def raise_if_errors(self) -> None:
        if self.errors:
            raise InputError(self.errors)


class CelError(KubefitError):
    """A CEL expression could not be compiled or evaluated."""


class CelCompileError(CelError):
    """The expression does not parse or does not type-check.

    `detail` reads like cel-go's issue text: `ERROR: <input>:1:5: message` plus the
    source line and a caret, so a Kubernetes user recognises it.
    """

    def __init__(self, detail: str, line: int = 0, column: int = 0) -> None:
        self.detail = detail
        self.line = line
        self.column = column
        super().__init__(detail)


class CelRuntimeError(CelError):
    """Evaluation failed (no such key, no such overload, cost limit, ...)."""
