"""What the API-validation tests share: the format messages the API server prints, a test
ValidationContext and the helpers that build, change and check manifests."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest

from kubefit.translate.validation import FieldError

SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
C_IDENT = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric "
    "characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is "
    "'[A-Za-z_][A-Za-z0-9_]*')"
)
NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
BAD = "!@#$%^"

Path = tuple[str | int, ...]
Found = list[tuple[Path, str]]
# A test case: its name, the manifest, and the (path, message) pairs expected, in order.
Case = tuple[str, dict[str, Any], Found]


class Ctx:
    """Selectors compile unless they contain "!!bad"; gates are on unless listed as off.

    Like contexts that cannot compile derived-attribute expressions, it has no
    `derived_attribute_compile_error`: validators then check only their length.
    """

    def __init__(self, *off: str) -> None:
        self.off = set(off)

    def cel_compile_error(self, expression: str) -> str | None:
        return "ERROR: <input>:1:1: Syntax error" if "!!bad" in expression else None

    def feature_enabled(self, gate: str) -> bool:
        return gate not in self.off


class DerivedCtx(Ctx):
    """A context that can also compile derived-attribute expressions."""

    def derived_attribute_compile_error(self, expression: str) -> str | None:
        return "ERROR: <input>:1:1: no such overload" if "!!bad" in expression else None


def with_(base: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """A changed copy of a manifest; the base stays as it is for the next case."""
    out = copy.deepcopy(base)
    change(out)
    return out


def pairs(errors: Iterable[FieldError]) -> Found:
    return [(e.path, e.message) for e in errors]


def cases(table: Sequence[Case]) -> pytest.MarkDecorator:
    """Parametrizes a test over (name, manifest, expected) rows, each shown under its name."""
    return pytest.mark.parametrize(("name", "manifest", "expected"), table, ids=[c[0] for c in table])
