"""Special files where kubefit reads files: FIFOs and devices met while walking a directory are
skipped with a warning; devices named on the command line (-f, state files, a node template) are
read until what they give cannot be text, and never past --max-input-bytes.

An input names its special files by path and kind (`FuzzInput.specials`): `fifo` (a FIFO nobody writes
to), `zero`, `urandom` and `null` (symlinks to those devices). A FIFO is only ever put in the objects'
directory: named on the command line it is read as stdin is, until its writer closes it, and a FIFO
nobody writes to would wait as `cat` waits.
"""

from __future__ import annotations

import os
from pathlib import Path

from .choices import Chooser, chance, pick

DEVICES = {"zero": "/dev/zero", "urandom": "/dev/urandom", "null": "/dev/null"}
KINDS = ("fifo", *DEVICES)


def make(directory: Path, specials: dict[str, str]) -> None:
    """Create the special files under `directory`."""
    for name, kind in specials.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to(DEVICES[kind])


def draw(chooser: Chooser, verb: str) -> tuple[dict[str, str], list[str]]:
    """Special files for an input, and the arguments that name some of them."""
    specials: dict[str, str] = {}
    args: list[str] = []
    for _ in range(chooser.integer(1, 2)):
        kind = pick(chooser, KINDS)
        specials[f"objects/{kind}-{len(specials)}.yaml"] = kind
    if chance(chooser, 60):
        device = pick(chooser, sorted(DEVICES))
        specials[f"special/{device}"] = device
        flags = ["-f"]
        if verb in ("admit", "explain"):
            flags += ["--cpu-manager-state", "--memory-manager-state"]
        if verb == "plan":
            flags.append("--node-template")
        args += [pick(chooser, flags), f"@special/{device}"]
    return specials, args
