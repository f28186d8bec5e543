"""Which files a `-f` path names, in the order they are read: the file itself, or a directory's
.yaml, .yml and .json files, directories and files each in sorted order (as `kubectl apply -f DIR
--recursive` takes them). Kept apart from the loader so that a child reading the same files
(`json_child`) finds them without importing what the loader does."""

from __future__ import annotations

import os
from collections.abc import Callable

SUFFIXES = (".yaml", ".yml", ".json")


def files_of(path: str) -> list[str]:
    """The files under `path` ([path] when it is not a directory; [] for a directory without any)."""
    if not os.path.isdir(path):
        return [path]
    found = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        found += [os.path.join(root, name) for name in sorted(files) if name.endswith(SUFFIXES)]
    return found


def rereader(path: str) -> Callable[[], str]:
    """Reads the file's text again (see SourceText)."""

    def read() -> str:
        with open(path, encoding="utf-8") as f:
            return f.read()

    return read
