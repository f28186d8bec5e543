"""How much does evaluating DRA selectors cost as the number of devices grows?

A selector's result depends only on the device values it reads, so kubefit
evaluates it once per distinct combination of those values. With a few device
models, 10,000 devices should cost little more than a few: the remaining cost is
building each device's `device` variable and looking the combination up.

    python benchmarks/cel_selectors.py [--repeat 3]

Prints, per device count, the CEL evaluations actually run, the median time with
memoization and without it (every device evaluated), and the per-device cost.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid

from kubefit.translate.cel.environment import Features
from kubefit.translate.cel.selector import AttributeValue, DeviceInput, Selector

MODELS = [("A100", "40Gi", "535.104.5"), ("H100", "80Gi", "550.54.15"), ("L4", "24Gi", "550.54.15")]
SELECTORS = {
    "model and memory": 'device.attributes["gpu.example.com"].model == "H100" && '
    'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0',
    "bind + semver": 'cel.bind(g, device.attributes["gpu.example.com"], '
    'g.driverVersion.isGreaterThan(semver("540.0.0")) && g.model != "L4")',
    "reads uuid (no sharing)": 'device.attributes["gpu.example.com"].uuid.startsWith("GPU-")',
}


def make_devices(n: int) -> list[DeviceInput]:
    out = []
    for i in range(n):
        model, memory, version = MODELS[i % len(MODELS)]
        attributes = {
            "model": AttributeValue(string=model),
            "index": AttributeValue(int=i),
            "uuid": AttributeValue(string=f"GPU-{uuid.UUID(int=i)}"),
            "driverVersion": AttributeValue(version=version),
        }
        out.append(DeviceInput("gpu.example.com", attributes, {"memory": memory}))
    return out


def run(expression: str, devices: list[DeviceInput], memo: bool) -> tuple[float, int]:
    features = Features()
    selector = Selector(expression, features)
    start = time.perf_counter()
    matched = 0
    for device in devices:
        if not memo:
            selector.cache.clear()
        matched += selector.evaluate(device)
    return time.perf_counter() - start, selector.evaluations


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="10,100,1000,10000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    for label, expression in SELECTORS.items():
        print(f"\nselector: {label}\n  {expression}")
        print(
            f"{'devices':>8} {'evaluations':>12} {'memo ms':>9} {'us/device':>10} {'no-memo ms':>11} "
            f"{'speed-up':>9} {'vs 10 devices':>14}"
        )
        base = None
        for n in sizes:
            devices = make_devices(n)
            memo_times, plain_times = [], []
            evaluations = 0
            for _ in range(args.repeat):
                elapsed, evaluations = run(expression, devices, memo=True)
                memo_times.append(elapsed)
                plain_times.append(run(expression, devices, memo=False)[0])
            memo_ms = statistics.median(memo_times) * 1000
            plain_ms = statistics.median(plain_times) * 1000
            per_device = memo_ms * 1000 / n
            base = base or memo_ms
            speedup = plain_ms / memo_ms
            print(
                f"{n:>8} {evaluations:>12} {memo_ms:>9.1f} {per_device:>10.1f} {plain_ms:>11.1f} "
                f"{speedup:>8.1f}x {memo_ms / base:>13.0f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
