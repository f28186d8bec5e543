"""How long does reading a large cluster dump take, and where does the time go?

The cluster of `cluster.py` (500 nodes: 4,308 objects, 28,000 devices in ResourceSlices) is written
once as YAML (a multi-document stream, as `kubectl get -o yaml` pipelines and manifests give it) and
once as JSON (a `kind: List`, as `kubectl get -o json` gives it), then read through the loader's
two stages:

- parse: text to documents (`yaml_source.read_documents`);
- validate: documents to objects (quantity coercion, the client's pydantic models, duplicates);

and as a whole with `load([directory])`, as the CLI runs it. The `before` row of each format is the
reader kubefit used before its fast paths (PyYAML's composer and constructor building line-aware
containers, kept as the reference the fast readers are tested against), validated as before: with
the garbage collector running, where `load` now pauses it.

    python benchmarks/load.py [--nodes 500] [--formats yaml,json] [--repeat 1]

Times are CPU seconds (`time.process_time()`), minimum over `--repeat` runs: the loader is
single-threaded, so CPU time is its wall time on an idle machine and stays honest on a busy one.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

import cluster as gen

from kubefit.model.errors import Problem, ProblemList
from kubefit.translate.kube.objects import ObjectSet
from kubefit.translate.loader import loading as loader
from kubefit.translate.loader.objects_of import objects_of
from kubefit.translate.reading import documents, yaml_reference, yaml_source


def cpu(fn: Callable[[], Any], repeat: int) -> tuple[Any, float]:
    """The result of the last run and the least CPU time of `repeat` runs."""
    best = float("inf")
    result: Any = None
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        best = min(best, time.process_time() - start)
    return result, best


def validate(docs: list[Any], paused: Any) -> int:
    with paused():
        return _validate(docs)


def _validate(docs: list[Any]) -> int:
    problems = ProblemList()
    objects = ObjectSet()
    for doc in docs:
        if isinstance(doc, Problem):
            raise SystemExit(f"the generated cluster does not parse: {doc}")
        objects.objects.extend(objects_of(doc, problems, False))
    loader._check_duplicates(objects, problems)
    if problems.errors or problems.warnings:
        raise SystemExit(f"the generated cluster has problems: {[*problems.errors, *problems.warnings][0]}")
    return len(objects)


def stages(
    reader: Callable[[str, str], Any], paused: Any, texts: dict[str, str], repeat: int
) -> tuple[int, float, float]:
    """Objects read, parse seconds, validate seconds (what was read is dropped on return: kept alive,
    it would cost the next measurement garbage-collector time)."""
    docs, parse_s = cpu(lambda: [doc for path, text in texts.items() for doc in reader(text, path)], repeat)
    count, validate_s = cpu(lambda: validate(docs, paused), repeat)
    return count, parse_s, validate_s


def _paused() -> Any:
    # The loader reads with the garbage collector paused (`load` does; validating is timed the same way).
    return getattr(documents, "gc_paused", contextlib.nullcontext)


def measure(directory: str, fmt: str, repeat: int) -> list[list[str]]:
    paths = sorted(os.path.join(directory, name) for name in os.listdir(directory))
    texts = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            texts[path] = f.read()
    size = f"{sum(len(t.encode()) for t in texts.values()) / 1e6:.1f}"
    rows = []
    reference = getattr(yaml_reference, "reference_documents", None)
    if reference is not None:
        # The reader before the fast paths, on the same text, so that one run shows both.
        count, parse_s, validate_s = stages(reference, contextlib.nullcontext, texts, repeat)
        rows.append([fmt, "before", size, str(count), *_times(parse_s, validate_s), "-"])
    count, parse_s, validate_s = stages(yaml_source.read_documents, _paused(), texts, repeat)
    objects, load_s = cpu(lambda: loader.load([directory]), repeat)
    if len(objects) != count:
        raise SystemExit(f"load() read {len(objects)} objects, the stages {count}")
    rows.append([fmt, "now", size, str(count), *_times(parse_s, validate_s), f"{load_s:.2f}"])
    return rows


def _times(parse_s: float, validate_s: float) -> list[str]:
    return [f"{parse_s:.2f}", f"{validate_s:.2f}", f"{parse_s + validate_s:.2f}"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--formats", default="yaml,json")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    cluster = gen.generate(args.nodes)
    # Building the client's pydantic models happens on first use: not part of any row.
    gen.generate(3).objects(*gen.pods("gpu", 1))
    header = ["format", "reader", "MB", "objects", "parse s", "validate s", "total s", "load() s"]
    rows = []
    for fmt in args.formats.split(","):
        with tempfile.TemporaryDirectory(prefix="kubefit-load-") as directory:
            gen.write(directory, cluster, gen.pods("gpu", 1), fmt)
            rows += measure(directory, fmt, args.repeat)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
