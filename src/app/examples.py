"""`kubefit examples`: the bundled examples (the `kubefit.examples` package data, the repository's
examples/ directory), each with the first sentence of its row in examples/README.md; and `resolve`, which
turns `example:NAME[/FILE]` into the path of that example wherever kubefit is installed."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..output import table
from .requests import EXIT_OK, Answer

PREFIX = "example:"
SUFFIXES = (".yaml", ".yml", ".json")

# A row of the README's table: | `NAME/` | what it shows |
_ROW = re.compile(r"^\|\s*`(?P<name>[^`/]+)/`\s*\|\s*(?P<text>.+?)\s*\|\s*$")
_SENTENCE_END = re.compile(r"(?<=\.)\s")


@dataclass(frozen=True)
class Example:
    name: str
    path: Path
    summary: str  # the first sentence of its README row
    description: str  # the whole row
    files: tuple[str, ...]  # relative to `path`, in the order -f reads them


@dataclass(frozen=True)
class ExamplesRequest:
    fmt: str  # table, wide, json or yaml


def root() -> Path:
    """Where the examples are: the package's directory (an installed wheel's, or the clone's examples/)."""
    return Path(str(resources.files("kubefit.examples")))


def examples() -> list[Example]:
    """Every example directory with its README row, by name."""
    base = root()
    rows = {}
    for line in (base / "README.md").read_text(encoding="utf-8").splitlines():
        row = _ROW.match(line)
        if row:
            rows[row["name"]] = row["text"].replace("`", "")
    found = []
    for directory in sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        text = rows.get(directory.name, "")
        files = sorted(
            f.relative_to(directory).as_posix()
            for f in directory.rglob("*")
            if f.suffix in SUFFIXES and f.is_file()
        )
        summary = _SENTENCE_END.split(text, maxsplit=1)[0]
        found.append(Example(directory.name, directory, summary, text, tuple(files)))
    return found


def resolve(reference: str) -> str:
    """The path `example:NAME[/FILE]` names (any other path as it is); ValueError, saying what there is,
    for a name or file that is not there."""
    if not reference.startswith(PREFIX):
        return reference
    name, _, rest = reference[len(PREFIX) :].partition("/")
    known = {e.name: e for e in examples()}
    if name not in known:
        raise ValueError(f"unknown example {name!r} in {reference!r}; the examples are: {', '.join(known)}")
    example = known[name]
    if not rest:
        return str(example.path)
    if rest.strip("/") not in example.files:
        raise ValueError(f"example {name!r} has no file {rest!r}; its files are: {', '.join(example.files)}")
    return str(example.path / rest.strip("/"))


def list_examples(request: ExamplesRequest) -> Answer:
    """The examples as a table (wide: with their files), or as a document of name, summary, description,
    files and the -f reference that reads each."""
    found = examples()
    if request.fmt in ("table", "wide"):
        wide = request.fmt == "wide"
        headers = ["NAME", "DESCRIPTION", *(["FILES"] if wide else [])]
        rows = [[e.name, e.summary, *([",".join(e.files)] if wide else [])] for e in found]
        page = table(headers, rows)
        page += "\nRead one with -f example:NAME (a file of it: example:NAME/FILE), e.g.\n"
        page += "  kubefit allocate -f example:gpu-mig\n"
        return Answer(None, "", EXIT_OK, request.fmt, verbatim=page)
    doc = {
        "examples": [
            {
                "name": e.name,
                "reference": f"{PREFIX}{e.name}",
                "summary": e.summary,
                "description": e.description,
                "files": list(e.files),
                "path": str(e.path),
            }
            for e in found
        ]
    }
    return Answer(doc, "", EXIT_OK, request.fmt)
