"""What the reasons of nodes with the same signature (`classes`) have in common: worked out for the
first of them, read by the others. Nothing here names a pool, a device's ref or an attribute value,
which are each node's own; lists in it are shared by the reasons that show them, and never changed."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Funnel:
    on_node: int
    selected: int  # match the request's selectors
    unfit: int  # of those, cannot serve it
    in_use: int
    tainted: int
    notes: list[str]


@dataclass(frozen=True)
class Counter:
    text: str  # from the counter's name on
    consumers: list[str]
    candidates: list[str]
    numbers: dict[str, str]


@dataclass
class Memo:
    """By the facts' local identifiers: a slot's funnel, a counter, a constraint."""

    funnels: dict[int, Funnel] = field(default_factory=dict)
    counters: dict[tuple[int, str], Counter] = field(default_factory=dict)
    constraints: dict[int, tuple[list[tuple[str, str, str]], dict[str, int]]] = field(default_factory=dict)
