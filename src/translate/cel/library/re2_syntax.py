"""Go's regexp/syntax vocabulary for the RE2 translation (see `re2`): its errors, limits and parse tree."""

from __future__ import annotations

from dataclasses import dataclass, field

from ....errors import CelRuntimeError


class RegexSyntaxError(CelRuntimeError):
    """A pattern Go's regexp parser rejects (or one kubefit cannot translate)."""


# Go's regexp/syntax error codes.
INVALID_CHAR_RANGE = "invalid character class range"
INVALID_ESCAPE = "invalid escape sequence"
INVALID_NAMED_CAPTURE = "invalid named capture"
INVALID_PERL_OP = "invalid or unsupported Perl syntax"
INVALID_REPEAT_OP = "invalid nested repetition operator"
INVALID_REPEAT_SIZE = "invalid repeat count"
MISSING_BRACKET = "missing closing ]"
MISSING_PAREN = "missing closing )"
MISSING_REPEAT_ARG = "missing argument to repetition operator"
TRAILING_BACKSLASH = "trailing backslash at end of expression"
UNEXPECTED_PAREN = "unexpected )"
NESTING_DEPTH = "expression nests too deeply"

MAX_REPEAT = 1000
MAX_NESTING = 1000


def syntax_error(code: str, expr: str) -> RegexSyntaxError:
    return RegexSyntaxError(f"error parsing regexp: {code}: `{expr}`")


# The parse tree the translation builds: each node knows its Python form.


@dataclass
class Node:
    kind: str  # "atom" (one unit), "assert" (zero width), "repeat", "concat", "group"
    text: str = ""
    subs: list[Node] = field(default_factory=list)
    alts: list[list[Node]] = field(default_factory=list)
    rmin: int = 0
    rmax: int = -1
    counted: bool = False
    greedy: bool = True

    def emit(self) -> str:
        if self.kind in ("atom", "assert"):
            return self.text
        if self.kind == "group":
            return "(?:" + "|".join("".join(n.emit() for n in alt) for alt in self.alts) + ")"
        sub = self.subs[0]
        body = sub.emit() if sub.kind in ("atom", "group") else f"(?:{sub.emit()})"
        if self.rmin == 0 and self.rmax == -1:
            op = "*"
        elif self.rmin == 1 and self.rmax == -1:
            op = "+"
        elif self.rmin == 0 and self.rmax == 1 and not self.counted:
            op = "?"
        elif self.rmax == -1:
            op = f"{{{self.rmin},}}"
        elif self.rmin == self.rmax:
            op = f"{{{self.rmin}}}"
        else:
            op = f"{{{self.rmin},{self.rmax}}}"
        return body + op + ("" if self.greedy else "?")


def repeat_is_valid(node: Node, budget: int) -> bool:
    """Go refuses counted repetitions whose nested product exceeds 1000."""
    if node.kind == "repeat" and node.counted:
        m = node.rmax
        if m == 0:
            return True
        if m < 0:
            m = node.rmin
        if m > budget:
            return False
        if m > 0:
            budget //= m
    children = node.subs + [n for alt in node.alts for n in alt]
    return all(repeat_is_valid(c, budget) for c in children)
