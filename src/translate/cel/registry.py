"""Function declarations: one registry the checker, the cost estimator and the evaluator share.

A library module declares its overloads with `Library.function`::

    lib = Library("strings")

    @lib.function("charAt", member=True, params=(STRING, INT), result=STRING)
    def char_at(s: str, i: int) -> str: ...

`member=True` means receiver style (`s.charAt(1)`); the receiver is the first
parameter. A qualified global name (`sets.contains`, `optional.of`) is declared
with `member=False` and its full name. Implementations take and return runtime
values (see `values.py`) and raise `CelRuntimeError` for CEL errors. A cost model
is given as `cost=`/`estimate=`, or as one `costs=Costs(...)` shared by several
declarations.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from . import types as t
from .values import CelObject, Optional, Uint

CostFn = Callable[[Sequence[Any]], int]
EstimateFn = Callable[[Sequence[int]], int]
# What `Library.function` returns: a decorator that registers an implementation and returns it.
Declaration = Callable[[Callable[..., Any]], Callable[..., Any]]


class Costs(NamedTuple):
    """A function's cost model: what one call charges, and its worst case for the static estimate."""

    cost: CostFn
    estimate: EstimateFn


@dataclass(frozen=True)
class Overload:
    id: str
    function: str
    member: bool
    params: tuple[t.CelType, ...]
    result: t.CelType
    impl: Callable[..., Any]
    # Runtime cost of one call, replacing the default charge of 1 (as cel-go's library costs do).
    cost: CostFn | None = None
    # Worst-case cost for the static estimate, given the estimated sizes of the arguments.
    estimate: EstimateFn | None = None


@dataclass
class Library:
    """A named group of overloads (one Kubernetes or cel-go library)."""

    name: str
    overloads: list[Overload] = field(default_factory=list)

    def function(
        self,
        name: str,
        *,
        member: bool = False,
        params: Sequence[t.CelType],
        result: t.CelType,
        cost: CostFn | None = None,
        estimate: EstimateFn | None = None,
        costs: Costs | None = None,
        id: str | None = None,
    ) -> Declaration:
        if costs is not None:
            cost, estimate = costs

        def register(impl: Callable[..., Any]) -> Callable[..., Any]:
            overload_id = id or f"{name}_{'_'.join(p.name.replace('.', '_') for p in params) or 'void'}"
            if member and id is None:
                overload_id = f"{overload_id}_member"
            self.overloads.append(
                Overload(overload_id, name, member, tuple(params), result, impl, cost, estimate)
            )
            return impl

        return register


class Registry:
    """All overloads of an environment, looked up by function name and call style."""

    def __init__(self, libraries: Iterable[Library]) -> None:
        self.global_overloads: dict[str, list[Overload]] = {}
        self.member_overloads: dict[str, list[Overload]] = {}
        for lib in libraries:
            for ov in lib.overloads:
                table = self.member_overloads if ov.member else self.global_overloads
                table.setdefault(ov.function, []).append(ov)

    def has_global(self, name: str) -> bool:
        return name in self.global_overloads

    def has_member(self, name: str) -> bool:
        return name in self.member_overloads

    def candidates(self, name: str, member: bool) -> list[Overload]:
        return (self.member_overloads if member else self.global_overloads).get(name, [])


def value_matches(param: t.CelType, value: Any) -> bool:
    """Does a runtime value fit a declared parameter type (for dispatch among overloads)?"""
    if param.is_param or param.name == "dyn":
        return True
    name = param.name
    if name == "bool":
        return isinstance(value, bool)
    if name == "int":
        return isinstance(value, int) and not isinstance(value, (bool, Uint))
    if name == "uint":
        return isinstance(value, Uint)
    if name == "double":
        return isinstance(value, float)
    if name == "string":
        return isinstance(value, str)
    if name == "bytes":
        return isinstance(value, bytes)
    if name == "null_type":
        return value is None
    if name == "list":
        return isinstance(value, list)
    if name == "map":
        return isinstance(value, dict)
    if name == "optional_type":
        return isinstance(value, Optional)
    if name == "type":
        return isinstance(value, t.CelType)
    if name == "google.protobuf.Timestamp":
        return isinstance(value, _dt.datetime)
    if name == "google.protobuf.Duration":
        return isinstance(value, _dt.timedelta)
    return isinstance(value, CelObject) and value.cel_type.name == name
