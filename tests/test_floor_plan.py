"""The floor plan stays as CONTRIBUTING.md draws it: model at the bottom (importing nothing of kubefit
outside it), translate and solver beside each other (neither imports the other), app and cli on top
(nothing below imports them); no import cycles among modules; no module over 500 lines.

Every import counts: at module level, inside functions and under TYPE_CHECKING. A package's `__init__`
importing its own submodules is its public face, not a cycle."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
MAX_LINES = 500


def _modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).with_suffix("")
        parts = ["kubefit", *rel.parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _owner(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node)
            names = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for name in names:
            owner = _owner(name) if name.startswith("kubefit") else None
            if owner and owner != module:
                yield owner


EDGES = {m: set(_imports(m, p)) for m, p in MODULES.items()}


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "kubefit"


@pytest.mark.parametrize(
    ("low", "high"),
    [("solver", "translate"), ("translate", "solver"), ("model", "translate"), ("model", "solver")],
)
def test_a_layer_does_not_import_one_beside_or_above_it(low: str, high: str) -> None:
    crossing = sorted(
        f"{a} -> {b}" for a, bs in EDGES.items() for b in bs if _layer(a) == low and _layer(b) == high
    )
    assert crossing == []


def test_model_imports_nothing_of_kubefit_outside_it() -> None:
    outside = sorted(
        f"{a} -> {b}" for a, bs in EDGES.items() for b in bs if _layer(a) == "model" and _layer(b) != "model"
    )
    assert outside == []


def test_nothing_below_the_command_line_imports_it() -> None:
    top = {"cli", "app"}
    upward = sorted(
        f"{a} -> {b}"
        for a, bs in EDGES.items()
        for b in bs
        if _layer(b) in top and _layer(a) not in top | {"kubefit", "__main__"}
    )
    assert upward == []


def _cycles() -> list[list[str]]:
    # A package's __init__ re-exporting its own submodules is its face, not a cycle.
    graph = {
        a: {b for b in bs if not (MODULES[a].name == "__init__.py" and b.startswith(a + "."))}
        for a, bs in EDGES.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_no_import_cycles_among_modules() -> None:
    assert _cycles() == []


def test_no_module_is_over_500_lines() -> None:
    long = sorted(
        f"{m} {n}"
        for m, p in MODULES.items()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    )
    assert long == []
