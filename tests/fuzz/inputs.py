"""One fuzz input: a verb, its arguments and the files they name; drawn from a seed, or read back from
the corpus.

A corpus entry is a directory: `run.yaml` (verb, arguments, the seed it came from, the mutations, what
it once found, and `open` while the bug is not fixed) and `files/` (the objects under `files/objects/`, checkpoints beside them), so an
entry can be replayed by hand: `kubefit VERB -f files/objects ARGS` with `@x` read as `files/x`.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .arguments import applies, arguments
from .choices import Chooser, pick
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

    def save(self, entry: Path) -> None:
        entry.mkdir(parents=True, exist_ok=True)
        record = {
            "verb": self.verb,
            "args": self.args,
            "seed": self.seed,
            "found": self.found,
            "mutations": self.mutations,
        }
        if self.open:
            record["open"] = self.open
        (entry / "run.yaml").write_text(
            yaml.safe_dump(record, sort_keys=False, allow_unicode=True, width=110)
        )
        self.write(entry / "files")

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
    return FuzzInput(verb, args, files, seed.name, workspace.log)
