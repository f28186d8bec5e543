"""RE2 patterns, translated for Python's `re`.

`matches` (and the Kubernetes `find`/`findAll`) take RE2 patterns, the syntax
of Go's `regexp` package. Python's `re` is a different dialect, so patterns are
not handed to it as written: `translate_re2` parses them with Go's rules
(including Go's error messages for everything Go rejects) and writes an
equivalent Python pattern. What the translation does:

* Case folding (`(?i)`), Perl classes (`\\d \\s \\w`, ASCII only as in Go), POSIX
  classes (`[[:alpha:]]`) and Unicode categories (`\\pL`, `\\p{Lu}`, `\\PN`) are
  expanded into explicit code point sets, so Python's own folding and class
  rules never apply.
* `$` without `(?m)` matches only at the end of the text (Python's `$` would also
  match before a final newline); `\\b` is the ASCII word boundary; `.` never
  matches a newline unless `(?s)`.
* Groups become non-capturing: no caller reads submatches, and named groups
  with names Python rejects (`(?P<1a>x)`) stay legal.
* Backreferences, lookaround, `\\C`, `\\Z` and possessive or stacked repetition
  are syntax errors, with Go's message (`invalid escape sequence: \\`\\1\\``,
  `invalid or unsupported Perl syntax: \\`(?=\\``, ...).

Known differences that remain: Unicode script classes (`\\p{Greek}`) are refused
because Python's `unicodedata` has no script property; Unicode tables are those
of the running Python, not of Go; case folding uses Python's case mappings,
which agree with Go's simple folding except for a few rare letters; and Python
backtracks, so a pathological pattern can be slow where RE2 is linear.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from .re2_charsets import (
    GO_TWO_LETTER,
    MAX_RUNE,
    PERL_CLASSES,
    POSIX_CLASSES,
    SCRIPTS,
    Ranges,
    category_table,
    fold,
    negate,
    normalize,
    py_class,
)
from .re2_syntax import (
    INVALID_CHAR_RANGE,
    INVALID_ESCAPE,
    INVALID_NAMED_CAPTURE,
    INVALID_PERL_OP,
    INVALID_REPEAT_OP,
    INVALID_REPEAT_SIZE,
    MAX_NESTING,
    MAX_REPEAT,
    MISSING_BRACKET,
    MISSING_PAREN,
    MISSING_REPEAT_ARG,
    NESTING_DEPTH,
    TRAILING_BACKSLASH,
    UNEXPECTED_PAREN,
    Node,
    repeat_is_valid,
    syntax_error,
)
from .re2_syntax import RegexSyntaxError as RegexSyntaxError

_FOLD, _ONE_LINE, _DOT_NL, _NON_GREEDY = 1, 2, 4, 8


@dataclass
class _Frame:
    flags: int  # flags to restore when the group closes
    alts: list[list[Node]] = field(default_factory=list)
    cur: list[Node] = field(default_factory=list)


def _is_alnum(c: str) -> bool:
    return c.isascii() and c.isalnum()


def _unhex(c: str) -> int:
    if "0" <= c <= "9":
        return ord(c) - ord("0")
    if "a" <= c <= "f":
        return ord(c) - ord("a") + 10
    if "A" <= c <= "F":
        return ord(c) - ord("A") + 10
    return -1


class _Translator:
    """Go's regexp/syntax parser (Perl flags), writing a Python pattern as it goes."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.flags = _ONE_LINE

    def run(self) -> str:
        s, n = self.src, len(self.src)
        frames = [_Frame(self.flags)]
        i = 0
        last_repeat: int | None = None
        while i < n:
            c = s[i]
            repeat_at: int | None = None
            frame = frames[-1]
            if c == "(":
                if i + 1 < n and s[i + 1] == "?":
                    i = self._perl_flags(i, frames)
                else:
                    frames.append(_Frame(self.flags))
                    i += 1
                if len(frames) > MAX_NESTING:
                    raise syntax_error(NESTING_DEPTH, s)
            elif c == "|":
                frame.alts.append(frame.cur)
                frame.cur = []
                i += 1
            elif c == ")":
                if len(frames) < 2:
                    raise syntax_error(UNEXPECTED_PAREN, s)
                done = frames.pop()
                done.alts.append(done.cur)
                self.flags = done.flags
                frames[-1].cur.append(Node("group", alts=done.alts))
                i += 1
            elif c == "^":
                text = r"\A" if self.flags & _ONE_LINE else "(?m:^)"
                frame.cur.append(Node("assert", text))
                i += 1
            elif c == "$":
                text = r"\Z" if self.flags & _ONE_LINE else "(?m:$)"
                frame.cur.append(Node("assert", text))
                i += 1
            elif c == ".":
                dot = [(0, MAX_RUNE)] if self.flags & _DOT_NL else negate([(10, 10)])
                frame.cur.append(Node("atom", py_class(dot)))
                i += 1
            elif c == "[":
                ranges, i = self._class(i)
                frame.cur.append(Node("atom", py_class(ranges)))
            elif c in "*+?":
                rmin, rmax = {"*": (0, -1), "+": (1, -1), "?": (0, 1)}[c]
                repeat_at = i
                i = self._repeat(frame, i, i + 1, rmin, rmax, False, last_repeat)
            elif c == "{":
                parsed = self._counted(i)
                if parsed is None:
                    frame.cur.append(self._literal(ord("{")))
                    i += 1
                else:
                    rmin, rmax, after = parsed
                    if rmin < 0 or rmin > MAX_REPEAT or rmax > MAX_REPEAT or 0 <= rmax < rmin:
                        raise syntax_error(INVALID_REPEAT_SIZE, s[i:after])
                    repeat_at = i
                    i = self._repeat(frame, i, after, rmin, rmax, True, last_repeat)
            elif c == "\\":
                i = self._top_escape(i, frame)
            else:
                frame.cur.append(self._literal(ord(c)))
                i += 1
            last_repeat = repeat_at
        if len(frames) != 1:
            raise syntax_error(MISSING_PAREN, s)
        root = frames[0]
        root.alts.append(root.cur)
        return "|".join("".join(node.emit() for node in alt) for alt in root.alts)

    def _repeat(
        self,
        frame: _Frame,
        start: int,
        after: int,
        rmin: int,
        rmax: int,
        counted: bool,
        last_repeat: int | None,
    ) -> int:
        s = self.src
        greedy = not self.flags & _NON_GREEDY
        if after < len(s) and s[after] == "?":
            after += 1
            greedy = not greedy
        if last_repeat is not None:
            raise syntax_error(INVALID_REPEAT_OP, s[last_repeat:after])
        if not frame.cur:
            raise syntax_error(MISSING_REPEAT_ARG, s[start:after])
        node = Node("repeat", subs=[frame.cur.pop()], rmin=rmin, rmax=rmax, counted=counted, greedy=greedy)
        if counted and (rmin >= 2 or rmax >= 2) and not repeat_is_valid(node, MAX_REPEAT):
            raise syntax_error(INVALID_REPEAT_SIZE, s[start:after])
        frame.cur.append(node)
        return after

    def _counted(self, i: int) -> tuple[int, int, int] | None:
        """`{n}`, `{n,}` or `{n,m}` at i: (min, max, end), max -1 if open; None if not a repeat."""
        s, n = self.src, len(self.src)
        j = i + 1
        got = self._int(j)
        if got is None:
            return None
        rmin, j = got
        if j >= n:
            return None
        if s[j] != ",":
            rmax = rmin
        else:
            j += 1
            if j >= n:
                return None
            if s[j] == "}":
                rmax = -1
            else:
                got = self._int(j)
                if got is None:
                    return None
                rmax, j = got
                if rmax < 0:
                    rmin = -1
        if j >= n or s[j] != "}":
            return None
        return rmin, rmax, j + 1

    def _int(self, j: int) -> tuple[int, int] | None:
        s, n = self.src, len(self.src)
        if j >= n or not ("0" <= s[j] <= "9"):
            return None
        if j + 1 < n and s[j] == "0" and "0" <= s[j + 1] <= "9":
            return None
        k = j
        while k < n and "0" <= s[k] <= "9":
            k += 1
        value = 0
        for ch in s[j:k]:
            if value >= 100_000_000:
                value = -1
                break
            value = value * 10 + ord(ch) - ord("0")
        return value, k

    def _perl_flags(self, i: int, frames: list[_Frame]) -> int:
        s, n = self.src, len(self.src)
        rest = s[i:]
        starts_p = len(rest) > 4 and rest[2] == "P" and rest[3] == "<"
        starts_name = len(rest) > 3 and rest[2] == "<"
        if starts_p or starts_name:
            begin = 4 if starts_p else 3
            end = rest.find(">")
            if end < 0:
                raise syntax_error(INVALID_NAMED_CAPTURE, rest)
            name = rest[begin:end]
            if not name or not all(ch == "_" or _is_alnum(ch) for ch in name):
                raise syntax_error(INVALID_NAMED_CAPTURE, rest[: end + 1])
            frames.append(_Frame(self.flags))
            return i + end + 1
        flags = self.flags
        negated = False
        saw_flag = False
        j = i + 2
        while j < n:
            ch = s[j]
            j += 1
            if ch in "imsU":
                bit = {"i": _FOLD, "m": _ONE_LINE, "s": _DOT_NL, "U": _NON_GREEDY}[ch]
                # (?m) clears one-line mode; a leading '-' reverses every flag's sense.
                if (ch == "m") != negated:
                    flags &= ~bit
                else:
                    flags |= bit
                saw_flag = True
            elif ch == "-":
                if negated:
                    break
                negated = True
                saw_flag = False
            elif ch in ":)":
                if negated and not saw_flag:
                    break
                if ch == ":":
                    frames.append(_Frame(self.flags))
                self.flags = flags
                return j
            else:
                break
        raise syntax_error(INVALID_PERL_OP, s[i:j])

    def _literal(self, cp: int) -> Node:
        ranges: Ranges = [(cp, cp)]
        if self.flags & _FOLD:
            ranges = fold(ranges)
        return Node("atom", py_class(ranges))

    def _group(self, ranges: Ranges, negated: bool) -> Ranges:
        if self.flags & _FOLD:
            ranges = fold(ranges)
        return negate(ranges) if negated else ranges

    def _top_escape(self, i: int, frame: _Frame) -> int:
        s, n = self.src, len(self.src)
        if i + 1 < n:
            nxt = s[i + 1]
            simple = {"A": r"\A", "z": r"\Z", "b": r"(?a:\b)", "B": r"(?a:\B)"}
            if nxt in simple:
                frame.cur.append(Node("assert", simple[nxt]))
                return i + 2
            if nxt == "C":
                raise syntax_error(INVALID_ESCAPE, s[i : i + 2])
            if nxt == "Q":
                end = s.find(r"\E", i + 2)
                lit = s[i + 2 :] if end < 0 else s[i + 2 : end]
                for ch in lit:
                    frame.cur.append(self._literal(ord(ch)))
                return n if end < 0 else end + 2
        got = self._unicode_class(i) or self._perl_class(i)
        if got is not None:
            ranges, j = got
            frame.cur.append(Node("atom", py_class(ranges)))
            return j
        cp, j = self._escape(i)
        frame.cur.append(self._literal(cp))
        return j

    def _perl_class(self, i: int) -> tuple[Ranges, int] | None:
        s = self.src
        if i + 1 >= len(s) or s[i] != "\\" or s[i + 1].lower() not in PERL_CLASSES:
            return None
        letter = s[i + 1]
        _, ranges = PERL_CLASSES[letter.lower()]
        return self._group(ranges, letter.isupper()), i + 2

    def _unicode_class(self, i: int) -> tuple[Ranges, int] | None:
        s, n = self.src, len(self.src)
        if i + 1 >= n or s[i] != "\\" or s[i + 1] not in "pP":
            return None
        negated = s[i + 1] == "P"
        j = i + 2
        if j >= n:
            seq, name = s[i:j], ""
        elif s[j] != "{":
            seq, name, j = s[i : j + 1], s[j], j + 1
        else:
            end = s.find("}", i)
            if end < 0:
                raise syntax_error(INVALID_CHAR_RANGE, s[i:])
            seq, name, j = s[i : end + 1], s[i + 3 : end], end + 1
        if name.startswith("^"):
            negated = not negated
            name = name[1:]
        if name == "Any":
            ranges: Ranges = [(0, MAX_RUNE)]
        elif name in category_table() and (len(name) == 1 or name in GO_TWO_LETTER):
            ranges = category_table()[name]
        elif name in SCRIPTS:
            raise RegexSyntaxError(
                f"error parsing regexp: Unicode script class `{seq}` is not supported by kubefit"
            )
        else:
            raise syntax_error(INVALID_CHAR_RANGE, seq)
        return self._group(ranges, negated), j

    def _escape(self, i: int) -> tuple[int, int]:
        """One escaped character at s[i] == '\\': (code point, index after)."""
        s, n = self.src, len(self.src)
        j = i + 1
        if j >= n:
            raise syntax_error(TRAILING_BACKSLASH, "")
        c = s[j]
        j += 1
        if c in "1234567" and (j >= n or not ("0" <= s[j] <= "7")):
            raise syntax_error(INVALID_ESCAPE, s[i:j])
        if c in "01234567":
            value = ord(c) - ord("0")
            for _ in range(2):
                if j >= n or not ("0" <= s[j] <= "7"):
                    break
                value = value * 8 + ord(s[j]) - ord("0")
                j += 1
            return value, j
        if c == "x":
            return self._hex_escape(i, j)
        controls = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
        if c in controls:
            return controls[c], j
        if c.isascii() and not _is_alnum(c):
            return ord(c), j
        raise syntax_error(INVALID_ESCAPE, s[i:j])

    def _hex_escape(self, i: int, j: int) -> tuple[int, int]:
        s, n = self.src, len(self.src)
        if j >= n:
            raise syntax_error(INVALID_ESCAPE, s[i:j])
        c = s[j]
        j += 1
        if c == "{":
            value, digits = 0, 0
            while True:
                if j >= n:
                    raise syntax_error(INVALID_ESCAPE, s[i:j])
                c = s[j]
                j += 1
                if c == "}":
                    break
                v = _unhex(c)
                if v < 0:
                    raise syntax_error(INVALID_ESCAPE, s[i:j])
                value = value * 16 + v
                if value > MAX_RUNE:
                    raise syntax_error(INVALID_ESCAPE, s[i:j])
                digits += 1
            if digits == 0:
                raise syntax_error(INVALID_ESCAPE, s[i:j])
            return value, j
        x = _unhex(c)
        y = -1
        if j < n:
            y = _unhex(s[j])
            j += 1
        if x < 0 or y < 0:
            raise syntax_error(INVALID_ESCAPE, s[i:j])
        return x * 16 + y, j

    def _class(self, i: int) -> tuple[Ranges, int]:
        """A bracketed class starting at s[i] == '['."""
        s, n = self.src, len(self.src)
        whole = s[i:]
        j = i + 1
        negated = False
        if j < n and s[j] == "^":
            negated = True
            j += 1
        ranges: Ranges = []
        first = True
        while j >= n or s[j] != "]" or first:
            first = False
            if j + 2 < n and s[j] == "[" and s[j + 1] == ":":
                got = self._posix_class(j)
                if got is not None:
                    more, j = got
                    ranges += more
                    continue
            got = self._unicode_class(j) or self._perl_class(j)
            if got is not None:
                more, j = got
                ranges += more
                continue
            start = j
            lo, j = self._class_char(j, whole)
            hi = lo
            if j + 1 < n and s[j] == "-" and s[j + 1] != "]":
                hi, j = self._class_char(j + 1, whole)
                if hi < lo:
                    raise syntax_error(INVALID_CHAR_RANGE, s[start:j])
            ranges += self._group([(lo, hi)], False)
        ranges = normalize(ranges)
        return (negate(ranges) if negated else ranges), j + 1

    def _class_char(self, j: int, whole: str) -> tuple[int, int]:
        s = self.src
        if j >= len(s):
            raise syntax_error(MISSING_BRACKET, whole)
        if s[j] == "\\":
            return self._escape(j)
        return ord(s[j]), j + 1

    def _posix_class(self, j: int) -> tuple[Ranges, int] | None:
        s = self.src
        end = s.find(":]", j + 2)
        if end < 0:
            return None
        name = s[j : end + 2]
        inner = name[2:-2]
        negated = inner.startswith("^")
        ranges = POSIX_CLASSES.get(inner[1:] if negated else inner)
        if ranges is None:
            raise syntax_error(INVALID_CHAR_RANGE, name)
        return self._group(ranges, negated), end + 2


@functools.lru_cache(maxsize=512)
def _compile_cached(pattern: str) -> re.Pattern[str] | RegexSyntaxError:
    try:
        return re.compile(translate_re2(pattern))
    except RegexSyntaxError as e:
        return e
    except RecursionError:
        # Go accepts nesting up to depth 1000; Python's parser gives up earlier.
        return RegexSyntaxError(f"error parsing regexp: expression nests too deeply for kubefit: `{pattern}`")


def translate_re2(pattern: str) -> str:
    """The Python `re` pattern equivalent to a Go RE2 pattern; raises Go's parse errors."""
    return _Translator(pattern).run()


def compile_re2(pattern: str) -> re.Pattern[str]:
    """Compile an RE2 pattern (cached). Raises `RegexSyntaxError` with Go's message."""
    result = _compile_cached(pattern)
    if isinstance(result, RegexSyntaxError):
        raise RegexSyntaxError(str(result))
    return result
