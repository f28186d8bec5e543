"""Taints, tolerations and node selector terms: what devices, nodes and pods all carry, so the DRA and
the cluster facts share one definition of each."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str
    time_added: str = ""


@dataclass(frozen=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """Kubernetes' rule: an empty key with Exists matches every key; Exists ignores the value. The
        comparison operators (Gt, Lt) tolerate nothing, as while their alpha gate is off; any other
        operator neither."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if not self.key and self.operator != "Exists":
            return False
        if self.operator == "Exists":
            return True
        return self.operator in ("Equal", "") and self.value == taint.value


@dataclass(frozen=True)
class NodeRequirement:
    key: str
    operator: str
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class NodeSelectorTerm:
    match_expressions: tuple[NodeRequirement, ...] = ()
    match_fields: tuple[NodeRequirement, ...] = ()


@dataclass(frozen=True)
class PreferredNodeTerm:
    """A PreferredSchedulingTerm: its weight and its preference."""

    weight: int
    preference: NodeSelectorTerm
