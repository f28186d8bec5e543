"""Structural mutations of parsed fixtures, and a few of their YAML text.

A `Workspace` holds a seed's files as YAML trees (lists of documents) and its kubelet checkpoints.
Every tree mutation picks one place — a document in a file's list, a key of a mapping, an item of a
list — and replaces, retypes, perturbs, deletes, duplicates, swaps, renames or deeply nests what is
there, or borrows a value from elsewhere in the input, or brings in an object from another seed.
Rarer whole-input mutations give one name control characters wherever it is used (`names`) or make
many items of one file (`many_items`). Text mutations then work on the YAML as written: duplicated and
dropped lines (duplicate keys), truncation, tags, an alias bomb, bytes that are not UTF-8.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from . import many_items, names
from .choices import Chooser, chance, pick
from .generators import targeted
from .seeds import Seed
from .values import WRONG_TYPES, hostile

Place = tuple[Any, Any, str]  # container (dict or list), key or index, the field's name
DEEP = "__fuzz_deep_{}__"


@dataclass
class Workspace:
    files: dict[str, list[Any]]
    states: dict[str, Any]
    log: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, seed: Seed) -> Workspace:
        files = {f"objects/{f.name}": [copy.deepcopy(d) for d in f.docs] for f in seed.files}
        return cls(files, copy.deepcopy(seed.states))

    def trees(self) -> list[tuple[str, Any]]:
        return [*self.files.items(), *((f"state:{k}", v) for k, v in self.states.items())]

    def docs(self) -> list[dict[str, Any]]:
        return [d for docs in self.files.values() for d in docs if isinstance(d, dict)]


def _places(tree: Any, name: str = "") -> Iterator[Place]:
    stack: list[tuple[Any, str]] = [(tree, name)]
    while stack:
        node, label = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                yield node, key, str(key)
                stack.append((value, str(key)))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                yield node, index, label
                stack.append((value, label))


def _scalars(tree: Any) -> list[Any]:
    return [c[k] for c, k, _ in _places(tree) if not isinstance(c[k], dict | list)]


def _perturb(chooser: Chooser, value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return pick(chooser, (value + 1, value - 1, -value, value * 2**32, value + 0.5, str(value), 0))
    if isinstance(value, float):
        return pick(chooser, (-value, value * 1e300, math.floor(value), str(value)))
    if isinstance(value, str):
        return pick(
            chooser,
            (
                value + value,
                value[:-1],
                value.upper(),
                value + "ü",
                (value * 1000)[:100_000],
                "",
                f" {value}",
            ),
        )
    return pick(chooser, WRONG_TYPES)


def _tweak(chooser: Chooser, value: Any, label: str, trees: list[tuple[str, Any]]) -> Any:
    """A value of the same type: a nearby or extreme number, another string of the input (a name that
    refers to something else), the other boolean; a list or mapping loses or repeats an entry."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return pick(chooser, (value + 1, value - 1, 0, value * 2, value * 1000, -value, 2**31, 2**63 - 1))
    if isinstance(value, float):
        return pick(chooser, (value * 2, value / 2, 0.0, -value))
    if isinstance(value, str):
        # Another value of a field of the same name first: a name that refers to another object.
        same = [c[k] for _, t in trees for c, k, n in _places(t) if n == label and isinstance(c[k], str)]
        if len(set(same)) < 2 or chance(chooser, 30):
            same = [s for _, t in trees for s in _scalars(t) if isinstance(s, str)]
        return pick(chooser, same) if same else value
    if isinstance(value, list) and value:
        shorter = list(value)
        del shorter[chooser.integer(0, len(shorter) - 1)]
        return shorter if chance(chooser, 50) else [*value, copy.deepcopy(pick(chooser, value))]
    if isinstance(value, dict) and value:
        fewer = dict(value)
        del fewer[pick(chooser, list(fewer))]
        return fewer
    return value


def _new_key(chooser: Chooser, dictionary: dict[Any, Any], workspace: Workspace) -> Any:
    keys = [k for d in workspace.docs() for c, k, _ in _places(d) if isinstance(c, dict)]
    return pick(chooser, [*keys[:500], "", 1, None, "x" * 300, "ü", "metadata"]) if keys else "x"


# Type-preserving changes (tweak, borrow, swap, duplicate) get past the schema to the solvers; hostile
# values and wrong types test the checks in front of them. Repeats weigh the choice.
_OPERATIONS = (
    *("replace", "replace", "retype", "perturb", "perturb", "tweak", "tweak", "tweak", "tweak"),
    *("delete", "delete", "duplicate", "duplicate", "swap", "swap", "borrow", "borrow", "rename", "deep"),
)


def mutate_tree(chooser: Chooser, workspace: Workspace, donors: Sequence[Seed]) -> None:
    """One mutation at one place of one file (or checkpoint)."""
    if chance(chooser, 12):
        done = targeted(chooser, workspace)  # generators.py: the gen_*.py modules
        if done is not None:
            workspace.log.append(done)
            return
    trees = workspace.trees()
    tree_name, tree = pick(chooser, trees)
    if chance(chooser, 8) and donors and tree_name.startswith("objects/"):
        donor = pick(chooser, donors).docs()
        if donor:
            doc = copy.deepcopy(pick(chooser, donor))
            tree.insert(chooser.integer(0, len(tree)), doc)
            workspace.log.append(f"{tree_name}: brought in {doc.get('kind')} from another seed")
            return
    places = list(_places(tree))
    if not places:
        return
    container, key, label = places[chooser.integer(0, len(places) - 1)]
    operation = pick(chooser, _OPERATIONS)
    where = f"{tree_name}: {operation} {label}[{key!r}]"[:200]
    if operation == "replace":
        container[key] = hostile(chooser, label)
    elif operation == "retype":
        container[key] = copy.deepcopy(pick(chooser, WRONG_TYPES))
    elif operation == "perturb":
        container[key] = _perturb(chooser, container[key])
    elif operation == "tweak":
        container[key] = _tweak(chooser, container[key], label, trees)
    elif operation == "delete":
        del container[key]
    elif operation == "duplicate":
        if isinstance(container, list):
            container.insert(chooser.integer(0, len(container)), copy.deepcopy(container[key]))
        else:
            container[_new_key(chooser, container, workspace)] = copy.deepcopy(container[key])
    elif operation == "swap":
        others = list(range(len(container))) if isinstance(container, list) else list(container)
        other = pick(chooser, others)
        container[key], container[other] = container[other], container[key]
    elif operation == "borrow":
        scalars = [s for _, t in trees for s in _scalars(t)]
        if scalars:
            container[key] = pick(chooser, scalars)
    elif operation == "rename" and isinstance(container, dict):
        container[_new_key(chooser, container, workspace)] = container.pop(key)
    elif operation == "deep":
        container[key] = DEEP.format(pick(chooser, (50, 200, 1000, 5000, 50_000)))
    workspace.log.append(where)


_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_BOMB = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n  annotations:\n"
    '    a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(f"    {chr(98 + i)}: &{chr(98 + i)} [{','.join([f'*{chr(97 + i)}'] * 10)}]\n" for i in range(8))
)
_TAGS = ("!!binary ", "!!python/name:os.system ", "!!set ", "!!timestamp ", "!!float ", "!!str ", "!foo ")


def mutate_text(chooser: Chooser, text: str) -> tuple[str, str]:
    """One mutation of a file's YAML text, and what it did."""
    lines = text.split("\n")
    line = chooser.integer(0, max(len(lines) - 1, 0))
    operation = pick(chooser, ("dup-line", "drop-line", "truncate", "tag", "bomb", "tab", "bad-utf8", "bom"))
    if operation == "dup-line":
        lines.insert(line, lines[line])
    elif operation == "drop-line":
        del lines[line]
    elif operation == "truncate":
        return text[: chooser.integer(0, len(text))], operation
    elif operation == "tag":
        head, sep, tail = lines[line].partition(": ")
        lines[line] = head + sep + pick(chooser, _TAGS) + tail if sep else lines[line]
    elif operation == "bomb":
        lines.insert(0, _BOMB + "---")
    elif operation == "tab":
        lines[line] = "\t" + lines[line]
    elif operation == "bad-utf8":
        lines[line] += "\udcff\udcfe"
    elif operation == "bom":
        lines[line] = "\ufeff" + lines[line]
    return "\n".join(lines), f"{operation} at line {line + 1}"


def _deepen(text: str) -> str:
    marker = DEEP.split("{}")[0]
    while marker in text:
        start = text.index(marker)
        end = text.index("__", start + len(marker))
        depth = int(text[start + len(marker) : end])
        text = text[:start] + "[" * depth + "]" * depth + text[end + 2 :]
    return text


def render(workspace: Workspace) -> dict[str, str]:
    """The workspace as the files a user would write: YAML objects, JSON checkpoints."""
    files = {
        name: _deepen(yaml.dump_all(docs, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, width=1000))
        for name, docs in workspace.files.items()
    }
    for key, state in workspace.states.items():
        files[f"{key}_manager_state"] = _deepen(json.dumps(state))
    return files


def mutate(chooser: Chooser, workspace: Workspace, donors: Sequence[Seed]) -> dict[str, str]:
    """The workspace's files after up to four tree mutations (one most often: an input with many
    faults stops at the first check; none leaves only the arguments strange) and sometimes a text
    mutation; what was done is logged."""
    for _ in range(pick(chooser, (0, 1, 1, 1, 1, 1, 2, 2, 3, 4))):
        mutate_tree(chooser, workspace, donors)
    # Rarer, whole-input mutations: a name given control characters wherever it is used; many items.
    for percent, whole in ((5, names.rename_everywhere), (3, many_items.multiply)):
        if chance(chooser, percent):
            what = whole(chooser, workspace.files)
            if what:
                workspace.log.append(what)
    files = render(workspace)
    if chance(chooser, 10):
        name = pick(chooser, sorted(files))
        files[name], what = mutate_text(chooser, files[name])
        workspace.log.append(f"{name}: {what}")
    return files
