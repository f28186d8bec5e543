"""Linux CPU list syntax ("0-3,7,9-10"), read as the kubelet's cpuset.Parse reads it and written as
cpuset.CPUSet.String writes it.

Go builds the set element by element, so "0-999999999" takes it minutes and gigabytes before the
kubelet finds that no such CPUs are online. Here a list is first read as ranges, and a range reaching
past the largest CPU id Linux supports is refused before anything is built.
"""

from __future__ import annotations

from collections.abc import Iterable

from .go_strings import go_quote

# Linux's NR_CPUS ceiling (x86-64 and powerpc with MAXSMP): no machine has a CPU id at or above it.
MAX_CPUS = 8192

_INT64_MAX = 2**63 - 1
_DIGITS = frozenset("0123456789")

CPURanges = tuple[tuple[int, int], ...]


class CPUListError(ValueError):
    """A CPU list the kubelet cannot parse (the message is Go's), or one naming impossible CPU ids."""


def go_atoi(text: str) -> int:
    """strconv.Atoi: an optional sign and decimal digits, within int64; Go's error text otherwise."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not set(body) <= _DIGITS:
        raise CPUListError(f"strconv.Atoi: parsing {go_quote(text)}: invalid syntax")
    digits = body.lstrip("0")
    value = int(digits or "0") if len(digits) <= 19 else _INT64_MAX + 1
    value = -value if text[0] == "-" else value
    if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
        raise CPUListError(f"strconv.Atoi: parsing {go_quote(text)}: value out of range")
    return value


def parse_ranges(text: str) -> CPURanges:
    """The ranges of a CPU list, in the order written, with cpuset.Parse's errors (no trimming: the
    kubelet refuses " 1")."""
    if text == "":
        return ()
    out: list[tuple[int, int]] = []
    for part in text.split(","):
        lo, sep, hi = part.partition("-")
        start = go_atoi(lo)
        end = go_atoi(hi) if sep else start
        if start > end:
            raise CPUListError(f"invalid range {go_quote(part)} ({start} > {end})")
        out.append((start, end))
    return tuple(out)


def bounded(ranges: CPURanges, text: str) -> CPURanges:
    """The ranges, if every id in them is a possible CPU id."""
    for start, end in ranges:
        if start < 0 or end >= MAX_CPUS:
            worst = end if end >= MAX_CPUS else start
            raise CPUListError(
                f"{go_quote(text)}: CPU {worst} is beyond the largest CPU id Linux supports ({MAX_CPUS - 1})"
            )
    return ranges


def within(ranges: CPURanges, cpus: frozenset[int]) -> bool:
    """Every CPU of the ranges is in `cpus` (without building the ranges' set)."""
    top = max(cpus, default=-1)
    for start, end in ranges:
        if start < 0 or end > top or any(c not in cpus for c in range(start, end + 1)):
            return False
    return True


def parse_cpuset(text: str) -> frozenset[int]:
    """`"0-3,7"` -> {0, 1, 2, 3, 7}; raises CPUListError with the kubelet's message, or when an id is
    beyond what any machine has."""
    out: set[int] = set()
    for start, end in bounded(parse_ranges(text), text):
        out.update(range(start, end + 1))
    return frozenset(out)


def format_cpuset(cpus: Iterable[int]) -> str:
    """{0, 1, 2, 3, 7} -> `"0-3,7"` (ranges of two or more, as cpuset.CPUSet.String does)."""
    ordered = sorted(set(cpus))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(parts)
