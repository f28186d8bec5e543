"""The same message on many things, shown once: a CEL key typo in a DeviceClass fails on every device
it is evaluated on, a misspelt field on every object that has it. Terminal lines (stderr) group them
into one line per distinct message, with how many things it concerns and the first few of them; a
message that occurs once is shown exactly as it is. Documents (-o json|yaml) keep every entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import Problem, format_path
from .terminal import escape

SHOWN = 3  # names listed before "… and N more"


@dataclass(frozen=True)
class Repeated:
    """One occurrence of a message that may occur on many things: `alone` is the line shown when it is
    the only one; `text` the message all occurrences share (upstream's words); `subject` what this one
    is on (a device, an object); `noun` the plural of what subjects are ("devices")."""

    alone: str
    text: str
    subject: str
    noun: str


def counted(noun: str, names: Sequence[str], count: int | None = None) -> str:
    """`(on 60 devices: a, b, c, … and 57 more)`: how many (`count`, else as many as names), and the
    first few names."""
    shown = ", ".join(names[:SHOWN])
    if len(names) > SHOWN:
        shown += f", … and {len(names) - SHOWN} more"
    return f"(on {len(names) if count is None else count} {noun}: {shown})"


def lines(entries: Iterable[str | Repeated]) -> list[str]:
    """One line per distinct message, in the order they first occur; a line that is only a string
    repeats as itself (`… (3 times)`)."""
    groups: dict[str, list[str | Repeated]] = {}
    for entry in entries:
        groups.setdefault(entry if isinstance(entry, str) else entry.text, []).append(entry)
    out = []
    for text, members in groups.items():
        first = members[0]
        if len(members) == 1:
            out.append(first if isinstance(first, str) else first.alone)
        elif isinstance(first, str):
            out.append(f"{text} ({len(members)} times)")
        else:
            subjects = _distinct(m.subject if isinstance(m, Repeated) else "" for m in members)
            out.append(f"{text} {counted(first.noun, subjects, len(members))}")
    return out


def problem_lines(problems: Iterable[Problem]) -> list[str]:
    """The problems' lines (as `str(problem)`), those with the same message (and severity) on several
    objects or fields as one: the first one's line, then how many and where the others are."""
    groups: dict[tuple[bool, str], list[Problem]] = {}
    for p in problems:
        groups.setdefault((p.warning, p.message), []).append(p)
    return [
        str(members[0]) if len(members) == 1 else str(members[0]) + escape(" " + _where(members))
        for members in groups.values()
    ]


def _where(members: Sequence[Problem]) -> str:
    """Where a problem occurs: on which objects (and how many fields, when it is on several fields of
    several objects), else on which fields of the one object, else on which lines."""
    objects = _distinct(p.obj for p in members)
    paths = _distinct(_path(p) for p in members)
    if len(objects) > 1:
        noun = "objects" if len(paths) == 1 else f"fields of {len(objects)} objects"
        return counted(noun, objects, len(members))
    if len(paths) > 1:
        return counted("fields", paths, len(members))
    places = _distinct(f"{p.file}:{p.line}" if p.line else p.file for p in members)
    return counted("lines", places, len(members)) if len(places) > 1 else f"({len(members)} times)"


def _distinct(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(names))


def _path(p: Problem) -> str:
    return p.path_text or format_path(p.path)
