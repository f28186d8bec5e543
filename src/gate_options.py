"""The command line's release and feature gates: `--emulated-version` and `--feature-gates` (on every
verb, and before the verb), the gates a run uses, `--version`'s words and the `feature-gates` verb."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from . import __version__
from .model.features import (
    ALL_ALPHA,
    ALL_BETA,
    KNOWN_GATES,
    NEWEST_RELEASE,
    OLDEST_RELEASE,
    FeatureGates,
    check_version,
    release_gates,
    removal,
    spec_at,
    split_gates,
)
from .model.gate_specs import PREVIEW, REMOVED, SPECS, UPSTREAM_COMMIT, UPSTREAM_REPO
from .output import FORMATS, emit, table


def version_text() -> str:
    return (
        f"kubefit {__version__} (Kubernetes {NEWEST_RELEASE} feature-gate defaults unless --emulated-version "
        f"says otherwise; it carries {OLDEST_RELEASE} to {NEWEST_RELEASE}, read from {UPSTREAM_REPO}@"
        f"{UPSTREAM_COMMIT[:12]})"
    )


class VersionAction(argparse.Action):
    """--version: the text as it is (argparse's own action rewraps it)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        sys.stdout.write(version_text() + "\n")
        parser.exit()


def add_options(parser: argparse.ArgumentParser, top_level: bool = False) -> None:
    """The two options, on a verb or (top_level) before it; a verb's own come after the top level's."""
    prefix = "global_" if top_level else ""
    parser.add_argument(
        "--feature-gates",
        dest=f"{prefix}feature_gates",
        action="append",
        default=[],
        metavar="Name=bool,...",
        help="Kubernetes feature gates, set as kube-scheduler's flag sets them (AllAlpha=true and "
        "AllBeta=true switch on every alpha / beta gate not named); unnamed gates default as the emulated "
        "release has them",
    )
    parser.add_argument(
        "--emulated-version",
        dest=f"{prefix}emulated_version",
        metavar="X.Y",
        help=f"the Kubernetes release whose feature-gate defaults to use ({OLDEST_RELEASE} to "
        f"{NEWEST_RELEASE}; default {NEWEST_RELEASE})",
    )


def emulated_version(args: argparse.Namespace) -> str:
    text = getattr(args, "emulated_version", None) or getattr(args, "global_emulated_version", None)
    return check_version(text) if text else NEWEST_RELEASE


def gates_of(args: argparse.Namespace) -> FeatureGates:
    """The gates of this run, made once: its warnings (what upstream would log, and the settings the
    component would refuse to start with) are written then, one line each."""
    made: FeatureGates | None = getattr(args, "_made_gates", None)
    if made is None:
        specs = [*getattr(args, "global_feature_gates", []), *(getattr(args, "feature_gates", None) or [])]
        notes: list[str] = []
        made = release_gates(split_gates(specs), emulated_version(args), warnings=notes)
        for note in notes:
            print(f"kubefit: warning: {note}", file=sys.stderr)
        args._made_gates = made
    return made


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


def cmd_feature_gates(args: argparse.Namespace) -> int:
    gates = gates_of(args)
    rows = gate_rows(gates)
    fmt = args.output or "table"
    if fmt == "table":
        head = (
            f"Kubernetes {gates.release} (--emulated-version {OLDEST_RELEASE} to {NEWEST_RELEASE}; specs "
            f"from {UPSTREAM_REPO}@{UPSTREAM_COMMIT[:12]})\n"
        )
        cells = [[_cell(r[k]) for k in ("gate", "stage", "default", "value", "kubefit")] for r in rows]
        sys.stdout.write(head + table(["GATE", "STAGE", "DEFAULT", "VALUE", "KUBEFIT"], cells))
        return 0
    doc = {
        "emulatedVersion": gates.release,
        "upstream": {"repo": UPSTREAM_REPO, "commit": UPSTREAM_COMMIT},
        "gates": rows,
    }
    emit(doc, fmt, "")
    return 0


def add_verb(verbs: Any) -> None:
    p = verbs.add_parser(
        "feature-gates",
        help="the feature gates kubefit honours, as the emulated release sets them",
        description="Per gate: its stage and default in the emulated Kubernetes release, the value this "
        "run uses (with --feature-gates), and what kubefit does with it.",
    )
    add_options(p)
    p.add_argument("-o", "--output", choices=FORMATS, help="output format (default table)")
    p.set_defaults(run=cmd_feature_gates)
