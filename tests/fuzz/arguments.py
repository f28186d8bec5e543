"""A verb's command line for a seed: the question its source asks, sometimes a stranger one.

Arguments name files as `@relative/path` (replaced by the run's directory when it runs); budgets are
small (`--time-limit`, `--steps`) so a run is bounded by what the user asked for, and the fuzzer's
alarm only catches what ignores its budget.
"""

from __future__ import annotations

from kubefit.model.features import KNOWN_GATES

from .choices import Chooser, chance, pick
from .seeds import Seed
from .values import CEL, NAMES

VERBS = ("validate", "devices", "allocate", "explain", "admit", "plan", "compare", "pools", "taints")
BUDGET = "3"  # seconds of solver time a run may ask for; the alarm allows several times more
STEPS = "20000"


def _names(seed: Seed, kind: str) -> list[str]:
    out = []
    for d in seed.docs():
        meta = d.get("metadata") or {}
        if d.get("kind") == kind and isinstance(meta, dict) and meta.get("name"):
            namespace = meta.get("namespace")
            out.append(
                f"{namespace}/{meta['name']}" if namespace and kind != "DeviceClass" else str(meta["name"])
            )
    return out


def _name(chooser: Chooser, seed: Seed, kind: str) -> str | None:
    names = _names(seed, kind)
    if chance(chooser, 5):
        return pick(chooser, NAMES)
    return pick(chooser, names) if names else None


def _common(chooser: Chooser, seed: Seed) -> list[str]:
    args = ["-o", pick(chooser, ("yaml", "json", "table"))]
    gates = seed.gates
    if chance(chooser, 10):
        gate = f"{pick(chooser, list(KNOWN_GATES))}=false"
        gates = f"{gates},{gate}" if gates else gate
    if gates:
        args += ["--feature-gates", gates]
    if chance(chooser, 5):
        args.append("--strict")
    return args


def _states(chooser: Chooser, seed: Seed) -> list[str]:
    flags = {"cpu": "--cpu-manager-state", "memory": "--memory-manager-state"}
    return [a for key in seed.states if chance(chooser, 90) for a in (flags[key], f"@{key}_manager_state")]


def _budget(chooser: Chooser) -> str:
    return pick(chooser, (BUDGET,) * 45 + ("0", "-1", "nan", "inf", "1e-9"))


def _steps(chooser: Chooser) -> str:
    return pick(chooser, (STEPS,) * 30 + ("0", "-1", "1"))


def arguments(chooser: Chooser, verb: str, seed: Seed) -> list[str]:
    """The arguments after `kubefit VERB -f @objects`."""
    args = _common(chooser, seed)
    node = seed.node if not chance(chooser, 5) else pick(chooser, NAMES)
    if verb == "devices":
        if node and chance(chooser, 50):
            args += ["--node", node]
        device_class = _name(chooser, seed, "DeviceClass")
        if device_class and chance(chooser, 40):
            args += ["--class", device_class]
        if chance(chooser, 30):
            args += ["--selector", pick(chooser, CEL)]
    elif verb in ("allocate", "explain"):
        engine = (
            "greedy" if verb == "explain" else pick(chooser, ("greedy", "greedy", "greedy", "cpsat", "asp"))
        )
        args += ["--engine", engine, "--time-limit", _budget(chooser), "--steps", _steps(chooser)]
        if node and chance(chooser, 50):
            args += ["--node", node]
        claims = list(seed.claims) or _names(seed, "ResourceClaim")
        pod = _name(chooser, seed, "Pod")
        if claims and chance(chooser, 30 if not seed.claims else 80):
            args += ["--claims", ",".join(claims[: chooser.integer(1, len(claims))])]
        elif verb == "explain" and pod and chance(chooser, 30):
            args += ["--pod", pod]
        if engine == "cpsat" and chance(chooser, 30):
            args += [
                "--objective",
                pick(chooser, ("first-fit", "pack", "spread", "prefer-lower-alternatives")),
            ]
        if chance(chooser, 15):
            args += ["--seed", pick(chooser, ("0", "1", "-1", str(2**70)))]
        if verb == "allocate" and chance(chooser, 20):
            args.append("--no-explain")
        if verb == "explain":
            args += _states(chooser, seed)
    elif verb == "admit":
        args += ["--node", node or "node-1", "--engine", pick(chooser, ("greedy", "greedy", "cpsat"))]
        args += ["--time-limit", _budget(chooser), *_states(chooser, seed)]
        pod = seed.pod or _name(chooser, seed, "Pod")
        if pod and chance(chooser, 70):
            args += ["--pod", pod]
    elif verb in ("plan", "compare"):
        args += [
            "--time-limit",
            _budget(chooser),
            "--objective",
            pick(chooser, ("pack", "spread", "scheduler")),
        ]
        if verb == "plan":
            args += ["--engine", pick(chooser, ("greedy", "cpsat"))]
            if chance(chooser, 30):
                args += ["--node-template", "@template/a100-node.yaml"]
                if chance(chooser, 50):
                    args += ["--max-new-nodes", pick(chooser, ("0", "1", "3", "-1"))]
            if chance(chooser, 15):
                args += ["--min-priority", pick(chooser, ("0", "-2147483648", "1000000000"))]
        elif chance(chooser, 20):
            args += ["--engines", pick(chooser, ("cpsat,greedy", "greedy,greedy", "greedy"))]
    elif verb == "pools":
        if chance(chooser, 30):
            args += ["--limit", pick(chooser, ("1", "2", "1000", "0", "-1", "1001"))]
        if chance(chooser, 20):
            attribute = pick(chooser, ("gpu.nvidia.com/type", "gpu.example.com/model", "x", "a/b/c"))
            args += ["--default-partition-type-attribute", attribute]
    elif verb == "taints":
        rule = _name(chooser, seed, "DeviceTaintRule")
        if rule and chance(chooser, 40):
            args += ["--rule", rule]
    return args


def applies(verb: str, seed: Seed) -> bool:
    """admit (and explain's kubelet half) needs a machine: seeds without a NodeTopology ask nothing of it."""
    return verb != "admit" or "NodeTopology" in seed.kinds()
