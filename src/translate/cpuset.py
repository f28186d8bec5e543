"""Linux CPU list syntax ("0-3,7,9-10"), as the kubelet reads and writes CPU sets."""

from __future__ import annotations

from collections.abc import Iterable


def parse_cpuset(text: str) -> frozenset[int]:
    """`"0-3,7"` -> {0, 1, 2, 3, 7}; raises ValueError with the kubelet's kind of message."""
    out: set[int] = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            raise ValueError(f'invalid CPU set "{text}": bad range "{part}"')
        start, end = int(lo), int(hi) if sep else int(lo)
        if end < start:
            raise ValueError(f'invalid CPU set "{text}": range "{part}" goes backwards')
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
