"""Kubernetes regex library: `find` and `findAll` over RE2 patterns.

Patterns go through the same RE2 translation as `matches` (see
`standard_strings`); a pattern Go rejects fails with `Illegal regex: <Go's
parse error>`, as the Kubernetes library reports it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ....errors import CelRuntimeError
from .. import types as t
from ..registry import Library
from .standard_strings import RegexSyntaxError, compile_re2, regex_cost

library = Library("kubernetes.regex")


def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return compile_re2(pattern)
    except RegexSyntaxError as e:
        raise CelRuntimeError(f"Illegal regex: {e}") from e


def find_all_matches(regex: re.Pattern[str], s: str, limit: int) -> list[str]:
    """Go's `FindAllString`: successive non-overlapping matches, at most `limit` if >= 0.

    An empty match right where the previous match ended is skipped, which is where
    Go differs from Python's `findall`.
    """
    if limit < 0:
        limit = len(s) + 1
    out: list[str] = []
    pos = 0
    prev_end = -1
    while len(out) < limit and pos <= len(s):
        m = regex.search(s, pos)
        if m is None:
            break
        start, end = m.span()
        accept = True
        if end == start:
            if start == prev_end:
                accept = False
            pos = start + 1 if start < len(s) else len(s) + 1
        else:
            pos = end
        prev_end = end
        if accept:
            out.append(m.group())
    return out


def _regex_cost(args: Sequence[Any]) -> int:
    text = args[0] if args and isinstance(args[0], str) else ""
    pattern = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
    return regex_cost(len(text), len(pattern))


def _regex_estimate(sizes: Sequence[int]) -> int:
    return regex_cost(sizes[0] if sizes else 0, sizes[1] if len(sizes) > 1 else 0)


@library.function(
    "find",
    member=True,
    params=(t.STRING, t.STRING),
    result=t.STRING,
    id="string_find_string",
    cost=_regex_cost,
    estimate=_regex_estimate,
)
def find(s: str, pattern: str) -> str:
    m = _compile(pattern).search(s)
    return m.group() if m is not None else ""


@library.function(
    "findAll",
    member=True,
    params=(t.STRING, t.STRING),
    result=t.list_of(t.STRING),
    id="string_find_all_string",
    cost=_regex_cost,
    estimate=_regex_estimate,
)
def find_all(s: str, pattern: str) -> list[str]:
    return find_all_matches(_compile(pattern), s, -1)


@library.function(
    "findAll",
    member=True,
    params=(t.STRING, t.STRING, t.INT),
    result=t.list_of(t.STRING),
    id="string_find_all_string_int",
    cost=_regex_cost,
    estimate=_regex_estimate,
)
def find_all_n(s: str, pattern: str, limit: int) -> list[str]:
    return find_all_matches(_compile(pattern), s, limit)
