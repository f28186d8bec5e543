"""The valid fixtures the fuzzer starts from, each with the question its source asks.

A seed is a set of files of Kubernetes objects (parsed YAML) plus what the verbs need to ask about
them: the node (a scenario's node, else the first NodeTopology's, else the first Node's), the pod and
claims a scenario names, the feature gates it turns off, and the kubelet checkpoint files it gives.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"

# Directories whose every subdirectory holding `mark` is one seed (all its YAML files but `mark`'s
# companions), and directories whose every YAML file is a seed of its own.
_CASE_ROOTS = (SHARED / "scenarios", REPO / "tests" / "scenarios")
_REALWORLD = SHARED / "realworld"
_EXAMPLES = REPO / "examples"
_DATA = REPO / "tests" / "data"
# Not Kubernetes objects: CEL conformance tables, cadvisor machine info.
_NOT_OBJECTS = ("cel_conformance.yaml",)


@dataclass(frozen=True)
class SeedFile:
    name: str
    docs: tuple[Any, ...]


@dataclass(frozen=True)
class Seed:
    name: str
    files: tuple[SeedFile, ...]
    node: str | None = None
    pod: str | None = None
    claims: tuple[str, ...] = ()
    gates: str = ""
    states: dict[str, Any] = field(default_factory=dict)  # "cpu" / "memory": checkpoint content

    def docs(self) -> list[dict[str, Any]]:
        return [d for f in self.files for d in f.docs if isinstance(d, dict)]

    def kinds(self) -> set[str]:
        return {str(d.get("kind")) for d in self.docs()}


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Timestamps stay strings, as Kubernetes reads them (and as they are written back)."""


_Loader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str)
_LOADER = _Loader


def _read(path: Path) -> tuple[Any, ...]:
    return tuple(d for d in yaml.load_all(path.read_text(encoding="utf-8"), Loader=_LOADER) if d is not None)


def _first_name(docs: list[dict[str, Any]], kind: str) -> str | None:
    for d in docs:
        if d.get("kind") == kind:
            name = (d.get("metadata") or {}).get("name")
            return str(name) if name else None
    return None


def _make(name: str, files: list[SeedFile], case: dict[str, Any] | None = None) -> Seed:
    case = case or {}
    docs = [d for f in files for d in f.docs if isinstance(d, dict)]
    node = case.get("node") or _first_name(docs, "NodeTopology") or _first_name(docs, "Node")
    gates = ",".join(f"{k}={str(v).lower()}" for k, v in sorted((case.get("featureGates") or {}).items()))
    states = {
        key: case[source]
        for key, source in (("cpu", "cpuManagerState"), ("memory", "memoryManagerState"))
        if case.get(source)
    }
    return Seed(
        name=name,
        files=tuple(files),
        node=str(node) if node else None,
        pod=case.get("pod"),
        claims=tuple(case.get("claims") or ()),
        gates=gates,
        states=states,
    )


def _cases(root: Path) -> list[Seed]:
    seeds = []
    for case_file in sorted(root.rglob("case.yaml")):
        directory = case_file.parent
        case = yaml.load(case_file.read_text(encoding="utf-8"), Loader=_LOADER) or {}
        files = [SeedFile("objects.yaml", _read(directory / "objects.yaml"))]
        seeds.append(_make(f"{root.parent.name}/{directory.relative_to(root.parent)}", files, case))
    return seeds


def _realworld(root: Path) -> list[Seed]:
    seeds = []
    for expect in sorted(root.rglob("expect.yaml")):
        directory = expect.parent
        gates = (yaml.safe_load(expect.read_text(encoding="utf-8")).get("setup") or {}).get("featureGates")
        files = [
            SeedFile(p.name, _read(p)) for p in sorted(directory.glob("*.yaml")) if p.name != "expect.yaml"
        ]
        off = {k: v for k, v in (gates or {}).items() if v is False}
        seeds.append(_make(f"realworld/{directory.relative_to(root)}", files, {"featureGates": off}))
    return seeds


def _examples(root: Path) -> list[Seed]:
    seeds = []
    for directory in sorted(p for p in root.iterdir() if p.is_dir()):
        files = [SeedFile(p.name, _read(p)) for p in sorted(directory.glob("*.yaml"))]
        seeds.append(_make(f"examples/{directory.name}", files))
    return seeds


def _data(root: Path) -> list[Seed]:
    return [
        _make(f"data/{path.relative_to(root)}", [SeedFile(path.name, _read(path))])
        for path in sorted(root.rglob("*.yaml"))
        if path.name not in _NOT_OBJECTS
    ]


@functools.cache
def all_seeds() -> tuple[Seed, ...]:
    """Every fixture there is; the shared corpus only when it is checked out beside the repository."""
    seeds = _examples(_EXAMPLES) + _data(_DATA)
    for root in _CASE_ROOTS:
        if root.is_dir():
            seeds += _cases(root)
    if _REALWORLD.is_dir():
        seeds += _realworld(_REALWORLD)
    return tuple(s for s in seeds if s.docs())
