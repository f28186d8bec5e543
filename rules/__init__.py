"""The declarative allocation rules, one ASP program per concern (package data).

`allocation.lp` is the entry program (it only includes the others); `input.lp` documents the input
predicates; `first_fit.lp` adds the optimization that gives the allocation Kubernetes' own search
returns. `kubefit.solver.asp` grounds them on a Problem's facts; `kubefit.solver.explain` relaxes
their named violations to find why something does not fit.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable


def files() -> list[Traversable]:
    """Every `.lp` program shipped with kubefit, by name."""
    root = resources.files(__name__)
    return sorted((f for f in root.iterdir() if f.name.endswith(".lp")), key=lambda f: f.name)


def read(name: str) -> str:
    """The text of one rules file, e.g. `read("input.lp")`."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
