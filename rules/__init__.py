"""The declarative allocation rules, one ASP program per concern (package data)."""

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
