"""What `explain` reads besides the Problem: facts about the objects that only explanations need.

translate's `Built` provides them; the explainer asks for them through this protocol, so the engines
never see the objects themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from .problem import Problem, SlotKey

# How many of some devices match the class of a slot (slot, class, devices), for the candidate funnel;
# None when it cannot be told (an unknown class, a CEL error).
ClassMatch = Callable[[SlotKey, str, Sequence[int]], int | None]


class ExplainSource(Protocol):
    @property
    def problem(self) -> Problem: ...

    def holders(self) -> dict[str, list[str]]:
        """Device (`driver/pool/device`) -> the claims (`namespace/name`) whose allocation holds it."""
        ...

    def class_match(self) -> ClassMatch: ...
