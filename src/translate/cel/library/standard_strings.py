"""Standard CEL string functions: size, contains, startsWith, endsWith, matches.

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

import bisect
import functools
import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ....errors import CelRuntimeError
from .. import types as t
from ..registry import Library

library = Library("standard_strings")

STRING_TRAVERSAL_COST = 0.1
REGEX_LENGTH_COST = 0.25

MAX_RUNE = 0x10FFFF

Ranges = list[tuple[int, int]]


class RegexSyntaxError(CelRuntimeError):
    """A pattern Go's regexp parser rejects (or one kubefit cannot translate)."""


# Go's regexp/syntax error codes.
_INVALID_CHAR_RANGE = "invalid character class range"
_INVALID_ESCAPE = "invalid escape sequence"
_INVALID_NAMED_CAPTURE = "invalid named capture"
_INVALID_PERL_OP = "invalid or unsupported Perl syntax"
_INVALID_REPEAT_OP = "invalid nested repetition operator"
_INVALID_REPEAT_SIZE = "invalid repeat count"
_MISSING_BRACKET = "missing closing ]"
_MISSING_PAREN = "missing closing )"
_MISSING_REPEAT_ARG = "missing argument to repetition operator"
_TRAILING_BACKSLASH = "trailing backslash at end of expression"
_UNEXPECTED_PAREN = "unexpected )"
_NESTING_DEPTH = "expression nests too deeply"

_MAX_REPEAT = 1000
_MAX_NESTING = 1000


def _syntax_error(code: str, expr: str) -> RegexSyntaxError:
    return RegexSyntaxError(f"error parsing regexp: {code}: `{expr}`")


# --- code point sets -------------------------------------------------------------


def _normalize(ranges: Ranges) -> Ranges:
    out: Ranges = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def _negate(ranges: Ranges) -> Ranges:
    out: Ranges = []
    nxt = 0
    for lo, hi in _normalize(ranges):
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_RUNE:
        out.append((nxt, MAX_RUNE))
    return out


# Blocks that hold every cased letter Python knows; scanning only these keeps the
# one-time fold table build fast.
_CASED_BLOCKS = (
    (0x0000, 0x2FFF),
    (0xA600, 0xABFF),
    (0xFB00, 0xFF5F),
    (0x10400, 0x10FFF),
    (0x118A0, 0x118FF),
    (0x16E40, 0x16E9F),
    (0x1E900, 0x1E95F),
)


@functools.cache
def _fold_orbits() -> tuple[dict[int, tuple[int, ...]], list[int]]:
    """Sets of code points that match each other case-insensitively (Go's SimpleFold orbits).

    Lower-casing and case folding link a letter to its partners; upper-casing is left
    out because it would wrongly join dotless i to I.
    """
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for lo, hi in _CASED_BLOCKS:
        for cp in range(lo, hi + 1):
            ch = chr(cp)
            for mapped in (ch.lower(), ch.casefold()):
                if len(mapped) == 1 and mapped != ch:
                    a, b = find(cp), find(ord(mapped))
                    if a != b:
                        parent[a] = b
    groups: dict[int, list[int]] = {}
    for cp in list(parent):
        groups.setdefault(find(cp), []).append(cp)
    orbits: dict[int, tuple[int, ...]] = {}
    for members in groups.values():
        if len(members) > 1:
            orbit = tuple(sorted(members))
            for cp in orbit:
                orbits[cp] = orbit
    return orbits, sorted(orbits)


def _fold(ranges: Ranges) -> Ranges:
    """Close a set under case folding."""
    orbits, keys = _fold_orbits()
    extra: Ranges = []
    for lo, hi in ranges:
        for idx in range(bisect.bisect_left(keys, lo), bisect.bisect_right(keys, hi)):
            extra.extend((cp, cp) for cp in orbits[keys[idx]])
    return _normalize(ranges + extra)


_GO_CATEGORIES = {
    "C": ("Cc", "Cf", "Co", "Cs"),
    "L": ("Lu", "Ll", "Lt", "Lm", "Lo"),
    "M": ("Mn", "Mc", "Me"),
    "N": ("Nd", "Nl", "No"),
    "P": ("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"),
    "S": ("Sm", "Sc", "Sk", "So"),
    "Z": ("Zs", "Zl", "Zp"),
}


@functools.cache
def _category_table() -> dict[str, Ranges]:
    """Unicode general categories in Go's naming (Go has no `Cn`)."""
    table: dict[str, Ranges] = {}
    start, current = 0, unicodedata.category("\0")
    for cp in range(1, MAX_RUNE + 2):
        cat = unicodedata.category(chr(cp)) if cp <= MAX_RUNE else ""
        if cat != current:
            table.setdefault(current, []).append((start, cp - 1))
            start, current = cp, cat
    table.pop("Cn", None)
    for major, minors in _GO_CATEGORIES.items():
        table[major] = _normalize([r for m in minors for r in table.get(m, [])])
    return table


# Unicode scripts Go's regexp knows; Python has no script data, so these are refused
# with a message that says so rather than reported as invalid.
_SCRIPT_NAMES = """
Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali
Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian
Chakma Cham Cherokee Chorasmian Common Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret
Devanagari Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Georgian
Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi Gurmukhi Han Hangul Hanifi_Rohingya Hanunoo
Hatran Hebrew Hiragana Imperial_Aramaic Inherited Inscriptional_Pahlavi Inscriptional_Parthian
Javanese Kaithi Kannada Katakana Kawi Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki
Khudawadi Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian Mahajani Makasar Malayalam
Mandaic Manichaean Marchen Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive
Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean Nag_Mundari Nandinagari
New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian Old_Italic
Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur Oriya
Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic
Samaritan Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian Sora_Sompeng Soyombo
Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangsa Tangut
Telugu Thaana Thai Tibetan Tifinagh Tirhuta Toto Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi
Yi Zanabazar_Square
"""
_SCRIPTS = frozenset(_SCRIPT_NAMES.split())


def _r(*chars: str) -> Ranges:
    """Ranges from "a-z"-style strings or single characters."""
    out: Ranges = []
    for c in chars:
        out.append((ord(c[0]), ord(c[-1])))
    return out


_PERL_CLASSES: dict[str, tuple[bool, Ranges]] = {
    "d": (False, _r("0-9")),
    "s": (False, _r("\t", "\n", "\f", "\r", " ")),
    "w": (False, _r("0-9", "A-Z", "_", "a-z")),
}

_POSIX_CLASSES: dict[str, Ranges] = {
    "alnum": _r("0-9", "A-Z", "a-z"),
    "alpha": _r("A-Z", "a-z"),
    "ascii": [(0, 0x7F)],
    "blank": _r("\t", " "),
    "cntrl": [(0, 0x1F), (0x7F, 0x7F)],
    "digit": _r("0-9"),
    "graph": _r("!-~"),
    "lower": _r("a-z"),
    "print": _r(" -~"),
    "punct": _r("!-/", ":-@", "[-`", "{-~"),
    "space": _r("\t", "\n", "\v", "\f", "\r", " "),
    "upper": _r("A-Z"),
    "word": _r("0-9", "A-Z", "_", "a-z"),
    "xdigit": _r("0-9", "A-F", "a-f"),
}


def _py_char(cp: int) -> str:
    ch = chr(cp)
    if ch.isascii() and ch.isalnum():
        return ch
    if cp < 0x100:
        return f"\\x{cp:02x}"
    if cp < 0x10000:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def _py_class(ranges: Ranges) -> str:
    ranges = _normalize(ranges)
    if not ranges:
        return "(?!)"
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return _py_char(ranges[0][0])
    parts = []
    for lo, hi in ranges:
        if lo == hi:
            parts.append(_py_char(lo))
        else:
            parts.append(f"{_py_char(lo)}-{_py_char(hi)}")
    return "[" + "".join(parts) + "]"


# --- parse tree --------------------------------------------------------------------


@dataclass
class _Node:
    kind: str  # "atom" (one unit), "assert" (zero width), "repeat", "concat", "group"
    text: str = ""
    subs: list[_Node] = field(default_factory=list)
    alts: list[list[_Node]] = field(default_factory=list)
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


def _repeat_is_valid(node: _Node, budget: int) -> bool:
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
    return all(_repeat_is_valid(c, budget) for c in children)


_FOLD, _ONE_LINE, _DOT_NL, _NON_GREEDY = 1, 2, 4, 8


@dataclass
class _Frame:
    flags: int  # flags to restore when the group closes
    alts: list[list[_Node]] = field(default_factory=list)
    cur: list[_Node] = field(default_factory=list)


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
                if len(frames) > _MAX_NESTING:
                    raise _syntax_error(_NESTING_DEPTH, s)
            elif c == "|":
                frame.alts.append(frame.cur)
                frame.cur = []
                i += 1
            elif c == ")":
                if len(frames) < 2:
                    raise _syntax_error(_UNEXPECTED_PAREN, s)
                done = frames.pop()
                done.alts.append(done.cur)
                self.flags = done.flags
                frames[-1].cur.append(_Node("group", alts=done.alts))
                i += 1
            elif c == "^":
                text = r"\A" if self.flags & _ONE_LINE else "(?m:^)"
                frame.cur.append(_Node("assert", text))
                i += 1
            elif c == "$":
                text = r"\Z" if self.flags & _ONE_LINE else "(?m:$)"
                frame.cur.append(_Node("assert", text))
                i += 1
            elif c == ".":
                dot = [(0, MAX_RUNE)] if self.flags & _DOT_NL else _negate([(10, 10)])
                frame.cur.append(_Node("atom", _py_class(dot)))
                i += 1
            elif c == "[":
                ranges, i = self._class(i)
                frame.cur.append(_Node("atom", _py_class(ranges)))
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
                    if rmin < 0 or rmin > _MAX_REPEAT or rmax > _MAX_REPEAT or 0 <= rmax < rmin:
                        raise _syntax_error(_INVALID_REPEAT_SIZE, s[i:after])
                    repeat_at = i
                    i = self._repeat(frame, i, after, rmin, rmax, True, last_repeat)
            elif c == "\\":
                i = self._top_escape(i, frame)
            else:
                frame.cur.append(self._literal(ord(c)))
                i += 1
            last_repeat = repeat_at
        if len(frames) != 1:
            raise _syntax_error(_MISSING_PAREN, s)
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
            raise _syntax_error(_INVALID_REPEAT_OP, s[last_repeat:after])
        if not frame.cur:
            raise _syntax_error(_MISSING_REPEAT_ARG, s[start:after])
        node = _Node("repeat", subs=[frame.cur.pop()], rmin=rmin, rmax=rmax, counted=counted, greedy=greedy)
        if counted and (rmin >= 2 or rmax >= 2) and not _repeat_is_valid(node, _MAX_REPEAT):
            raise _syntax_error(_INVALID_REPEAT_SIZE, s[start:after])
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
                raise _syntax_error(_INVALID_NAMED_CAPTURE, rest)
            name = rest[begin:end]
            if not name or not all(ch == "_" or _is_alnum(ch) for ch in name):
                raise _syntax_error(_INVALID_NAMED_CAPTURE, rest[: end + 1])
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
        raise _syntax_error(_INVALID_PERL_OP, s[i:j])

    def _literal(self, cp: int) -> _Node:
        ranges: Ranges = [(cp, cp)]
        if self.flags & _FOLD:
            ranges = _fold(ranges)
        return _Node("atom", _py_class(ranges))

    def _group(self, ranges: Ranges, negated: bool) -> Ranges:
        if self.flags & _FOLD:
            ranges = _fold(ranges)
        return _negate(ranges) if negated else ranges

    def _top_escape(self, i: int, frame: _Frame) -> int:
        s, n = self.src, len(self.src)
        if i + 1 < n:
            nxt = s[i + 1]
            simple = {"A": r"\A", "z": r"\Z", "b": r"(?a:\b)", "B": r"(?a:\B)"}
            if nxt in simple:
                frame.cur.append(_Node("assert", simple[nxt]))
                return i + 2
            if nxt == "C":
                raise _syntax_error(_INVALID_ESCAPE, s[i : i + 2])
            if nxt == "Q":
                end = s.find(r"\E", i + 2)
                lit = s[i + 2 :] if end < 0 else s[i + 2 : end]
                for ch in lit:
                    frame.cur.append(self._literal(ord(ch)))
                return n if end < 0 else end + 2
        got = self._unicode_class(i) or self._perl_class(i)
        if got is not None:
            ranges, j = got
            frame.cur.append(_Node("atom", _py_class(ranges)))
            return j
        cp, j = self._escape(i)
        frame.cur.append(self._literal(cp))
        return j

    def _perl_class(self, i: int) -> tuple[Ranges, int] | None:
        s = self.src
        if i + 1 >= len(s) or s[i] != "\\" or s[i + 1].lower() not in _PERL_CLASSES:
            return None
        letter = s[i + 1]
        _, ranges = _PERL_CLASSES[letter.lower()]
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
                raise _syntax_error(_INVALID_CHAR_RANGE, s[i:])
            seq, name, j = s[i : end + 1], s[i + 3 : end], end + 1
        if name.startswith("^"):
            negated = not negated
            name = name[1:]
        if name == "Any":
            ranges: Ranges = [(0, MAX_RUNE)]
        elif name in _category_table() and (len(name) == 1 or name in _GO_TWO_LETTER):
            ranges = _category_table()[name]
        elif name in _SCRIPTS:
            raise RegexSyntaxError(
                f"error parsing regexp: Unicode script class `{seq}` is not supported by kubefit"
            )
        else:
            raise _syntax_error(_INVALID_CHAR_RANGE, seq)
        return self._group(ranges, negated), j

    def _escape(self, i: int) -> tuple[int, int]:
        """One escaped character at s[i] == '\\': (code point, index after)."""
        s, n = self.src, len(self.src)
        j = i + 1
        if j >= n:
            raise _syntax_error(_TRAILING_BACKSLASH, "")
        c = s[j]
        j += 1
        if c in "1234567" and (j >= n or not ("0" <= s[j] <= "7")):
            raise _syntax_error(_INVALID_ESCAPE, s[i:j])
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
        raise _syntax_error(_INVALID_ESCAPE, s[i:j])

    def _hex_escape(self, i: int, j: int) -> tuple[int, int]:
        s, n = self.src, len(self.src)
        if j >= n:
            raise _syntax_error(_INVALID_ESCAPE, s[i:j])
        c = s[j]
        j += 1
        if c == "{":
            value, digits = 0, 0
            while True:
                if j >= n:
                    raise _syntax_error(_INVALID_ESCAPE, s[i:j])
                c = s[j]
                j += 1
                if c == "}":
                    break
                v = _unhex(c)
                if v < 0:
                    raise _syntax_error(_INVALID_ESCAPE, s[i:j])
                value = value * 16 + v
                if value > MAX_RUNE:
                    raise _syntax_error(_INVALID_ESCAPE, s[i:j])
                digits += 1
            if digits == 0:
                raise _syntax_error(_INVALID_ESCAPE, s[i:j])
            return value, j
        x = _unhex(c)
        y = -1
        if j < n:
            y = _unhex(s[j])
            j += 1
        if x < 0 or y < 0:
            raise _syntax_error(_INVALID_ESCAPE, s[i:j])
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
                    raise _syntax_error(_INVALID_CHAR_RANGE, s[start:j])
            ranges += self._group([(lo, hi)], False)
        ranges = _normalize(ranges)
        return (_negate(ranges) if negated else ranges), j + 1

    def _class_char(self, j: int, whole: str) -> tuple[int, int]:
        s = self.src
        if j >= len(s):
            raise _syntax_error(_MISSING_BRACKET, whole)
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
        ranges = _POSIX_CLASSES.get(inner[1:] if negated else inner)
        if ranges is None:
            raise _syntax_error(_INVALID_CHAR_RANGE, name)
        return self._group(ranges, negated), end + 2


_GO_TWO_LETTER = frozenset(m for minors in _GO_CATEGORIES.values() for m in minors)


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


# --- costs -----------------------------------------------------------------------
#
# Each overload's `cost` is what cel-go (or the Kubernetes estimator) charges for the
# call itself: for these functions that replaces the unit charge of a plain call.


def traversal(n: int, factor: float = STRING_TRAVERSAL_COST) -> int:
    """cel-go's `ceil(size * factor)`, with the same float arithmetic."""
    return math.ceil(float(n) * factor)


def regex_cost(text_len: int, regex_len: int) -> int:
    """The cost of running a regex of a given length over a text of a given length."""
    return traversal(1 + text_len) * traversal(regex_len, REGEX_LENGTH_COST)


def _len_arg(args: Sequence[Any], i: int) -> int:
    value = args[i] if i < len(args) else ""
    return len(value) if isinstance(value, (str, bytes, list, dict)) else 1


def _contains_cost(args: Sequence[Any]) -> int:
    return traversal(_len_arg(args, 0)) * traversal(_len_arg(args, 1))


def _prefix_cost(args: Sequence[Any]) -> int:
    return traversal(_len_arg(args, 0))


def _matches_cost(args: Sequence[Any]) -> int:
    return regex_cost(_len_arg(args, 0), _len_arg(args, 1))


def _size_at(sizes: Sequence[int], i: int) -> int:
    return sizes[i] if i < len(sizes) else 0


# --- declarations ----------------------------------------------------------------


def _size(s: str) -> int:
    return len(s)


library.function(
    "size", params=(t.STRING,), result=t.INT, id="size_string", cost=lambda a: 1, estimate=lambda s: 1
)(_size)
library.function(
    "size",
    member=True,
    params=(t.STRING,),
    result=t.INT,
    id="string_size",
    cost=lambda a: 1,
    estimate=lambda s: 1,
)(_size)


@library.function(
    "contains",
    member=True,
    params=(t.STRING, t.STRING),
    result=t.BOOL,
    id="contains_string",
    cost=_contains_cost,
    estimate=lambda s: traversal(_size_at(s, 0)) * traversal(_size_at(s, 1)),
)
def contains(s: str, sub: str) -> bool:
    return sub in s


@library.function(
    "startsWith",
    member=True,
    params=(t.STRING, t.STRING),
    result=t.BOOL,
    id="starts_with_string",
    cost=_prefix_cost,
    estimate=lambda s: traversal(_size_at(s, 0)),
)
def starts_with(s: str, prefix: str) -> bool:
    return s.startswith(prefix)


@library.function(
    "endsWith",
    member=True,
    params=(t.STRING, t.STRING),
    result=t.BOOL,
    id="ends_with_string",
    cost=_prefix_cost,
    estimate=lambda s: traversal(_size_at(s, 0)),
)
def ends_with(s: str, suffix: str) -> bool:
    return s.endswith(suffix)


def _matches(s: str, pattern: str) -> bool:
    # cel-go returns Go's parse error text unchanged.
    return compile_re2(pattern).search(s) is not None


def _matches_estimate(sizes: Sequence[int]) -> int:
    return regex_cost(_size_at(sizes, 0), _size_at(sizes, 1))


library.function(
    "matches",
    params=(t.STRING, t.STRING),
    result=t.BOOL,
    id="matches",
    cost=_matches_cost,
    estimate=_matches_estimate,
)(_matches)
library.function(
    "matches",
    member=True,
    params=(t.STRING, t.STRING),
    result=t.BOOL,
    id="matches_string",
    cost=_matches_cost,
    estimate=_matches_estimate,
)(_matches)
