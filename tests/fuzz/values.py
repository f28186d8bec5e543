"""Hostile values, by what a field holds.

Each catalog lists what a careless or hostile author could write where a valid fixture has a value:
numbers at and beyond every integer width, quantities past what the API server accepts, CPU lists the
kubelet refuses, CEL selectors that cost (catastrophic regexes, nested comprehensions) or fail at run
time, and strings that are empty, huge, or not ASCII.

More catalogs live in modules of their own, each adding what it has with `register` (the keys its
values fit, and the values): `times` (times and durations), `names` (names holding what a terminal
acts on). A new one is a module that calls `register` at import, named in CATALOG_MODULES.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from .choices import Chooser, chance, pick

NUMBERS: tuple[Any, ...] = (
    0,
    -1,
    1,
    7,
    2**31 - 1,
    2**31,
    2**32,
    2**53 + 1,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    10**30,
    10**400,
    0.5,
    -0.0,
    1e308,
    float("inf"),
    float("-inf"),
    float("nan"),
    True,
    False,
)

QUANTITIES = (
    "1e999999999",
    "1e-999999999",
    "0.000000001m",
    "1n",
    "-1",
    "-0",
    "0",
    "1Ei",
    "8Ei",
    "9223372036854775807",
    "9223372036854775808",
    "99999999999999999999999999999999Ei",
    "1.5",
    "0.5m",
    "1e-9",
    "+1",
    "1E3",
    "1e+3",
    "1e18",
    "100Mi",
    "Ki",
    "1.",
    ".5",
    "1e",
    "1ee",
    "0x10",
    "1 Gi",
    "1gi",
    "1kb",
    "00001",
    "١٢",
    "1_000",
    "NaN",
    "Infinity",
)

CPU_LISTS = (
    "0-999999999",
    "3-1",
    "0,0",
    "0-3,2-5",
    "-1",
    "a-b",
    "0-",
    "-",
    ",",
    "1,,2",
    "",
    " 1",
    "1-1",
    "4294967296",
    "99999999999999999999",
    "0x1",
    "١",
    "0-3 ",
    "1-2-3",
)

CEL = (
    'device.attributes["d"].s.matches("^(a+)+$")',
    'device.driver.matches("^(a+)+$")',
    'device.driver.matches("(")',
    'device.driver.matches("a{1001}")',
    'device.driver.matches("((a{999}){999}){999}")',
    'device.driver.matches("(?P<n>a)(?P<n>b)")',
    'device.driver.matches("\\\\C")',
    'device.driver.matches("\\\\p{Greek}+")',
    'device.driver.find("[a-")',
    'device.driver.findAll("a*", -1).size() >= 0',
    'device.driver.findAll("(x)", 9223372036854775807).size() == 0',
    "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, "
    "[1,2,3,4,5,6,7,8,9,10].all(d, a + b + c + d > 0))))",
    "lists.range(100000000).size() > 0",
    "device.driver.split('').size() > 1000000",
    "9223372036854775807 + 1 > 0",
    "-9223372036854775808 / -1 > 0",
    "1 / 0 == 1",
    "1 % 0 == 1",
    "int(1e100) > 0",
    "uint(-1) > 0u",
    "double('nan') == double('nan')",
    'quantity("1e999999999").isGreaterThan(quantity("1"))',
    'quantity("0.000000001m").asInteger() == 0',
    'isQuantity("١")',
    'semver("999999999999999999999.0.0").major() > 0',
    'ip("::ffff:1.2.3.4").family() == 4',
    'cidr("0.0.0.0/-1").prefixLength() == 0',
    'url("http://[::1").getHost() == ""',
    '"%s %d %x %e %f %b %o".format(["a", 1, 2, 3.0, 4.0, 5, 6]) != ""',
    '"%.99999999f".format([1.0]) != ""',
    'device.capacity["x"].compareTo(quantity("1")) > 0',
    'device.attributes["gpu.nvidia.com"].missing.matches("x")',
    "(" * 300 + "true" + ")" * 300,
    "[" * 300 + "]" * 300 + " == []",
    "true" + " && true" * 3000,
    '"' + "\\u" + '"',
    "b'\\xff'.size() == 1",
    'string(b"\\xff") == ""',
    "dyn(1) == dyn('1')",
    "{1: 1, 1: 2}.size() == 1",
    "has(device.attributes)",
    "device.attributes.all(d, device.attributes[d].all(a, true))",
    "device.allowMultipleAllocations.exists(x, true)",
    "",
    "   ",
    "\u202etrue",
)

NAMES = ("", "a", "-", "A_B", "a.b.c", "x" * 254, "名前", "default", "kube-system", "..", "*", "node-1")

STRINGS = (
    "",
    " ",
    "x" * 300,
    "x" * 70_000,
    "ü",
    "名前",
    "\u202e",
    "\U0001f4a5",
    "\t",
    "\x00",
    "a\nb",
    "../../etc/passwd",
    "--help",
    "true",
    "null",
    "~",
    "0x10",
    "1e3",
    "*",
    "%s%s%n",
    "{{.}}",
    "resource.kubernetes.io/pcieRoot",
    "gpu.nvidia.com/" + "x" * 100,
)

WRONG_TYPES: tuple[Any, ...] = ({}, [], None, "x", 1, True, {"a": 1}, [1], [[]], {"": None})

# Keys whose values the mutators treat as their kind (lower-cased substrings of the key).
_QUANTITY_KEYS = (
    "value",
    "capacity",
    "memory",
    "cpu",
    "storage",
    "pods",
    "size",
    "hugepages",
    "requests",
    "limits",
)
_CPU_KEYS = ("reservedsystemcpus", "cpuset", "cpus", "defaultcpuset", "entries")
_CEL_KEYS = ("expression",)
_NAME_KEYS = ("name", "node", "class", "driver", "pool", "device", "request", "key", "namespace")


# The modules that add catalogs (see the module's docstring); each is imported once, when first needed.
CATALOG_MODULES = ("times", "names")

_REGISTERED: list[tuple[tuple[str, ...], tuple[Any, ...]]] = []


def register(keys: tuple[str, ...], values: tuple[Any, ...]) -> None:
    """Values fitting the fields whose keys hold one of `keys` (lower-case substrings), tried before the
    catalogs above; also drawn from for any field."""
    _REGISTERED.append((keys, values))


@functools.cache
def _registered() -> tuple[tuple[tuple[str, ...], tuple[Any, ...]], ...]:
    for name in CATALOG_MODULES:
        importlib.import_module(f".{name}", __package__)
    return tuple(_REGISTERED)


def hostile(chooser: Chooser, key: str) -> Any:
    """A value for the field `key`: half the time one fitting what the key holds, else any."""
    lowered = key.lower()
    registered = _registered()
    if chance(chooser, 50):
        for keys, values in registered:
            if any(k in lowered for k in keys) and chance(chooser, 50):
                return pick(chooser, values)
        if any(k in lowered for k in _CEL_KEYS):
            return pick(chooser, CEL)
        if any(k in lowered for k in _CPU_KEYS):
            return pick(chooser, CPU_LISTS)
        if any(k in lowered for k in _QUANTITY_KEYS):
            return pick(chooser, QUANTITIES)
        if any(k in lowered for k in _NAME_KEYS):
            return pick(chooser, NAMES)
    catalogs = (NUMBERS, QUANTITIES, CPU_LISTS, CEL, NAMES, STRINGS, WRONG_TYPES, *(v for _, v in registered))
    catalog = pick(chooser, catalogs)
    value = pick(chooser, catalog)
    return value.copy() if isinstance(value, dict | list) else value
