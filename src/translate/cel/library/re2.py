"""RE2 patterns, compiled and matched by RE2 itself (the google-re2 bindings).

cel-go runs `matches` (and the Kubernetes `find` / `findAll`) with Go's `regexp`,
an implementation of RE2: the RE2 syntax, leftmost-first matching, time linear in
the text. kubefit hands patterns as written to C++ RE2 with the options that make
it read them as Go does (Perl classes and flags, Unicode groups, one-line `^` and
`$`, `[^a]` matching a newline), so syntax, semantics and running time are RE2's.
`re2_go` rewords RE2's parse errors as Go's and adds what only Go refuses.

Texts are matched as UTF-8 bytes, as Go matches strings (so `findAll` steps over
an empty match by one character, as Go does). A lone surrogate, which no Go string
holds (Go's decoders turn it into U+FFFD), is read as U+FFFD.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from re2 import _re2  # type: ignore[import-untyped]

from ....model.errors import CelRuntimeError
from ..budget import spend, spend_once
from .re2_go import TOO_LARGE, reword, scan


class RegexSyntaxError(CelRuntimeError):
    """A pattern Go's regexp parser rejects; the message is Go's."""


# Go compiles a character class to one instruction, RE2 to a UTF-8 byte automaton that can be a
# thousand times larger: the default budget (8 MiB) refuses `\pL{1000}` and `[\pL\pN]{1000}`, which
# Go compiles. Past this one RE2 gives up (quickly) with Go's "expression too large".
_MAX_MEM = 32 << 20
# Work (see `budget`) of a compilation RE2 gave up on, in instructions: about the time it took.
_GIVE_UP_WORK = _MAX_MEM // 64
# RE2 instruction steps per byte that make one unit of work: running a program over a text takes
# at most time in proportion to their product (when its DFA gives up).
_STEPS_PER_UNIT = 4096
_UNANCHORED = _re2.RE2.Anchor.UNANCHORED
_NO_MATCH = -1


def _options() -> Any:
    options = _re2.RE2.Options()
    options.log_errors = False
    options.max_mem = _MAX_MEM
    # No caller reads submatches; without them RE2 answers from its DFA.
    options.never_capture = True
    return options


_OPTIONS = _options()


def go_text(text: str) -> str:
    """The text as a Go string holds it: lone surrogates become U+FFFD."""
    if text.isascii():
        return text
    return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)


def _utf8(text: str) -> bytes:
    return go_text(text).encode()


def _rune_width(data: bytes, pos: int) -> int:
    """The length of the UTF-8 sequence starting at data[pos] (data is valid UTF-8)."""
    lead = data[pos]
    return 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


class Pattern:
    """A compiled pattern, answering as Go's `regexp.Regexp` does."""

    __slots__ = ("_regex", "size")

    def __init__(self, regex: Any) -> None:
        self._regex = regex
        self.size: int = regex.ProgramSize()

    def _span(self, data: bytes, pos: int) -> tuple[int, int]:
        work = (len(data) - pos) * self.size // _STEPS_PER_UNIT
        if work:
            spend(work)
        start, end = self._regex.Match(_UNANCHORED, data, pos, len(data))[0]
        return start, end

    def search(self, text: str) -> bool:
        """`MatchString`: does the pattern match anywhere in the text?"""
        return self._span(_utf8(text), 0)[0] != _NO_MATCH

    def find(self, text: str) -> str:
        """`FindString`: the leftmost match, "" if none."""
        data = _utf8(text)
        start, end = self._span(data, 0)
        return "" if start == _NO_MATCH else data[start:end].decode()

    def find_all(self, text: str, limit: int) -> list[str]:
        """`FindAllString`: successive non-overlapping matches, at most `limit` if it is >= 0.

        An empty match right where the previous match ended is skipped, and the search
        then moves on by one character (Python's `findall` keeps such a match).
        """
        data = _utf8(text)
        size = len(data)
        if limit < 0:
            limit = size + 1
        out: list[str] = []
        pos, previous_end = 0, -1
        while len(out) < limit and pos <= size:
            start, end = self._span(data, pos)
            if start == _NO_MATCH:
                break
            accept = True
            if end == pos:
                accept = start != previous_end
                pos = pos + _rune_width(data, pos) if pos < size else size + 1
            else:
                pos = end
            previous_end = end
            if accept:
                out.append(data[start:end].decode())
        return out


def _compiled(pattern: str) -> Any:
    return _re2.RE2(pattern.encode(), _OPTIONS)


def _refusal_comes_first(pattern: str, position: int) -> bool:
    """Go refuses something at `position` that RE2 accepts: is that Go's first error?

    Both parsers read left to right, so RE2 finding no error before `position` (or only
    the unclosed groups that cutting the pattern there leaves) means Go stops there.
    """
    prefix = _compiled(pattern[:position])
    return bool(prefix.ok()) or prefix.error().decode(errors="replace").startswith("missing )")


class _Compiled(NamedTuple):
    result: Pattern | RegexSyntaxError
    work: int


@functools.lru_cache(maxsize=128)
def _compile(pattern: str) -> _Compiled:
    pattern = go_text(pattern)
    found = scan(pattern)
    if found.refusal is not None and _refusal_comes_first(pattern, found.refusal[0]):
        return _Compiled(RegexSyntaxError(found.refusal[1]), len(pattern))
    regex = _compiled(pattern)
    if regex.ok():
        compiled = Pattern(regex)
        return _Compiled(compiled, compiled.size)
    error = regex.error().decode(errors="replace")
    work = _GIVE_UP_WORK if error == TOO_LARGE else len(pattern)
    return _Compiled(RegexSyntaxError(reword(error, pattern, found.lookbehind)), work)


def compile_re2(pattern: str) -> Pattern:
    """Compile an RE2 pattern (cached). Raises `RegexSyntaxError` with Go's message."""
    result, work = _compile(pattern)
    spend_once(pattern, work)
    if isinstance(result, RegexSyntaxError):
        raise RegexSyntaxError(str(result))
    return result
