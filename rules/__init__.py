"""The declarative allocation rules, one ASP program per concern (package data).

`allocation.lp` is the entry program (it only includes the others); `input.lp` documents the input
predicates; `first_fit.lp` adds the optimization that gives the allocation Kubernetes' own search
returns. `kubefit.solver.asp` grounds them on a Problem's facts; `kubefit.solver.explain` relaxes
their named violations to find why something does not fit.

`node/` holds the kubelet's side the same way: `node/admission.lp` is its entry program, and
`node/README.md` says what each of its files reads and defines.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable


def files(folder: str = "") -> list[Traversable]:
    """Every `.lp` program shipped with kubefit (in `folder`, e.g. "node"), by name."""
    root = resources.files(__name__)
    if folder:
        root = root.joinpath(folder)
    return sorted((f for f in root.iterdir() if f.name.endswith(".lp")), key=lambda f: f.name)


def read(name: str) -> str:
    """The text of one rules file, e.g. `read("input.lp")` or `read("node/input.lp")`."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
