"""Targeted generator (see generators.py): values the API server refuses in the objects the answer is
computed from (issue 24, class 1): negative, fractional and overflowing quantities in a pod's requests,
limits, overhead and pod-level resources and in a node's capacity and allocatable; requests above their
limits; claims a container names that the pod does not have; integers at and past their Go type (int32,
int64) in Pods, Nodes, workloads, PriorityClasses, PodGroups and PodDisruptionBudgets.

Every verb must refuse such an object (exit 2) or, for what the scheduler counts as written, answer;
never crash. A seed without such an object gets one (a running pod, a node)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .choices import Chooser, chance, pick

if TYPE_CHECKING:
    from .mutators import Workspace

NEGATIVE = ("-1", "-100", "-0.5", "-1m", "-1Ei", "-9223372036854775808", -1, -0.5)
OVERFLOWING = (
    "9223372036854775807",
    "9223372036854775808",
    "99999999999999999999999999999999Ei",
    "1e19",
    "1e1000000000",
    int("9" * 40),
    int("9" * 4000),  # read as a number: past every Go integer, under Python's digit limit
    "9" * 5000,
)
FRACTIONAL = ("0.5", "1500m", "1.0001", "1999999999n", 0.5, "1e-9")
INT32_EDGES = (2**31 - 1, 2**31, -(2**31), -(2**31) - 1)
INT64_EDGES = (2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 10**30, int("9" * 4000))
NOT_INTEGERS = (1.5, "1", True, 1e300)
RESOURCES = ("cpu", "memory", "pods", "example.com/gpu", "hugepages-2Mi", "ephemeral-storage")

# Where each kind holds an integer (a path, with `[]` for the first item of a list), and its Go type.
INTEGERS: dict[str, tuple[tuple[str, str], ...]] = {
    "Pod": (
        ("spec.priority", "int32"),
        ("spec.containers[].ports[].containerPort", "int32"),
        ("spec.containers[].ports[].hostPort", "int32"),
        ("spec.tolerations[].tolerationSeconds", "int64"),
        ("spec.topologySpreadConstraints[].maxSkew", "int32"),
        ("spec.topologySpreadConstraints[].minDomains", "int32"),
        ("spec.terminationGracePeriodSeconds", "int64"),
        ("spec.activeDeadlineSeconds", "int64"),
        ("metadata.generation", "int64"),
    ),
    "Node": (("metadata.generation", "int64"), ("status.daemonEndpoints.kubeletEndpoint.Port", "int32")),
    "PriorityClass": (("value", "int32"),),
    "PodGroup": (("spec.schedulingPolicy.gang.minCount", "int32"), ("spec.priority", "int32")),
    "PodDisruptionBudget": (("status.disruptionsAllowed", "int32"), ("status.expectedPods", "int32")),
    "Deployment": (("spec.replicas", "int32"), ("spec.template.spec.priority", "int32")),
    "ReplicaSet": (("spec.replicas", "int32"),),
    "StatefulSet": (("spec.replicas", "int32"),),
    "Job": (
        ("spec.parallelism", "int32"),
        ("spec.completions", "int32"),
        ("spec.activeDeadlineSeconds", "int64"),
    ),
}


def _objects(workspace: Workspace) -> list[dict[str, Any]]:
    """The objects of the input, the items of a List among them."""
    found: list[dict[str, Any]] = []
    for doc in workspace.docs():
        items = doc.get("items") if doc.get("kind") == "List" else [doc]
        found += [d for d in items or () if isinstance(d, dict)]
    return found


def _running_pod(node: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "fuzz-running", "namespace": "default"},
        "spec": {"nodeName": node, "containers": [{"name": "main", "image": "x", "resources": {}}]},
        "status": {"phase": "Running"},
    }


def _node() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "fuzz-node"},
        "status": {"capacity": {"cpu": "4", "pods": "110"}, "allocatable": {"cpu": "4", "pods": "110"}},
    }


def _at(root: dict[str, Any], path: str) -> tuple[dict[str, Any], str]:
    """The mapping that holds `path`'s last field (made where missing), and that field's name."""
    parts = path.split(".")
    current = root
    for part in parts[:-1]:
        name, listed = part.removesuffix("[]"), part.endswith("[]")
        value = current.get(name)
        if listed:
            if not isinstance(value, list) or not value or not isinstance(value[0], dict):
                value = current[name] = [{}]
            current = value[0]
        else:
            if not isinstance(value, dict):
                value = current[name] = {}
            current = value
    return current, parts[-1]


def _containers(pod_spec: dict[str, Any]) -> list[dict[str, Any]]:
    found = [c for c in pod_spec.get("containers") or () if isinstance(c, dict)]
    return found or [_at(pod_spec, "containers[].name")[0]]


def _pod_spec(obj: dict[str, Any]) -> dict[str, Any] | None:
    if obj.get("kind") == "Pod":
        spec = obj.get("spec")
    elif obj.get("kind") in ("Deployment", "ReplicaSet", "StatefulSet", "Job"):
        spec = _at(obj, "spec.template.spec.x")[0]
    else:
        return None
    return spec if isinstance(spec, dict) else None


def _quantity(chooser: Chooser, objects: list[dict[str, Any]]) -> str | None:
    """A hostile amount where a pod or a node holds one."""
    value = pick(chooser, (*NEGATIVE, *OVERFLOWING, *FRACTIONAL))
    resource = pick(chooser, RESOURCES)
    nodes = [o for o in objects if o.get("kind") == "Node"]
    specs = [s for o in objects if (s := _pod_spec(o)) is not None]
    if nodes and (not specs or chance(chooser, 40)):
        node = pick(chooser, nodes)
        holder, _ = _at(node, f"status.{pick(chooser, ('capacity', 'allocatable'))}.x")
        holder[resource] = value
        return f"node {node.get('metadata', {}).get('name')}: {resource} = {value!r:.60}"
    if not specs:
        return None
    spec = pick(chooser, specs)
    where = pick(chooser, ("requests", "limits", "above", "overhead", "pod-level"))
    if where == "overhead":
        _at(spec, "overhead.x")[0][resource] = value
    elif where == "pod-level":
        _at(spec, f"resources.{pick(chooser, ('requests', 'limits'))}.x")[0][resource] = value
    else:
        resources = _at(pick(chooser, _containers(spec)), "resources.x")[0]
        if where == "above":
            _at(resources, "limits.x")[0]["cpu"] = "1"
            _at(resources, "requests.x")[0]["cpu"] = pick(chooser, ("2", "1001m", "1Ki"))
            return "a request above its limit"
        _at(resources, f"{where}.x")[0][resource] = value
    return f"{where} {resource} = {value!r:.60}"


def _claim(chooser: Chooser, objects: list[dict[str, Any]]) -> str | None:
    """A container names a claim the pod does not have (or names one twice)."""
    specs = [s for o in objects if (s := _pod_spec(o)) is not None]
    if not specs:
        return None
    spec = pick(chooser, specs)
    container = pick(chooser, _containers(spec))
    resources = _at(container, "resources.x")[0]
    claims = resources.setdefault("claims", [])
    if not isinstance(claims, list):
        claims = resources["claims"] = []
    name = pick(chooser, ("missing", "", *(c.get("name", "") for c in spec.get("resourceClaims") or ())))
    claims.extend([{"name": name}] * pick(chooser, (1, 1, 2)))
    return f"container claims {name!r}"


def _integer(chooser: Chooser, objects: list[dict[str, Any]]) -> str | None:
    """An integer at or past its Go type's range, or a value that is no integer, where one is read."""
    candidates = [o for o in objects if o.get("kind") in INTEGERS]
    if not candidates:
        return None
    obj = pick(chooser, candidates)
    path, go_type = pick(chooser, INTEGERS[str(obj.get("kind"))])
    value = pick(chooser, (*(INT32_EDGES if go_type == "int32" else INT64_EDGES), *NOT_INTEGERS))
    holder, field = _at(obj, path)
    holder[field] = value
    return f"{obj.get('kind')} {path} = {value!r:.60}"


def generate(chooser: Chooser, workspace: Workspace) -> str | None:
    objects = _objects(workspace)
    added = []
    if workspace.files:
        # Every seed can carry the class: a node, and a pod running on one.
        target = workspace.files[sorted(workspace.files)[0]]
        nodes = [o for o in objects if o.get("kind") == "Node"]
        if not nodes:
            nodes = [_node()]
            target.append(nodes[0])
            added.append("a node")
        if not any(o.get("kind") == "Pod" for o in objects) and chance(chooser, 60):
            name = pick(chooser, nodes).get("metadata", {}).get("name")
            target.append(_running_pod(name if isinstance(name, str) else "fuzz-node"))
            added.append("a running pod")
        objects = _objects(workspace)
    kind = pick(chooser, ("quantity", "quantity", "claim", "integer", "integer"))
    done = {"quantity": _quantity, "claim": _claim, "integer": _integer}[kind](chooser, objects)
    if done is None:
        return None
    return "api-values: " + (f"added {' and '.join(added)}; " if added else "") + done
