"""What one evaluation may spend: cel-go's runtime cost, and a guard on work that cost does not see.

cel-go charges every evaluation step (see `evaluator` and `comprehensions`) and
every call (the libraries' cost models), and cancels the evaluation once the
total passes the limit; for DRA selectors Kubernetes sets that limit to
resourceapi.CELSelectorExpressionMaxCost. Its error is `COST_LIMIT_MESSAGE`.

Some operations cost cel-go little for a result Python has to build or walk in
full: `+` on lists (cel-go chains the two lists instead of copying them),
`replace` and `format` (charged by their inputs, not by what they produce), and
equality and formatting of nested lists and maps (charged by the outer size).
Regular expressions are priced by cel-go on the pattern's length, while RE2's
time and memory follow its compiled program, which counted repetitions and
Unicode classes make up to a thousand times longer (`\\pL{1000}` is over a million
instructions): compiling a pattern and the worst case of running it count as work
too. Past `WORK_LIMIT` units the evaluation is cancelled with the same error. No
selector within cel-go's cost does that much work unless it builds values whose
size grows geometrically or runs such regular expressions over long texts, which
a Kubernetes scheduler could not evaluate in reasonable time either.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from ...model.errors import CelRuntimeError

COST_LIMIT_MESSAGE = "operation cancelled: actual cost limit exceeded"

# Units of about a microsecond or less: an element visited or copied, a character built, an RE2
# instruction compiled, 4096 steps of an RE2 instruction over a byte. A second or two at most.
WORK_LIMIT = 1 << 22


class CostLimitExceeded(CelRuntimeError):
    """The evaluation was cancelled; unlike other errors, `&&`, `||` and `all`/`exists` never absorb it."""

    def __init__(self) -> None:
        super().__init__(COST_LIMIT_MESSAGE)


class Activation:
    """Per-evaluation state: the cost spent so far and its limit, and the work done."""

    __slots__ = ("cost", "limit", "once", "work")

    def __init__(self, limit: int) -> None:
        self.cost = 0
        self.limit = limit
        self.work = 0
        self.once: set[Any] = set()

    def charge(self, amount: int) -> None:
        self.cost += amount
        if self.cost > self.limit:
            raise CostLimitExceeded()

    def spend(self, amount: int) -> None:
        self.work += amount
        if self.work > WORK_LIMIT:
            raise CostLimitExceeded()


# A compiled expression (see `evaluator`): run with an activation and the variables in scope.
Env = dict[str, Any]
Program = Callable[[Activation, Env], Any]

_CURRENT: ContextVar[Activation | None] = ContextVar("kubefit_cel_activation", default=None)


def spend(amount: int) -> None:
    """Count work a library function is about to do (nothing is counted outside an evaluation)."""
    activation = _CURRENT.get()
    if activation is not None:
        activation.spend(amount)


def spend_once(key: Any, amount: int) -> None:
    """Count work done once per evaluation whatever kubefit caches across them (compiling a pattern),
    so that whether an evaluation is cancelled never depends on what ran before it."""
    activation = _CURRENT.get()
    if activation is not None and key not in activation.once:
        activation.once.add(key)
        activation.spend(amount)


def run(program: Program, variables: Env, activation: Activation) -> Any:
    """Run a compiled program; the activation holds its cost afterwards."""
    token = _CURRENT.set(activation)
    try:
        return program(activation, variables)
    finally:
        _CURRENT.reset(token)
