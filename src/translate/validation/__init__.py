"""API validation the API server performs before any allocation.

Each kind has a validator `validate_<kind>(obj, ctx) -> list[FieldError]` that
takes the typed (resource.k8s.io/v1 or core/v1) model. Paths are field paths as
the API server prints them (`spec.devices[3].attributes[dra.example.com/x]`), kept
as tuples so the loader can find the YAML line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ...model.errors import FieldPath


@dataclass(frozen=True)
class FieldError:
    path: FieldPath
    message: str
    # What no API server ever accepted and the answer is computed from (a negative request, a request
    # above its limit, a fractional pod count, a claim no entry names, an integer past its Go type):
    # refused even by the verbs that answer for objects already stored, whose answer it would falsify.
    unstorable: bool = False


def unstorable(errors: list[FieldError]) -> list[FieldError]:
    """The errors, marked as ones no stored object can have (see FieldError.unstorable)."""
    return [FieldError(e.path, e.message, True) for e in errors]


class ValidationContext(Protocol):
    """What validators need from the rest of kubefit."""

    def cel_compile_error(self, expression: str) -> str | None:
        """None when the CEL selector compiles (as a DRA selector), else the compile error text."""
        ...

    def derived_attribute_compile_error(self, expression: str) -> str | None:
        """None when a derived-attribute expression compiles (it yields an attribute value, not a bool)."""
        ...

    def feature_enabled(self, gate: str) -> bool:
        """A Kubernetes feature gate, e.g. "DRAConsumableCapacity" (all on by default)."""
        ...
