"""What the verbs' typed requests share (the input, the scheduler's choices) and what every verb
returns (`Answer`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model.errors import Problem
from ..model.features import FeatureGates
from ..model.repeated import Repeated, problem_lines

EXIT_OK, EXIT_NO_FIT, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


@dataclass(frozen=True)
class Input:
    """The objects a verb reads: files, directories or - (`-f`), `--strict`, and the run's feature gates."""

    paths: tuple[str, ...]
    strict: bool
    gates: FeatureGates


@dataclass(frozen=True)
class Scheduling:
    """kube-scheduler's choices a scheduling verb takes: the profile for every pod (`--scheduler-name`),
    a seed to pick among equal scores at random, and the time to judge binding timeouts at (`--now`)."""

    scheduler_name: str | None = None
    seed: int | None = None
    now: float | None = None


@dataclass(frozen=True)
class Answer:
    """What a verb answers: the document (-o json|yaml; its items may be made as it is written), the text
    (a table, shown for -o table), the exit code, and how to show them: `fmt` (json, yaml or table),
    `verbatim` (a page written as it is instead, e.g. compare's HTML), `errors` (lines for stderr after
    the answer; the same message on many things is shown once: `Repeated`) and `notes` (logged at info
    level after the answer)."""

    document: Any
    text: str
    code: int
    fmt: str
    verbatim: str | None = None
    errors: tuple[str | Repeated, ...] = ()
    notes: tuple[str, ...] = ()


def warn(problems: Sequence[Problem]) -> None:
    """The problems on stderr, one line each; the same message on several objects once, counted."""
    for line in problem_lines(problems):
        print(line, file=sys.stderr)
