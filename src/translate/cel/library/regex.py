"""Kubernetes regex library: `find` and `findAll` over RE2 patterns.

Patterns go through the same RE2 translation as `matches` (see `re2`); a
pattern Go rejects fails with `Illegal regex: <Go's parse error>`, as the
Kubernetes library reports it.
"""

from __future__ import annotations

import re

from ....errors import CelRuntimeError
from .. import types as t
from ..registry import Library
from .costs import REGEX
from .re2 import RegexSyntaxError, compile_re2

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


@library.function(
    "find", member=True, params=(t.STRING, t.STRING), result=t.STRING, id="string_find_string", costs=REGEX
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
    return find_all_matches(_compile(pattern), s, limit)
