"""How long does writing a large answer take, as JSON, as YAML by libyaml's emitter, and as YAML by
PyYAML's own (issue 24)?

The document is `fleet.py`'s cluster dump (N nodes of 8 A100-80GB with every MIG placement: 76,000
devices and 204 MB of JSON at 500 nodes), read with `json.load`: the largest answer kubefit writes is
of that shape (objects with their devices). Each format is written by `kubefit.output` as the command
line writes it (the garbage collector tuned as `cli` tunes it), in this process: CPU seconds
(`time.process_time()`, minimum over `--repeat`), the bytes written, and whether libyaml's bytes are
PyYAML's. Then `kubefit devices -o json|yaml` on the same dump, in fresh processes: CPU seconds (user
+ system) and peak RSS, as `fleet.py` measures commands.

    python benchmarks/output.py [--nodes 250] [--repeat 1] [--no-commands]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import fleet
from cluster import table

from kubefit.output import to_json, to_yaml


def _cpu(write: Callable[[Any], str], doc: Any, repeat: int) -> tuple[float, str]:
    best, text = float("inf"), ""
    for _ in range(repeat):
        start = time.process_time()
        text = write(doc)
        best = min(best, time.process_time() - start)
    return best, text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=250)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-commands", action="store_true", help="only the writers, in this process")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kubefit-output-") as tmp:
        paths, devices = fleet.write(tmp, "fleet", args.nodes, 1)
        path = paths["one"]
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        gc.freeze()
        gc.set_threshold(100_000, 50, 100)
        size = os.path.getsize(path) / 1e6
        print(f"{args.nodes} nodes, {devices} devices, {size:.0f} MB of JSON; CPU seconds")
        rows, texts = [], {}
        writers = [
            ("json", to_json),
            ("yaml (libyaml)", to_yaml),
            ("yaml (PyYAML)", lambda d: to_yaml(d, pure=True)),
        ]
        for name, write in writers:
            seconds, texts[name] = _cpu(write, doc, args.repeat)
            rows.append([name, f"{seconds:.2f}", f"{len(texts[name]) / 1e6:.0f}"])
        same = texts["yaml (libyaml)"] == texts["yaml (PyYAML)"]
        print(table(["writer", "CPU s", "MB"], rows))
        print(f"libyaml's bytes are PyYAML's: {same}")
        del texts, doc
        if not args.no_commands:
            kubefit = [sys.executable, "-m", "kubefit"]
            rows = []
            for fmt in ("json", "yaml"):
                run = fleet.run([*kubefit, "devices", "-f", path, "-o", fmt])
                rows.append([f"devices -o {fmt}", str(run.code), f"{run.cpu:.2f}", f"{run.peak:.0f}"])
            print(table(["command", "exit", "CPU s", "peak MiB"], rows))
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
