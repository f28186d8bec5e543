"""One fuzz input: a verb, its arguments and the files they name; drawn from a seed, or read back from
the corpus.

A corpus entry is a directory: `run.yaml` (verb, arguments, the seed it came from, the mutations, what
it once found, `open` while the bug is not fixed, and the special files to make) and `files/` (the
objects under `files/objects/`, checkpoints beside them), so an entry can be replayed by hand: `kubefit
VERB -f files/objects ARGS` with `@x` read as `files/x` (after making the special files run.yaml names:
a FIFO, or a symlink to a device).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from . import special_files
from .arguments import applies, arguments
from .choices import Chooser, chance, pick
from .mutators import Workspace, mutate
from .seeds import Seed

CORPUS = Path(__file__).resolve().parent / "corpus"
_TEMPLATE = "template/a100-node.yaml"


@dataclass
class FuzzInput:
    verb: str
    args: list[str]
    files: dict[str, str]
    seed: str = ""
    mutations: list[str] = field(default_factory=list)
    found: str = ""
    open: str = ""  # a bug not fixed yet: where it is and to whom it was reported
    specials: dict[str, str] = field(default_factory=dict)  # path -> kind (see special_files)

    def argv(self, directory: Path) -> list[str]:
        def resolve(arg: str) -> str:
            return str(directory / arg[1:]) if arg.startswith("@") else arg

        return [self.verb, "-f", str(directory / "objects"), *(resolve(a) for a in self.args)]

    def write(self, directory: Path) -> None:
        for name, text in self.files.items():
            path = directory / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8", "surrogateescape"))
        (directory / "objects").mkdir(exist_ok=True)
        special_files.make(directory, self.specials)

    def save(self, entry: Path) -> None:
        entry.mkdir(parents=True, exist_ok=True)
        files = FuzzInput(self.verb, self.args, self.files)  # the special files are made when replayed
        record = {
            "verb": self.verb,
            "args": self.args,
            "seed": self.seed,
            "found": self.found,
            "mutations": self.mutations,
        }
        if self.open:
            record["open"] = self.open
        if self.specials:
            record["specials"] = self.specials
        (entry / "run.yaml").write_text(
            yaml.safe_dump(record, sort_keys=False, allow_unicode=True, width=110)
        )
        files.write(entry / "files")

    @classmethod
    def load(cls, entry: Path) -> FuzzInput:
        record: dict[str, Any] = yaml.safe_load((entry / "run.yaml").read_text(encoding="utf-8"))
        root = entry / "files"
        files = {
            str(p.relative_to(root)): p.read_bytes().decode("utf-8", "surrogateescape")
            for p in sorted(root.rglob("*"))
            if p.is_file()
        }
        return cls(
            record["verb"],
            list(record.get("args") or ()),
            files,
            record.get("seed", ""),
            list(record.get("mutations") or ()),
            record.get("found", ""),
            record.get("open", ""),
            dict(record.get("specials") or {}),
        )


def corpus_entries(root: Path = CORPUS) -> list[Path]:
    return sorted(p.parent for p in root.glob("*/run.yaml"))


def _template(seeds: Sequence[Seed]) -> list[Any]:
    for seed in seeds:
        if seed.name == "examples/templates":
            return [copy.deepcopy(d) for f in seed.files for d in f.docs]
    return []


def draw(chooser: Chooser, verb: str, seeds: Sequence[Seed]) -> FuzzInput:
    """A mutated seed and a command line for `verb` about it."""
    candidates = [s for s in seeds if applies(verb, s)]
    # Pick a source first, then a seed in it: the hundreds of ported unit-test cases do not drown the
    # examples and the realworld corpus.
    groups = sorted({s.name.split("/")[0] for s in candidates})
    group = pick(chooser, groups)
    seed = pick(chooser, [s for s in candidates if s.name.split("/")[0] == group])
    args = arguments(chooser, verb, seed)
    workspace = Workspace.of(seed)
    if f"@{_TEMPLATE}" in args:
        workspace.files[_TEMPLATE] = _template(seeds)
    files = mutate(chooser, workspace, seeds)
    specials: dict[str, str] = {}
    if chance(chooser, 5):
        specials, more = special_files.draw(chooser, verb)
        args += more
        workspace.log.append(f"special files {specials}")
    return FuzzInput(verb, args, files, seed.name, workspace.log, specials=specials)


# The rarer generators, each of which `draw_focused` applies for certain (the suite runs every one).
FOCUSES = ("names", "many", "special", "times")


def draw_focused(chooser: Chooser, verb: str, seeds: Sequence[Seed], focus: str) -> FuzzInput:
    """An input for `verb` where the generator `focus` certainly applies: a name with control
    characters everywhere it is used (`names`), many items (`many_items`), special files
    (`special_files`), or a hostile time or duration in a field that holds one (`times`)."""
    from . import many_items, names, times
    from .mutators import _places, render

    seed = pick(chooser, [s for s in seeds if applies(verb, s)])
    args = arguments(chooser, verb, seed)
    workspace = Workspace.of(seed)
    specials: dict[str, str] = {}
    what = ""
    if focus == "names":
        what = names.rename_everywhere(chooser, workspace.files)
    elif focus == "many":
        what = many_items.multiply(chooser, workspace.files)
    elif focus == "special":
        specials, more = special_files.draw(chooser, verb)
        args += more
        what = f"special files {specials}"
    else:
        places = [
            (c, k, label)
            for _, tree in workspace.trees()
            for c, k, label in _places(tree)
            if "time" in label.lower() or "seconds" in label.lower()
        ]
        if places:
            container, key, label = pick(chooser, places)
            container[key] = pick(chooser, times.TIMES if "time" in label.lower() else times.DURATIONS)
            what = f"{label} = {container[key]!r}"
    return FuzzInput(verb, args, render(workspace), seed.name, [what] if what else [], specials=specials)
