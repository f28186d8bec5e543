"""Whether explain has a kubelet to ask about a node's bound pods (kept apart from admission.py, which
brings the kubelet's CP-SAT models with it: only a node whose kubelet is described needs those)."""

from __future__ import annotations

from ..translate.kube import ObjectSet


def bound_to(objects: ObjectSet, node: str, pod_ref: str) -> bool:
    """Whether the pod named `pod_ref` ([namespace/]name) is bound to `node` (the kubelet admits it)."""
    namespace, _, name = pod_ref.rpartition("/")
    for o in objects.of_kind("Pod"):
        spec = getattr(o.model, "spec", None)
        if o.name == name and (not namespace or o.namespace == namespace) and spec is not None:
            return bool(spec.node_name == node)
    return False


def has_kubelet(objects: ObjectSet, node: str) -> bool:
    """Whether the input describes the node's kubelet (its NodeTopology), as `kubefit admit` needs."""
    return objects.get("NodeTopology", node) is not None
