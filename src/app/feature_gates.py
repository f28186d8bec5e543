"""`kubefit feature-gates`: per gate, its stage and default in the emulated release, the value this run
uses and what kubefit does with it."""

from __future__ import annotations

from typing import Any

from ..model.features import (
    ALL_ALPHA,
    ALL_BETA,
    KNOWN_GATES,
    NEWEST_RELEASE,
    OLDEST_RELEASE,
    FeatureGates,
    removal,
    spec_at,
)
from ..model.gate_specs import PREVIEW, REMOVED, SPECS, UPSTREAM_COMMIT, UPSTREAM_REPO
from ..output import table
from .requests import EXIT_OK, Answer


def _stage(gate: str, version: str) -> str:
    if removal(gate, version):
        return "removed"
    spec = spec_at(gate, version)
    if spec is None:
        return "preview" if gate in PREVIEW else "-"
    return spec.stage + (" (locked)" if spec.locked else "")


def _doing(gate: str, version: str) -> str:
    gone = REMOVED.get(gate)
    if gone and removal(gate, version):
        follows = f"follows {gone.merged_into}" if gone.merged_into else "always on"
        return f"removed in {gone.release}: {follows}"
    if gate in KNOWN_GATES:
        return KNOWN_GATES[gate]
    return "not modelled (a gate kubefit honours depends on it)"


def _help(gate: str, spec: Any) -> str:
    """FeatureSpec.HelpString: alpha and beta gates only."""
    if spec is None or spec.stage not in ("ALPHA", "BETA"):
        return ""
    return f"{gate}=true|false ({spec.stage} - default={str(spec.default).lower()})"


def upstream_line(gate: str, version: str) -> str:
    """The gate as upstream's --feature-gates help lists it at `version` (KnownFeatures; "" for a gate it
    leaves out: GA, deprecated, not yet there, removed), with the default a component gets when its
    --min-compatibility-version is the emulated version itself where that differs."""
    if removal(gate, version):
        return ""
    usual = _help(gate, spec_at(gate, version))
    compat = spec_at(gate, version, min_compatibility=version)
    if compat == spec_at(gate, version):
        return usual
    extra = _help(gate, compat)
    if extra and compat is not None and compat.min_compatibility:
        extra += f" if --min-compatibility-version>={compat.min_compatibility}"
    return ", or ".join(p for p in (usual, extra) if p)


def gate_rows(gates: FeatureGates) -> list[dict[str, Any]]:
    """One row per gate: stage and default at the emulated release, the value this run uses, and what
    kubefit does with it. The meta-gates first, as run-scenarios looks for them."""
    version = gates.release
    rows: list[dict[str, Any]] = [
        {
            "gate": meta,
            "stage": stage,
            "default": False,
            "value": None,
            "kubefit": f"sets every {stage} gate not named",
            "upstream": f"{meta}=true|false ({stage} - default=false)",
        }
        for meta, stage in ((ALL_ALPHA, "ALPHA"), (ALL_BETA, "BETA"))
    ]
    for gate in sorted(SPECS):
        spec = spec_at(gate, version)
        row = {
            "gate": gate,
            "stage": _stage(gate, version),
            "default": spec.default if spec is not None and not removal(gate, version) else None,
            "value": gates.enabled(gate),
            "kubefit": _doing(gate, version),
            "upstream": upstream_line(gate, version),
        }
        if row["stage"] == "removed":
            row["default"] = None
        rows.append(row)
    return rows


def _cell(value: Any) -> str:
    return "-" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def feature_gates(gates: FeatureGates, fmt: str) -> Answer:
    """The gates as `fmt` (table, json or yaml) shows them."""
    rows = gate_rows(gates)
    if fmt == "table":
        head = (
            f"Kubernetes {gates.release} (--emulated-version {OLDEST_RELEASE} to {NEWEST_RELEASE}; specs "
            f"from {UPSTREAM_REPO}@{UPSTREAM_COMMIT[:12]})\n"
        )
        cells = [[_cell(r[k]) for k in ("gate", "stage", "default", "value", "kubefit")] for r in rows]
        page = head + table(["GATE", "STAGE", "DEFAULT", "VALUE", "KUBEFIT"], cells)
        return Answer(None, "", EXIT_OK, fmt, verbatim=page)
    doc = {
        "emulatedVersion": gates.release,
        "upstream": {"repo": UPSTREAM_REPO, "commit": UPSTREAM_COMMIT},
        "gates": rows,
    }
    return Answer(doc, "", EXIT_OK, fmt)
