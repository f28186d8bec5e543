"""Kubernetes regex library: `find` and `findAll` over RE2 patterns.

Patterns are compiled by RE2 as for `matches` (see `re2`); a pattern Go rejects
fails with `Illegal regex: <Go's parse error>`, as the Kubernetes library reports it.
"""

from __future__ import annotations

from ....model.errors import CelRuntimeError
from .. import types as t
from ..registry import Library
from .costs import REGEX
from .re2 import Pattern, RegexSyntaxError, compile_re2

library = Library("kubernetes.regex")


def _compile(pattern: str) -> Pattern:
    try:
        return compile_re2(pattern)
    except RegexSyntaxError as e:
        raise CelRuntimeError(f"Illegal regex: {e}") from e


@library.function(
    "find", member=True, params=(t.STRING, t.STRING), result=t.STRING, id="string_find_string", costs=REGEX
)
def find(s: str, pattern: str) -> str:
    return _compile(pattern).find(s)


@library.function(
    "findAll",
    member=True,
    params=(t.STRING, t.STRING),
    result=t.list_of(t.STRING),
    id="string_find_all_string",
    costs=REGEX,
)
@library.function(
    "findAll",
    member=True,
    params=(t.STRING, t.STRING, t.INT),
    result=t.list_of(t.STRING),
    id="string_find_all_string_int",
    costs=REGEX,
)
def find_all(s: str, pattern: str, limit: int = -1) -> list[str]:
    return _compile(pattern).find_all(s, limit)
