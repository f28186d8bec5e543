"""Scalars whose tag PyYAML cannot construct them as.

PyYAML's constructors raise whatever int(), float() or a table lookup raises for `!!int foo`,
`!!bool x` or `!!timestamp x`, and for plain scalars its patterns take for numbers that are not
(`0b_`, `0x_`). go-yaml (sigs.k8s.io/yaml) reads a plain scalar that does not parse as what it looks
like as a string, and refuses a tag its value does not fit: "cannot decode !!str `foo` as a !!int".
An explicit timestamp stays a string, as implicit ones do (Kubernetes reads YAML as JSON, where a
timestamp is a string).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import yaml

_TAGS = ("int", "float", "bool", "timestamp")
_PATTERNS: dict[str, list[re.Pattern[str]]] = {}
for _resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.values():
    for _tag, _regexp in _resolvers:
        _patterns = _PATTERNS.setdefault(_tag, [])
        if _regexp not in _patterns:
            _patterns.append(_regexp)


def _checked(short: str, construct: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    tag = f"tag:yaml.org,2002:{short}"

    def constructor(loader: Any, node: Any) -> Any:
        value = loader.construct_scalar(node)
        if not any(p.match(value) for p in _PATTERNS.get(tag, ())):
            message = f"cannot decode !!str `{value}` as a !!{short}"
            raise yaml.constructor.ConstructorError(None, None, message, node.start_mark)
        if short == "timestamp":
            return value
        try:
            return construct(loader, node)
        except (ValueError, KeyError):
            return value  # looks like a number, is not one: go-yaml's string

    return constructor


def install(loader: type[Any]) -> None:
    """Give `loader` (a SafeConstructor) these constructors for the scalar tags."""
    for short in _TAGS:
        construct = yaml.constructor.SafeConstructor.yaml_constructors[f"tag:yaml.org,2002:{short}"]
        loader.add_constructor(f"tag:yaml.org,2002:{short}", _checked(short, construct))
