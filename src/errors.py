"""Exceptions and input problems.

The exception tree::

    KubefitError                 anything kubefit raises on purpose
    ├── InputError               bad input: one or more Problems; the CLI exits 2
    └── CelError                 a CEL expression failed
        ├── CelCompileError      does not parse or type-check (position known)
        └── CelRuntimeError      failed while evaluating against one device

"Does not fit" is never an exception: it is an answer with reasons. Bad input is
always an exception, and always names the file, the object and the field path.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .terminal import escape

FieldPath = tuple[str | int, ...]


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
    """The input is bad. Carries every problem found, not just the first."""

    def __init__(self, problems: Sequence[Problem] | Problem | str) -> None:
        if isinstance(problems, str):
            problems = [Problem(problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = sorted(problems, key=Problem.sort_key)
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass
class ProblemList:
    """Collects problems while reading input; raises them all at once."""

    items: list[Problem] = field(default_factory=list)

    def add(self, problem: Problem) -> None:
        self.items.append(problem)

    def extend(self, problems: Iterable[Problem]) -> None:
        self.items.extend(problems)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.items if not p.warning]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.items if p.warning]

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
