"""Where Go's regexp parser and C++ RE2 part ways: error wording, and what only Go refuses.

cel-go compiles patterns with Go's `regexp/syntax`; kubefit compiles them with C++
RE2 (see `re2`). The two parsers share one design: same syntax, same flags, same
left-to-right reading, so they stop at the same first error. They differ in:

* wording: RE2 says `missing ): (a`, Go says "missing closing ): `(a`";
  `reword` rewrites every RE2 error as Go's, including the one case where the
  quoted text differs (a lookbehind, which Go reads as a bad capture name);
* what only Go refuses, found by `scan`: `\\C` (any byte), capture names that are
  not ASCII word characters, parse trees higher than 1000 levels, and trees Go
  sizes at more than 128 MiB of instructions (RE2 has its own memory budget, see
  `re2`; running out of it reads as Go's "expression too large").

`scan` follows Go's parser just far enough for these: tokens, groups, and the
height and size of the tree Go builds (literal runs merged, single-element
concatenations and nested concatenations or alternations collapsed, alternations
of single characters merged into one class). Go's factoring of common prefixes out
of alternations is not modelled, so height and size are exact without shared
alternation prefixes and close otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

# Go's limits on the parse tree: its height, and the instructions it compiles to (128 MiB of them).
MAX_HEIGHT = 1000
MAX_SIZE = (128 << 20) // 40

# RE2's error codes (as RE2 words them) -> Go's ErrorCode text. Longest first where one prefixes another.
_GO_CODES = (
    ("invalid character class range", "invalid character class range"),
    ("invalid character class", "invalid character class"),
    ("invalid escape sequence", "invalid escape sequence"),
    ("invalid named capture group", "invalid named capture"),
    ("invalid perl operator", "invalid or unsupported Perl syntax"),
    ("invalid repetition size", "invalid repeat count"),
    ("bad repetition operator", "invalid nested repetition operator"),
    ("no argument for repetition operator", "missing argument to repetition operator"),
    ("missing ]", "missing closing ]"),
    ("missing )", "missing closing )"),
    ("unexpected )", "unexpected )"),
    ("trailing \\", "trailing backslash at end of expression"),
    ("invalid UTF-8", "invalid UTF-8"),
)
# RE2 runs out of its memory budget compiling (see `re2`); Go's nearest refusal is its size limit.
TOO_LARGE = "pattern too large - compile failed"


def go_error(code: str, expr: str) -> str:
    """Go's `*syntax.Error` text."""
    return f"error parsing regexp: {code}: `{expr}`"


def reword(re2_error: str, pattern: str, lookbehind: int | None) -> str:
    """Go's message for the error RE2 reported on `pattern`."""
    if re2_error == TOO_LARGE:
        return go_error("expression too large", pattern)
    for re2_code, code in _GO_CODES:
        if re2_error == re2_code or re2_error.startswith(re2_code + ": "):
            expr = re2_error[len(re2_code) + 2 :]
            if re2_code == "invalid perl operator" and lookbehind is not None:
                # Go has no lookbehind: `(?<=x>` or `(?<!x>` starts a capture with an invalid name.
                rest = pattern[lookbehind:]
                end = rest.find(">")
                return go_error("invalid named capture", rest if end < 0 else rest[: end + 1])
            return go_error(code, expr)
    return f"error parsing regexp: {re2_error}"


@dataclass(frozen=True)
class _Node:
    """A node of Go's parse tree, as far as its height, size and shape go."""

    height: int
    size: int  # instructions Go's size check counts for it
    kind: str  # "lit" (literal string), "char" (one character or class), "concat", "alt", "other"


_EMPTY = _Node(1, 1, "other")
_CHAR = _Node(1, 1, "char")
_RUNE = _Node(1, 1, "lit")


def _concat(items: list[_Node]) -> _Node:
    if not items:
        return _EMPTY
    if len(items) == 1:
        return items[0]
    # A concatenation inside a concatenation is flattened into it.
    height = 1 + max(n.height - 1 if n.kind == "concat" else n.height for n in items)
    return _Node(height, sum(n.size for n in items), "concat")


def _alternate(alts: list[_Node]) -> _Node:
    if len(alts) == 1:
        return alts[0]
    if all(n.kind == "char" or (n.kind == "lit" and n.size == 1) for n in alts):
        return _CHAR  # a|b|[cd] becomes the class [a-d]
    height = 1 + max(n.height - 1 if n.kind == "alt" else n.height for n in alts)
    return _Node(height, sum(n.size for n in alts) + len(alts) - 1, "alt")


def _repeated(sub: _Node, low: int, high: int, counted: bool) -> _Node:
    """`sub` under a repetition operator, sized as Go's parser sizes it."""
    if not counted:
        size = (2 if high < 0 and low == 0 else 1) + sub.size  # x* takes two instructions, x+ and x? one
    elif high < 0:
        size = 2 + sub.size if low == 0 else 1 + low * sub.size
    else:
        size = high * sub.size + high - low  # x{2,5} = xx(x(x(x)?)?)?
    return _Node(sub.height + 1, max(1, size), "other")


@dataclass
class _Frame:
    capture: bool
    alts: list[_Node] = field(default_factory=list)
    items: list[_Node] = field(default_factory=list)
    # Literals merged into the trailing literal, and the size of the last of them: Go merges a literal
    # into the one before only when the next arrives, so a repetition applies to the last alone.
    run: int = 0
    last: int = 0

    def literal(self, node: _Node) -> None:
        if self.run:
            merged = self.items[-1]
            self.items[-1] = _Node(1, merged.size + node.size, "lit")
        else:
            self.items.append(node)
        self.run += 1
        self.last = node.size

    def add(self, node: _Node) -> None:
        self.items.append(node)
        self.run = 0

    def repeat(self, low: int, high: int, counted: bool) -> _Node | None:
        """Apply a repetition operator to the last entry; the resulting node."""
        if not self.items:
            return None
        if self.run >= 2:
            merged = self.items[-1]
            self.items[-1] = _Node(1, merged.size - self.last, "lit")
            self.items.append(_repeated(_Node(1, self.last, "lit"), low, high, counted))
        else:
            self.items[-1] = _repeated(self.items[-1], low, high, counted)
        self.run = 0
        return self.items[-1]

    def alternate(self) -> None:
        self.alts.append(_concat(self.items))
        self.items = []
        self.run = 0

    def close(self) -> _Node:
        self.alternate()
        node = _alternate(self.alts)
        return _Node(node.height + 1, node.size + 2, "other") if self.capture else node


class Scan(NamedTuple):
    """Where reading stopped: at the first thing only Go refuses, or at a lookbehind (if either)."""

    refusal: tuple[int, str] | None  # (position, Go's message)
    lookbehind: int | None  # where `(?<=` or `(?<!` starts


def _is_word(name: str) -> bool:
    return bool(name) and all(c == "_" or (c.isascii() and c.isalnum()) for c in name)


def _counted(s: str, i: int) -> tuple[int, int, int] | None:
    """A counted repetition `{n}`, `{n,}` or `{n,m}` at i: (min, max or -1, index after); else None."""
    bounds: list[int] = []
    j = i + 1
    while True:
        k = j
        while k < len(s) and "0" <= s[k] <= "9":
            k += 1
        if k == j and not (bounds and k < len(s) and s[k] == "}"):
            return None
        bounds.append(int(s[j:k]) if k > j else -1)
        if k < len(s) and s[k] == "}":
            low = bounds[0]
            return low, bounds[1] if len(bounds) > 1 else low, k + 1
        if len(bounds) == 2 or k >= len(s) or s[k] != ",":
            return None
        j = k + 1


def _class_end(s: str, i: int) -> int:
    """The index after the bracketed class starting at s[i] == '['."""
    j = i + 1
    if j < len(s) and s[j] == "^":
        j += 1
    first = True
    while j < len(s):
        c = s[j]
        if c == "]" and not first:
            return j + 1
        first = False
        if s.startswith("[:", j) and (k := s.find(":]", j + 2)) >= 0:
            j = k + 2
        else:
            j += 2 if c == "\\" else 1
    return len(s)


def _braced_end(s: str, i: int, width: int) -> int:
    """After `\\p{..}` / `\\x{..}` at i, or after the `width`-character short form."""
    if s.startswith("{", i + 2):
        end = s.find("}", i)
        return len(s) if end < 0 else end + 1
    return i + width


def _octal_end(s: str, i: int) -> int:
    j = i + 2
    while j < min(i + 4, len(s)) and "0" <= s[j] <= "7":
        j += 1
    return j


def scan(s: str) -> Scan:
    """Read a pattern as Go's parser does (Perl flags), up to the first thing only Go refuses."""
    frames = [_Frame(capture=False)]
    i, n = 0, len(s)

    def refused(node: _Node | None) -> Scan | None:
        if node is None:
            return None
        if node.height > MAX_HEIGHT:
            return Scan((i, go_error("expression nests too deeply", s)), None)
        if node.size > MAX_SIZE:
            return Scan((i, go_error("expression too large", s)), None)
        return None

    while i < n:
        c, frame = s[i], frames[-1]
        formed: _Node | None = None
        counted = _counted(s, i) if c == "{" else None
        if c == "(" and s.startswith("(?", i):
            named = (s.startswith("(?P<", i) and n - i > 4) or (s.startswith("(?<", i) and n - i > 3)
            if named:
                if s.startswith(("(?<=", "(?<!"), i):
                    return Scan(None, i)
                end = s.find(">", i)
                if end < 0:
                    break
                capture = s[i : end + 1]
                if not _is_word(capture[4 if capture[2] == "P" else 3 : -1]):
                    return Scan((i, go_error("invalid named capture", capture)), None)
                frames.append(_Frame(capture=True))
                i = end + 1
                continue
            j = i + 2
            while j < n and s[j] in "imsU-":
                j += 1
            if j >= n or s[j] not in ":)":
                break
            if s[j] == ":":
                frames.append(_Frame(capture=False))
            i = j + 1
            continue
        if c == "(":
            frames.append(_Frame(capture=True))
            i += 1
        elif c == ")":
            if len(frames) == 1:
                break
            formed = frames.pop().close()
            if formed.kind == "lit":
                frames[-1].literal(formed)
            else:
                frames[-1].add(formed)
            i += 1
        elif c == "|":
            frame.alternate()
            i += 1
        elif c in "*+?" or counted is not None:
            if counted is not None:
                low, high, i = counted
                formed = frame.repeat(low, high, True)
            else:
                low, high = {"*": (0, -1), "+": (1, -1), "?": (0, 1)}[c]
                formed = frame.repeat(low, high, False)
                i += 1
            if i < n and s[i] == "?":
                i += 1
        elif c == "[":
            frame.add(_CHAR)
            i = _class_end(s, i)
        elif c == ".":
            frame.add(_CHAR)
            i += 1
        elif c in "^$":
            frame.add(_EMPTY)
            i += 1
        elif c == "\\":
            if i + 1 >= n:
                break
            d = s[i + 1]
            if d == "C":
                return Scan((i, go_error("invalid escape sequence", "\\C")), None)
            if d == "Q":
                end = s.find("\\E", i + 2)
                quoted = s[i + 2 :] if end < 0 else s[i + 2 : end]
                for _ in quoted:
                    frame.literal(_RUNE)
                i = n if end < 0 else end + 2
            elif d in "AzbB":
                frame.add(_EMPTY)
                i += 2
            elif d in "dDsSwWpP":
                frame.add(_CHAR)
                i = _braced_end(s, i, 3) if d in "pP" else i + 2
            else:
                frame.literal(_RUNE)
                i = _braced_end(s, i, 4) if d == "x" else _octal_end(s, i) if d in "01234567" else i + 2
        else:
            frame.literal(_RUNE)
            i += 1
        if (found := refused(formed)) is not None:
            return found
    else:
        # The whole pattern was read (with a group left open, Go's error is the missing parenthesis).
        if len(frames) == 1 and (found := refused(frames[0].close())) is not None:
            return found
    return Scan(None, None)
