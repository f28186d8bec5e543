"""Standard CEL string functions: size, contains, startsWith, endsWith, matches.

`matches` takes an RE2 pattern, compiled and run by RE2 (see `re2`).
"""

from __future__ import annotations

import operator

from .. import types as t
from ..registry import Costs, Library
from .costs import REGEX, TRAVERSAL, UNIT, arg_len, size_at, traversal

# Re-exported for the format library and the tests.
from .costs import regex_cost as regex_cost
from .re2 import RegexSyntaxError as RegexSyntaxError
from .re2 import compile_re2 as compile_re2

library = Library("standard_strings")

# Looking for the substring at every position of the receiver.
_CONTAINS = Costs(
    lambda args: traversal(arg_len(args, 0)) * traversal(arg_len(args, 1)),
    lambda sizes: traversal(size_at(sizes, 0)) * traversal(size_at(sizes, 1)),
)


library.function("size", params=(t.STRING,), result=t.INT, id="size_string", costs=UNIT)(len)
library.function("size", member=True, params=(t.STRING,), result=t.INT, id="string_size", costs=UNIT)(len)

for _name, _id, _test, _costs in (
    ("contains", "contains_string", operator.contains, _CONTAINS),
    ("startsWith", "starts_with_string", str.startswith, TRAVERSAL),
    ("endsWith", "ends_with_string", str.endswith, TRAVERSAL),
):
    library.function(_name, member=True, params=(t.STRING, t.STRING), result=t.BOOL, id=_id, costs=_costs)(
        _test
    )


def _matches(s: str, pattern: str) -> bool:
    # cel-go returns Go's parse error text unchanged.
    return compile_re2(pattern).search(s)


library.function("matches", params=(t.STRING, t.STRING), result=t.BOOL, id="matches", costs=REGEX)(_matches)
library.function(
    "matches", member=True, params=(t.STRING, t.STRING), result=t.BOOL, id="matches_string", costs=REGEX
)(_matches)
