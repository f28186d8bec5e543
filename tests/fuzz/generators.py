"""Targeted generators: hostile inputs of one class each, written where they matter.

The mutators change any place of a fixture at random; a targeted generator knows a class of bad input
and the fields it bites (negative quantities in a running pod, integers past their Go type in a pod's
priority). Each is a module `gen_<class>.py` of this package with

    def generate(chooser: Chooser, workspace: Workspace) -> str | None

that changes the workspace's objects in place and says what it did (None: nothing applied to this
seed). They are found by name, so adding one touches no other file; `mutate_tree` gives one of them,
picked by the chooser, a turn in place of a random mutation about one time in eight.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from .choices import Chooser, pick

if TYPE_CHECKING:
    from .mutators import Workspace

Generator = Callable[[Chooser, "Workspace"], "str | None"]


@functools.cache
def _modules() -> tuple[ModuleType, ...]:
    names = sorted(
        m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name.startswith("gen_")
    )
    return tuple(importlib.import_module(f"{__package__}.{name}") for name in names)


def generators() -> list[Generator]:
    """Every targeted generator, in a fixed order (the same choices draw the same input)."""
    return [module.generate for module in _modules()]


def targeted(chooser: Chooser, workspace: Workspace) -> str | None:
    """One generator's change to the workspace, and what it did (None if it found nothing to change)."""
    found = generators()
    return pick(chooser, found)(chooser, workspace) if found else None
