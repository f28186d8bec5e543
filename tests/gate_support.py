"""Feature gates as the scenario runner passes them: every gate on (AllAlpha and AllBeta, when kubefit
lists them) plus a case's own, at the default release. Where the release would refuse the setting (a
gate locked there switched off, or one another gate on depends on), kubefit warns and honours it."""

from __future__ import annotations

from collections.abc import Mapping

ALL_ON = "AllAlpha=true,AllBeta=true"
# For a run of a feature no release has on by default.
EVERY_GATE = ("--feature-gates", ALL_ON)


def gate_args(gates: Mapping[str, bool] | None = None) -> list[str]:
    """`--feature-gates` for a run with every gate on but `gates`."""
    values = [ALL_ON, *(f"{k}={str(v).lower()}" for k, v in (gates or {}).items())]
    return ["--feature-gates", ",".join(values)]
