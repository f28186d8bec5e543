"""Why the kubelet refuses a pod: the admission errors and the reason each reports.

A typed error keeps its type as the reason; anything else becomes UnexpectedAdmissionError with
the kubelet's wrapping message (`cm/admission`). The message starts with the kubelet's own text, as
the pod's status and event carry it, so it can be searched for; kubefit's detail, when it has one,
follows in parentheses.
"""

from __future__ import annotations


class AdmissionError(Exception):
    reason = "UnexpectedAdmissionError"

    def __init__(self, kubelet_message: str, detail: str = "") -> None:
        super().__init__(kubelet_message)
        self.kubelet_message = kubelet_message
        self.detail = detail

    @property
    def message(self) -> str:
        return f"{self.kubelet_message} ({self.detail})" if self.detail else self.kubelet_message


class SMTAlignmentError(AdmissionError):
    reason = "SMTAlignmentError"

    def __init__(self, requested: int, per_core: int, available: int | None = None) -> None:
        if available is None:
            text = f"SMT Alignment Error: requested {requested} cpus not multiple cpus per core = {per_core}"
        else:
            text = (
                "SMT Alignment Error: not enough free physical CPUs: available physical CPUs = "
                f"{available}, requested CPUs = {requested}, CPUs per core = {per_core}"
            )
        super().__init__(text)


class TopologyAffinityError(AdmissionError):
    reason = "TopologyAffinityError"

    def __init__(self) -> None:
        super().__init__("Resources cannot be allocated with Topology locality")


class EmptyPodSharedPoolError(AdmissionError):
    """Pod-level resources whose pod shared pool would be empty (the kubelet's validatePodScopeResources,
    of the CPU manager, then of the memory manager)."""

    reason = "EmptyPodSharedPoolError"


class UnexpectedAdmissionError(AdmissionError):
    reason = "UnexpectedAdmissionError"

    def __init__(self, cause: str, detail: str = "") -> None:
        super().__init__(f"Allocate failed due to {cause}, which is unexpected", detail)
