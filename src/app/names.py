"""The names the command line's flags give (`--node`, `--pod`, `--claims`, `--rule`, `--scheduler-name`)
looked up in the input before a verb answers: a name that names nothing there is bad input (one line,
exit 2, with the nearest names the input has), never an answer of pods that "do not fit" a node that is
not there.

The line reads as kubectl's NotFound error for that object (`nodes "gpu-node-3" not found`), after the
flag and its value, then the nearest names: `did you mean a, b?` when some are close, else `known:
a, b, c, …` (the first few, sorted), or `the input has none`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from ..model.errors import InputError

SHOWN = 3  # at most this many names on the line


def nearest(value: str, known: Iterable[str]) -> str:
    """What follows the error: the names closest to `value`, or the first few, or that there are none."""
    names = sorted(set(known))
    if not names:
        return "the input has none"
    close = difflib.get_close_matches(value, names, n=SHOWN)
    if close:
        return f"did you mean {', '.join(close)}?"
    more = ", …" if len(names) > SHOWN else ""
    return f"known: {', '.join(names[:SHOWN])}{more}"


def not_found(flag: str, value: str, what: str, known: Iterable[str]) -> InputError:
    """`--node gpu-node-3: nodes "gpu-node-3" not found; did you mean gpu-node-1, gpu-node-2?`"""
    return InputError(f"{flag} {value}: {what}; {nearest(value, known)}")


def node_names(objects: Any, slices: bool = True) -> set[str]:
    """Every node the input names: its Nodes and NodeTopologies, and (`slices`) the nodes ResourceSlices
    are on (a DRA-only input describes a node by its slices alone; a kubelet needs more)."""
    names = {o.name for kind in ("Node", "NodeTopology") for o in objects.of_kind(kind)}
    for o in objects.of_kind("ResourceSlice") if slices else ():
        node = getattr(o.model.spec, "node_name", None)
        if node:
            names.add(node)
    return names


def check_node(objects: Any, node: str | None, slices: bool = True) -> None:
    if node is None:
        return
    known = node_names(objects, slices)
    if node not in known:
        raise not_found("--node", node, f'nodes "{node}" not found', known)


def _refs(value: str, objects: Iterable[Any]) -> tuple[bool, list[str]]:
    """Whether `value` ([namespace/]name) names one of `objects`, and the names to suggest in its form
    (namespace/name when it gives a namespace, else bare names)."""
    namespace, sep, name = value.rpartition("/")
    found = False
    names = []
    for o in objects:
        found = found or (o.name == name and (not sep or o.namespace == namespace))
        names.append(f"{o.namespace}/{o.name}" if sep else o.name)
    return found, names


def check_pod(pods: Iterable[Any], pod: str | None) -> None:
    """`--pod [namespace/]name` names some pod of `pods` (whether it is the pod asked about, pending or
    bound, is the verb's to say)."""
    if pod is None:
        return
    found, names = _refs(pod, pods)
    if not found:
        raise not_found("--pod", pod, f'pods "{pod.rpartition("/")[2]}" not found', names)


def check_claims(objects: Any, claims: Iterable[str] | None) -> None:
    """Every claim of `--claims a,ns/b` is a ResourceClaim of the input (one line per claim that is not)."""
    problems = []
    for claim in claims or ():
        found, names = _refs(claim, objects.of_kind("ResourceClaim"))
        if not found:
            what = f'resourceclaims.resource.k8s.io "{claim.rpartition("/")[2]}" not found'
            problems.extend(not_found("--claims", claim, what, names).problems)
    if problems:
        raise InputError(problems)


def check_rule(objects: Any, rule: str | None) -> None:
    if rule is None:
        return
    known = [o.name for o in objects.of_kind("DeviceTaintRule")]
    if rule not in known:
        raise not_found("--rule", rule, f'devicetaintrules.resource.k8s.io "{rule}" not found', known)


def check_scheduler_name(objects: Any, gates: Any, scheduler_name: str | None) -> None:
    """`--scheduler-name` is a profile of the input's KubeSchedulerConfiguration (without one, the
    default profile's `default-scheduler`)."""
    if scheduler_name is None:
        return
    from ..translate.sched.config import configuration

    known = [p.scheduler_name for p in configuration(objects, gates).profiles]
    if scheduler_name not in known:
        what = f'no profile of the KubeSchedulerConfiguration has schedulerName "{scheduler_name}"'
        raise not_found("--scheduler-name", scheduler_name, what, known)
