"""Building the NodeProblem of `kubefit admit`: which machine, which kubelet settings, which state,
and which pods, in which order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...model.errors import InputError, Problem
from ...model.features import FeatureGates
from ...model.node.problem import CPUState, KubeletPolicy, Machine, MemoryState, NodeProblem
from ..kube import KubeObject, ObjectSet
from ..kubelet_config import KubeletConfiguration
from ..node_topology import NodeTopology
from ..reading import NotText, TooLarge, read_text, refused
from .checkpoint import read_cpu_state, read_memory_state
from .machine import machine_of
from .pods import pod_facts
from .policy import check_reserved_cpus, check_reserved_memory, policy_of

TERMINATED = ("Succeeded", "Failed")


@dataclass(frozen=True)
class StateFiles:
    cpu: str | None = None
    memory: str | None = None


def _read(path: str) -> str:
    try:
        return read_text(path)[0]
    except OSError as e:
        raise InputError(Problem(f"cannot read: {e.strerror or e}", file=path)) from e
    except UnicodeDecodeError as e:
        raise InputError(Problem(f"not a kubelet checkpoint (not UTF-8 text: {e.reason})", file=path)) from e
    except (TooLarge, NotText) as e:
        raise refused(path, "a kubelet checkpoint", e) from e


def kubelet_configuration(objects: ObjectSet, node: str) -> tuple[KubeObject | None, KubeletConfiguration]:
    """The KubeletConfiguration named after the node, else the unnamed one, else the defaults."""
    configs = objects.of_kind("KubeletConfiguration")
    named = [o for o in configs if o.name == node]
    unnamed = [o for o in configs if not o.name]
    if not named and not unnamed:
        return None, KubeletConfiguration()
    chosen = (named or unnamed)[0]
    model = chosen.model
    assert isinstance(model, KubeletConfiguration)
    return chosen, model


def _topology(objects: ObjectSet, node: str) -> NodeTopology:
    obj = objects.get("NodeTopology", node)
    if obj is None:
        raise InputError(
            f"--node {node}: no NodeTopology named {node} in the input (the kubelet's managers need the CPU "
            "layout; `kubefit topology --from-sysfs` prints one for this machine)"
        )
    model = obj.model
    assert isinstance(model, NodeTopology)
    return model


def _phase(pod: Any) -> str:
    return (pod.status.phase if pod.status is not None else None) or ""


def live(obj: KubeObject) -> bool:
    """A pod its node's kubelet runs or will run: it has a spec and has not terminated."""
    return getattr(obj.model, "spec", None) is not None and _phase(obj.model) not in TERMINATED


def _pods_in_state(cpu: CPUState | None, memory: MemoryState | None) -> set[str]:
    uids = {uid for uid, _, _ in cpu.entries} if cpu else set()
    uids |= {uid for uid, _ in cpu.pod_entries} if cpu else set()
    uids |= {uid for uid, _, _ in memory.entries} if memory else set()
    return uids


def kubelet_of(objects: ObjectSet, gates: FeatureGates, node: str) -> tuple[Machine, KubeletPolicy]:
    """The node's machine (its NodeTopology) and its kubelet's policy, checked against each other as the
    kubelet checks them when it starts."""
    machine = machine_of(_topology(objects, node))
    cfg_obj, cfg = kubelet_configuration(objects, node)
    check_reserved_cpus(cfg_obj, cfg, machine)
    policy = policy_of(cfg, gates)
    check_reserved_memory(cfg_obj, cfg, machine)
    return machine, policy


def build(
    objects: ObjectSet, gates: FeatureGates, node: str, pod_ref: str | None, files: StateFiles
) -> NodeProblem:
    if objects.get("Node", node) is None and objects.get("NodeTopology", node) is None:
        raise InputError(f"--node {node}: no Node or NodeTopology named {node} in the input")
    machine, policy = kubelet_of(objects, gates, node)
    cpu_state = read_cpu_state(_read(files.cpu), files.cpu) if files.cpu else None
    memory_state = read_memory_state(_read(files.memory), files.memory) if files.memory else None
    pod_objects = [o for o in objects.of_kind("Pod") if live(o)]
    bound = [o for o in pod_objects if o.model.spec.node_name == node]  # type: ignore[attr-defined]
    level = policy.pod_level_resources
    if pod_ref is None:
        pods = tuple(pod_facts(o, objects, gates, level, True) for o in bound)
        return NodeProblem(node, machine, policy, pods, cpu_state, memory_state)
    target = _find_pod(pod_objects, pod_ref)
    running = _pods_in_state(cpu_state, memory_state)
    # Pods already on the node but missing from the checkpoints are admitted first (silently), as
    # a restarting kubelet re-admits them, so the pod asked about sees the node as it would be.
    earlier = []
    for o in bound:
        if o is target:
            continue
        facts = pod_facts(o, objects, gates, level, False)
        if facts.uid not in running:
            earlier.append(facts)
    pods = (*earlier, pod_facts(target, objects, gates, level, True))
    return NodeProblem(node, machine, policy, pods, cpu_state, memory_state)


def _find_pod(pods: list[KubeObject], ref: str) -> KubeObject:
    namespace, _, name = ref.rpartition("/")
    found = [o for o in pods if o.name == name and (not namespace or o.namespace == namespace)]
    if not found:
        raise InputError(f"--pod {ref}: no such pod in the input (or it has terminated)")
    if len(found) > 1:
        raise InputError(f"--pod {ref}: pods of that name in several namespaces; write namespace/name")
    return found[0]
