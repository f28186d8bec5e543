"""Where the fuzzer's decisions come from.

The mutators only ask a `Chooser` for integers; a seeded `random.Random` drives the long campaign,
hypothesis drives the test suite (so failures shrink and replay), and atheris's data provider drives
the coverage-guided target. One mutation engine, three sources of randomness.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Chooser(Protocol):
    def integer(self, low: int, high: int) -> int:
        """An integer in [low, high]."""
        ...


def pick(chooser: Chooser, items: Sequence[T]) -> T:
    return items[chooser.integer(0, len(items) - 1)]


def chance(chooser: Chooser, percent: int) -> bool:
    return chooser.integer(0, 99) < percent


class RandomChooser:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        return self.random.randint(low, high)


class HypothesisChooser:
    """Draws from hypothesis's `data()` strategy: shrinking then works on every decision."""

    def __init__(self, data: Any) -> None:
        from hypothesis import strategies as st

        self.data = data
        self.st = st

    def integer(self, low: int, high: int) -> int:
        return int(self.data.draw(self.st.integers(low, high)))


class ProviderChooser:
    """Draws from atheris's FuzzedDataProvider; once the bytes run out every answer is `low`."""

    def __init__(self, provider: Any) -> None:
        self.provider = provider

    def integer(self, low: int, high: int) -> int:
        return int(self.provider.ConsumeIntInRange(low, high))
