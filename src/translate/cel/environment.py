"""The CEL environment of DRA selectors: the `device` variable and the Kubernetes libraries.

Mirrors k8s.io/dynamic-resource-allocation/cel: the Kubernetes base environment
(standard CEL, optionals, cross-type numeric comparisons, strings v2, sets,
lists, regex, URLs, IP/CIDR, quantity, semver, format, two-variable
comprehensions) plus `cel.bind` and, with DRAListTypeAttributes, `includes`.

Two flavours, as in Kubernetes: "new" expressions (what the API server accepts
when an object is written, honouring feature gates) and "stored" ones (what the
scheduler evaluates: everything the code knows).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache

from . import types as t
from .checker import Env
from .registry import Library, Registry

# Library modules, in the order their overloads are tried at run time.
_LIBRARY_MODULES = (
    "standard",
    "optional",
    "standard_strings",
    "strings",
    "regex",
    "lists",
    "sets",
    "urls",
    "ip",
    "cidr",
    "format",
    "quantity",
    "semver",
)


@dataclass(frozen=True)
class Features:
    """The feature gates that change the CEL environment of DRA."""

    consumable_capacity: bool = True
    list_type_attributes: bool = True


STORED = "stored"
NEW = "new"


def _load(name: str) -> Library:
    module = importlib.import_module(f"{__package__}.library.{name}")
    library: Library = module.library
    return library


@cache
def base_libraries() -> tuple[Library, ...]:
    return tuple(_load(name) for name in _LIBRARY_MODULES)


ATTRIBUTE_VALUE = t.CelType("any")


@cache
def dra_env(features: Features, env_type: str = STORED) -> Env:
    """The checker environment for DRA selector expressions."""
    libraries = list(base_libraries())
    if features.list_type_attributes or env_type == STORED:
        libraries.append(_load("dra"))
    fields = {
        "driver": t.STRING,
        "attributes": t.map_of(t.STRING, t.map_of(t.STRING, ATTRIBUTE_VALUE)),
        "capacity": t.map_of(t.STRING, t.map_of(t.STRING, t.QUANTITY)),
    }
    if features.consumable_capacity:
        fields["allowMultipleAllocations"] = t.BOOL
    return Env(
        variables={"device": t.DRA_DEVICE},
        registry=Registry(libraries),
        object_fields={t.DRA_DEVICE.name: fields},
    )
