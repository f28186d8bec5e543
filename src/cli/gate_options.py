"""The command line's release and feature gates: `--emulated-version` and `--feature-gates` (on every
verb, and before the verb), the gates a run uses, `--version` and the `feature-gates` verb's options
(what it shows: app.feature_gates)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import __version__
from ..model.features import (
    NEWEST_RELEASE,
    OLDEST_RELEASE,
    FeatureGates,
    check_version,
    release_gates,
    split_gates,
)
from ..model.gate_specs import UPSTREAM_COMMIT, UPSTREAM_REPO
from ..output import FORMATS


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


def add_verb(verbs: Any) -> None:
    p = verbs.add_parser(
        "feature-gates",
        help="the feature gates kubefit honours, as the emulated release sets them",
        description="Per gate: its stage and default in the emulated Kubernetes release, the value this "
        "run uses (with --feature-gates), and what kubefit does with it.",
    )
    add_options(p)
    p.add_argument("-o", "--output", choices=FORMATS, help="output format (default table)")
    p.set_defaults(verb="feature-gates")
