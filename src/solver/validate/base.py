"""The validator's state and how it reports: what is in use before a unit, one result with its facts,
and a violation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final, Literal

from ...model.families import Family
from ...model.problem import Claim, Device, Problem, Slot
from ...model.solution import ClaimAllocation, DeviceResult

# Not a constraint family: the Solution does not fit the Problem's shape.
STRUCTURE: Final = "structure"
Kind = Family | Literal["structure"]


@dataclass(frozen=True)
class Violation:
    unit: int
    claim: int | None
    kind: Kind
    message: str

    def __str__(self) -> str:
        return f"unit {self.unit}: {self.kind}: {self.message}"


@dataclass
class Held:
    """What is in use before the unit being checked (existing allocations plus earlier units)."""

    exclusive: set[str]
    shared: set[str]  # devices with a live share
    capacity: dict[str, dict[str, Fraction]]  # device -> fully-qualified capacity name -> consumed
    allocations: dict[int, ClaimAllocation] = field(default_factory=dict)

    def allocated(self, ref: str) -> bool:
        return ref in self.exclusive or ref in self.shared or ref in self.capacity

    def has_shares(self, ref: str) -> bool:
        return ref in self.shared or ref in self.capacity


@dataclass
class Pick:
    """One result of the unit, with the facts the checks need."""

    order: int  # position of its claim among the unit's pending claims
    claim: Claim
    result: DeviceResult
    slot: Slot
    device: Device
    multi: bool  # a share of a multi-allocatable device
    consumed: dict[str, Fraction] | None = None  # by fully-qualified name, once computed

    @property
    def admin(self) -> bool:
        return bool(self.slot.admin_access)


class Checker:
    """What every family's checks share: the Problem, what is held, and the violations found."""

    def __init__(self, problem: Problem) -> None:
        self.p = problem
        held = problem.in_use
        self.held = Held(
            set(held.exclusive), set(held.shared), {k: dict(v) for k, v in held.shared_capacity.items()}
        )
        self.out: list[Violation] = []
        self.unit = 0
        self.fractional = problem.on("FractionalCapacityRange")
        self.cc = problem.on("ConsumableCapacity")
        # Pools' counters left, and device -> the tallies it draws on (counters.py).
        self.left_of: dict[tuple[str, tuple[int, ...]], dict[str, dict[str, Fraction]]] = {}
        self.drawn_from: dict[int, list[dict[str, dict[str, Fraction]]]] = {}

    def flag(self, claim: int | None, kind: Kind, message: str) -> None:
        self.out.append(Violation(self.unit, claim, kind, message))

    def fail(self, claim: Claim, kind: Kind, text: str, request: str = "") -> None:
        """A violation of one claim (or of one of its requests)."""
        where = f"claim {claim.ref}, request {request}" if request else f"claim {claim.ref}"
        self.flag(claim.id, kind, f"{where}: {text}")

    def bad(self, pick: Pick, kind: Kind, text: str) -> None:
        """A violation of one result: `text` continues "claim c, request r: device d/p/n"."""
        self.fail(pick.claim, kind, f"device {pick.device.ref} {text}", pick.slot.result_name)


def quantity(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def amounts_text(values: Mapping[str, Fraction]) -> str:
    return "{" + ", ".join(f"{k}: {quantity(v)}" for k, v in sorted(values.items())) + "}"
