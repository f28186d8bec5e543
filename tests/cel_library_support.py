"""Test scaffolding shared by the CEL library tests: overload lookup, dispatch and declaration checks."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from kubefit.model.errors import CelRuntimeError
from kubefit.translate.cel import types as t
from kubefit.translate.cel.registry import Library, Overload, Registry, value_matches

# function name, receiver style, parameter types, result type
Signature = tuple[str, bool, tuple[t.CelType, ...], t.CelType]
# upstream overload id, then its signature
Declaration = tuple[str, str, bool, tuple[t.CelType, ...], t.CelType]


class LibraryUnderTest:
    """One library's overloads, looked up by their upstream ids or called the way the evaluator calls them."""

    def __init__(self, library: Library) -> None:
        self.library = library
        self.registry = Registry([library])

    def overload(self, overload_id: str) -> Overload:
        """The one overload with this id (a `_member` suffix kubefit adds is ignored)."""
        found = [o for o in self.library.overloads if o.id.removesuffix("_member") == overload_id]
        assert len(found) == 1, overload_id
        return found[0]

    def impl(self, overload_id: str, *args: Any) -> Any:
        return self.overload(overload_id).impl(*args)

    def check_error(self, overload_id: str, args: tuple[Any, ...], message: str) -> None:
        """Calling the overload fails with exactly this CEL runtime error."""
        with pytest.raises(CelRuntimeError) as info:
            self.impl(overload_id, *args)
        assert str(info.value) == message

    def call(self, name: str, *args: Any, member: bool = False) -> Any:
        """Dispatch like the evaluator will: the first overload whose parameters accept the arguments."""
        for overload in self.registry.candidates(name, member):
            if len(overload.params) == len(args) and all(
                value_matches(p, a) for p, a in zip(overload.params, args, strict=True)
            ):
                return overload.impl(*args)
        raise LookupError(f"no matching overload for {name}")

    def method(self, receiver: Any, name: str, *args: Any) -> Any:
        return self.call(name, receiver, *args, member=True)

    def check_declaration(self, overload_id: str, signature: Signature, *, count: int | None = None) -> None:
        """The overload is declared with this signature and a cost model (and the library has `count`)."""
        ov = self.overload(overload_id)
        assert (ov.function, ov.member, ov.params, ov.result) == signature
        assert ov.cost is not None and ov.estimate is not None
        if count is not None:
            assert len(self.library.overloads) == count

    def declaration_test(
        self, declarations: Sequence[Declaration], *, count: int | None = None
    ) -> Callable[[str, Signature], None]:
        """A test, one case per declaration, that `check_declaration` passes (assign it to a `test_` name)."""

        @pytest.mark.parametrize(
            ("overload_id", "signature"),
            [(d[0], d[1:]) for d in declarations],
            ids=[d[0] for d in declarations],
        )
        def test_declaration(overload_id: str, signature: Signature) -> None:
            self.check_declaration(overload_id, signature, count=count)

        return test_declaration

    def check_declarations(self, name: str, declarations: Mapping[str, Signature]) -> dict[str, Overload]:
        """The library declares exactly these overloads, by exact id; returns them by id."""
        assert self.library.name == name
        assert len(self.library.overloads) == len(declarations)
        by_id = {ov.id: ov for ov in self.library.overloads}
        for upstream_id, signature in declarations.items():
            ov = by_id[upstream_id]
            assert (ov.function, ov.member, ov.params, ov.result) == signature
        return by_id

    def check_comparison(self, a: Any, b: Any, cmp: int) -> None:
        """`compareTo`, `isLessThan` and `isGreaterThan` agree that a compares to b as `cmp`."""
        assert self.method(a, "compareTo", b) == cmp
        assert self.method(a, "isLessThan", b) is (cmp == -1)
        assert self.method(a, "isGreaterThan", b) is (cmp == 1)
