"""The command line's shared options: the input and its limits (`common`), `--engine`, `--time-limit`
(one Deadline a verb spends), kube-scheduler's choices and the planners'; and the typed values the verbs'
requests are made of."""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any

from ..app.requests import Input, Scheduling
from ..model.errors import InputError
from ..output import FORMATS, default_format
from ..solver.deadline import Deadline
from . import gate_options


class Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as bad input (exit 2) in one line."""

    def error(self, message: str) -> Any:
        raise InputError(f"{self.prog}: {message}")


def common(
    parser: argparse.ArgumentParser,
    formats: Sequence[str] = FORMATS,
    wide: str = "the table and, per pod, the nodes ranked with every plugin's score",
) -> None:
    parser.add_argument(
        "-f",
        "--filename",
        action="append",
        required=True,
        type=input_path,
        metavar="PATH",
        help="file, directory (recursive), - for stdin, or example:NAME[/FILE] for a bundled example "
        "(kubefit examples lists them); repeatable",
    )
    parser.add_argument(
        "-o",
        "--output",
        choices=formats,
        help="output format (table on a terminal, else yaml)"
        + (f"; wide: {wide}" if "wide" in formats else ""),
    )
    gate_options.add_options(parser)
    parser.add_argument("--strict", action="store_true", help="unknown fields are errors, not warnings")
    input_limits(parser)


def input_path(value: str) -> str:
    """A -f (or --node-template) path: `example:NAME[/FILE]` names a bundled example, wherever kubefit is
    installed; every other path is read as it is."""
    from ..app.examples import resolve

    try:
        return resolve(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def input_limits(parser: argparse.ArgumentParser, objects: bool = True) -> None:
    parser.add_argument(
        "--max-input-bytes",
        type=byte_count,
        default=None,
        metavar="N",
        help="the most bytes kubefit reads from one input, and from all the -f inputs together (default "
        "1Gi; suffixes Ki, Mi, Gi, Ti, k, M, G, T)",
    )
    if objects:
        parser.add_argument(
            "--max-objects",
            type=object_count,
            default=None,
            metavar="N",
            help="the most objects (documents and List items) kubefit reads in all (default 200000)",
        )


def object_count(text: str) -> int:
    if not (text.isascii() and text.isdigit() and 0 < len(text) < 10 and int(text) > 0):
        raise argparse.ArgumentTypeError(f"{text}: a number of objects, at least 1")
    return int(text)


_SIZE_SUFFIXES = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_SIZE_SUFFIXES.update({"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40})


def byte_count(text: str) -> int:
    digits = text.rstrip("KMGTikmgt")
    unit = _SIZE_SUFFIXES.get(text[len(digits) :])
    if unit is None or not digits.isascii() or not digits.isdigit() or len(digits) > 15 or int(digits) < 1:
        raise argparse.ArgumentTypeError(
            f"{text}: a number of bytes, at least 1 (suffixes Ki, Mi, Gi, Ti, k, M, G, T)"
        )
    return int(digits) * unit


def _seconds(text: str) -> float:
    """A --time-limit: a finite number of seconds, at least 0 (0: answer at once; NaN or infinity would
    reach the solvers' budgets)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"{text}: a number of seconds, at least 0")
    return value


def _positive_seconds(text: str) -> float:
    """A planner's --time-limit: the plan needs some search (kube-scheduler's placement it starts from takes
    time too), so more than 0 seconds."""
    try:
        value = _seconds(text)
    except argparse.ArgumentTypeError:
        value = 0.0
    if value == 0:
        raise argparse.ArgumentTypeError(f"{text}: a positive number of seconds")
    return value


def timestamp(text: str) -> float:
    """--now: an RFC 3339 time (as Kubernetes writes timestamps), in seconds since the epoch."""
    import datetime as dt

    try:
        value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: an RFC 3339 time, e.g. 2026-01-02T15:04:05Z") from None
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text}: an RFC 3339 time with its zone, e.g. 2026-01-02T15:04:05Z")
    return value.timestamp()


def scheduler_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scheduler-name",
        metavar="NAME",
        help="schedule every pending pod with this profile of the KubeSchedulerConfiguration (default: the "
        "profile each pod's spec.schedulerName names)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="pick among equally scored nodes at random as kube-scheduler does, reproducibly (default: the "
        "first of them in the order the scheduler evaluated the nodes)",
    )
    parser.add_argument(
        "--now",
        type=timestamp,
        metavar="TIME",
        help="judge the binding timeouts of allocated claims at this RFC 3339 time, e.g. the time the "
        "objects were dumped (default: the clock's)",
    )


def plan_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--objective",
        default="pack",
        choices=("pack", "spread", "scheduler"),
        help="after the most pods: pack (fewest GPUs and nodes touched, default), spread, or scheduler "
        "(kube-scheduler's scores)",
    )
    time_limit(
        parser,
        "one budget for everything after reading, more than 0 seconds (default 60): kube-scheduler's "
        "pass first, then the model, checking and explanations; when it runs out the answer is the better of "
        "the two placements so far, feasible with the proven bound",
        positive=True,
        default=60.0,
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="CP-SAT workers, 1 to 256 (1: deterministic; default 1)"
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress on stderr (default: when stderr is a terminal)",
    )


def time_limit(
    parser: argparse.ArgumentParser, help: str, positive: bool = False, default: float | None = None
) -> None:
    """`--time-limit`: a verb's one budget (see `deadline`); `positive` for a verb that needs some search
    (more than 0 seconds), else at least 0 (0: answer at once)."""
    parser.add_argument(
        "--time-limit",
        type=_positive_seconds if positive else _seconds,
        default=default,
        metavar="SECONDS",
        help=help,
    )


def deadline(args: argparse.Namespace) -> Deadline:
    """The run's one budget from `--time-limit`, waiting for the verb to begin spending it (a plan's
    budget starts once the input is read)."""
    return Deadline(args.time_limit, waiting=True)


def engine(
    parser: argparse.ArgumentParser, default: str, help: str, choices: Sequence[str] | None = None
) -> None:
    """`--engine`: one of the registry's engines (solver.registry); `choices` where argparse checks the
    name (the planners), else the verb refuses an unknown name with the registry's message."""
    parser.add_argument("--engine", default=default, choices=choices, help=help)


def input_of(args: argparse.Namespace) -> Input:
    """The -f inputs, --strict and the run's feature gates."""
    return Input(tuple(args.filename), args.strict, gate_options.gates_of(args))


def output_format(args: argparse.Namespace) -> str:
    return args.output or default_format()


def claims(args: argparse.Namespace) -> tuple[str, ...] | None:
    """--claims a,b: the names in order (none given: None)."""
    return tuple(c.strip() for c in args.claims.split(",") if c.strip()) if args.claims else None


def scheduling(args: argparse.Namespace) -> Scheduling:
    return Scheduling(args.scheduler_name, args.seed, args.now)
