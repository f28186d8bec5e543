"""Why the kubelet refuses a pod: the admission errors and the reason each reports.

A typed error keeps its type as the reason; anything else becomes UnexpectedAdmissionError with
the kubelet's wrapping message (`cm/admission`).
"""

from __future__ import annotations


class AdmissionError(Exception):
    reason = "UnexpectedAdmissionError"

    @property
    def message(self) -> str:
        return str(self)


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
    reason = "EmptyPodSharedPoolError"


class UnexpectedAdmissionError(AdmissionError):
    reason = "UnexpectedAdmissionError"

    def __init__(self, cause: str) -> None:
        super().__init__(f"Allocate failed due to {cause}, which is unexpected")
