"""CEL types as the checker sees them, and how they relate to runtime values.

Type names print exactly as cel-go prints them (`list(int)`, `map(string, dyn)`,
`optional_type(int)`, `kubernetes.Quantity`), because they appear in the compile
errors a Kubernetes user compares with what the API server said.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CelType:
    """A CEL type: a named type with parameters, or a type parameter (`is_param`)."""

    name: str
    params: tuple[CelType, ...] = ()
    is_param: bool = False

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(str(p) for p in self.params)})"

    def __repr__(self) -> str:
        return f"CelType({self})"


BOOL = CelType("bool")
INT = CelType("int")
UINT = CelType("uint")
DOUBLE = CelType("double")
STRING = CelType("string")
BYTES = CelType("bytes")
NULL = CelType("null_type")
DYN = CelType("dyn")
ERROR = CelType("*error*")
TIMESTAMP = CelType("google.protobuf.Timestamp")
DURATION = CelType("google.protobuf.Duration")

# Kubernetes library types (apiserver/pkg/cel/library).
QUANTITY = CelType("kubernetes.Quantity")
SEMVER = CelType("kubernetes.Semver")
URL = CelType("kubernetes.URL")
IP = CelType("net.IP")
CIDR = CelType("net.CIDR")
NAMED_FORMAT = CelType("kubernetes.NamedFormat")

# The object type of the DRA `device` variable.
DRA_DEVICE = CelType("kubernetes.DRADevice")

A = CelType("A", is_param=True)
B = CelType("B", is_param=True)
K = CelType("K", is_param=True)
V = CelType("V", is_param=True)


def list_of(elem: CelType) -> CelType:
    return CelType("list", (elem,))


def map_of(key: CelType, value: CelType) -> CelType:
    return CelType("map", (key, value))


def optional_of(elem: CelType) -> CelType:
    return CelType("optional_type", (elem,))


def type_of(elem: CelType) -> CelType:
    return CelType("type", (elem,))


TYPE = type_of(DYN)

PRIMITIVES = {t.name: t for t in (BOOL, INT, UINT, DOUBLE, STRING, BYTES, NULL)}

# Names that denote types in expressions (`type(x) == int`, `type(ip) == net.IP`).
NAMED_TYPES: dict[str, CelType] = {
    "int": INT,
    "uint": UINT,
    "double": DOUBLE,
    "bool": BOOL,
    "string": STRING,
    "bytes": BYTES,
    "null_type": NULL,
    "list": CelType("list", (DYN,)),
    "map": CelType("map", (DYN, DYN)),
    "type": CelType("type", (DYN,)),
    "dyn": DYN,
    "google.protobuf.Timestamp": TIMESTAMP,
    "google.protobuf.Duration": DURATION,
    "net.IP": IP,
    "net.CIDR": CIDR,
    "kubernetes.URL": URL,
    "kubernetes.Quantity": QUANTITY,
    "kubernetes.Semver": SEMVER,
}
NUMERIC = (INT, UINT, DOUBLE)


def is_dyn(t: CelType) -> bool:
    """dyn, a free type parameter, or `any` (the declared type of DRA attribute values)."""
    return t.name in ("dyn", "any", "*error*") or t.is_param


Bindings = dict[str, CelType]


def substitute(t: CelType, bindings: Bindings) -> CelType:
    """Replace bound type parameters; unbound ones become dyn."""
    if t.is_param:
        bound = bindings.get(t.name)
        return substitute(bound, bindings) if bound is not None and bound != t else DYN
    if not t.params:
        return t
    return CelType(t.name, tuple(substitute(p, bindings) for p in t.params))


def assignable(param: CelType, actual: CelType, bindings: Bindings) -> bool:
    """Can a value of type `actual` be passed where `param` is declared?

    Type parameters bind on first use (recorded in `bindings`); dyn is assignable
    both ways, as in cel-go's checker.
    """
    if param.is_param:
        bound = bindings.get(param.name)
        if bound is None:
            bindings[param.name] = actual
            return True
        if is_dyn(bound):
            bindings[param.name] = actual
            return True
        if is_dyn(actual):
            return True
        return assignable(bound, actual, bindings)
    if is_dyn(param) or is_dyn(actual):
        return True
    if param.name != actual.name or len(param.params) != len(actual.params):
        return False
    return all(assignable(p, a, bindings) for p, a in zip(param.params, actual.params, strict=True))


def join(types: list[CelType]) -> CelType:
    """The type of a value that may be any of `types` (dyn when they differ)."""
    known = [t for t in types if not is_dyn(t)]
    if not known:
        return DYN
    first = known[0]
    return first if all(t == first for t in known) else DYN
