"""What an explanation of a kubelet admission holds: the reasons a pod is refused, the pod's explanation
and the devices its claims hold (admission.py finds them, admission_render.py words them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...model.node.problem import PodFacts
from ...model.node.solution import PodAdmission

# A named group of the rules' violations, as reasons are keyed: its family, then the ids it is about,
# e.g. ("cpu", slot), ("policy", unit), ("memory", memory group), ("hint", unit, resource).
Group = tuple[str | int, ...]


@dataclass(frozen=True)
class AdmissionReason:
    """One reason a pod is refused: the same fields as a scheduling reason (explain/model.py Reason)."""

    id: str
    kind: str
    message: str
    objects: Mapping[str, Any] = field(default_factory=dict)
    numbers: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "objects": dict(self.objects),
            "numbers": dict(self.numbers),
            "message": self.message,
        }


@dataclass(frozen=True)
class PodExplanation:
    node: str
    admission: PodAdmission  # the kubelet's answer
    reasons: tuple[AdmissionReason, ...] = ()
    minimal: bool = True  # False when a time limit stopped the search for fewer reasons
    groups: tuple[Group, ...] = ()  # the model's groups behind the reasons

    @property
    def pod(self) -> str:
        return self.admission.pod.ref

    @property
    def admitted(self) -> bool:
        return self.admission.admitted

    @property
    def summary(self) -> str:
        """The kubelet's event for a refused pod; for an admitted one, where it runs."""
        if self.admitted:
            return f"pod {self.pod} is admitted on node {self.node}"
        return f"Pod was rejected: {self.admission.message}"


@dataclass(frozen=True)
class Devices:
    """The allocated devices of each claim a pod's containers use, by pod and the kubelet's resource
    name of the claim ("claim/<namespace>/<pod claim name>"): the claim's name and device names."""

    by_pod: Mapping[tuple[str, str], tuple[str, tuple[str, ...]]] = field(default_factory=dict)

    def of(self, pod: PodFacts, resource: str) -> tuple[str, tuple[str, ...]]:
        fallback = resource.removeprefix("claim/")
        return self.by_pod.get((pod.ref, resource), (fallback, ()))
