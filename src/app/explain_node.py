"""`kubefit explain --node`: why the kubelet rejects a pod bound to the node, from the objects and the
state files `kubefit admit` reads (the explaining is `solver.explain.admission`'s)."""

from __future__ import annotations

from typing import Any

from ..model.features import FeatureGates
from ..solver.explain.admission import explain_node
from ..solver.explain.admission_model import Devices, PodExplanation
from ..translate.kube import ObjectSet
from ..translate.node.build import StateFiles, build


def device_names(objects: ObjectSet, node: str) -> Devices:
    """The allocated devices of the claims of the node's pods, named as the allocator names them."""
    out: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
    for o in objects.of_kind("Pod"):
        pod: Any = o.model
        spec = getattr(pod, "spec", None)
        if spec is None or spec.node_name != node:
            continue
        statuses = (pod.status.resource_claim_statuses if pod.status is not None else None) or ()
        generated = {s.name: s.resource_claim_name for s in statuses}
        for ref in spec.resource_claims or ():
            claim_name = ref.resource_claim_name or generated.get(ref.name)
            claim = objects.get("ResourceClaim", claim_name, o.namespace) if claim_name else None
            model: Any = claim.model if claim is not None else None
            allocation = model.status.allocation if model is not None and model.status is not None else None
            results = (
                allocation.devices.results if allocation is not None and allocation.devices else None
            ) or ()
            names = tuple(f"{r.driver}/{r.pool}/{r.device}" for r in results)
            out[(f"{o.namespace}/{o.name}", f"claim/{o.namespace}/{ref.name}")] = (
                f"{o.namespace}/{claim_name or ref.name}",
                names,
            )
    return Devices(out)


def explain_admissions(
    objects: ObjectSet,
    gates: FeatureGates,
    node: str,
    pod_ref: str | None,
    files: StateFiles,
    time_limit: float | None = None,
) -> list[PodExplanation]:
    """Explain the admission of the node's pods (or of `pod_ref`), from the inputs `kubefit admit` reads."""
    problem = build(objects, gates, node, pod_ref, files)
    return explain_node(problem, device_names(objects, node), time_limit)
