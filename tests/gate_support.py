"""Feature gates as the scenario runner passes them: every gate on (AllAlpha and AllBeta, when kubefit
lists them) plus a case's own, in the newest release that accepts that setting (a gate locked in the
newest release, or one another gate on depends on, can only be switched off in an older one)."""

from __future__ import annotations

from collections.abc import Mapping

from kubefit.errors import InputError
from kubefit.features import release_gates
from kubefit.gate_specs import RELEASES

ALL_ON = "AllAlpha=true,AllBeta=true"
# For a run of a feature no release has on by default.
EVERY_GATE = ("--feature-gates", ALL_ON)


def release_for(gates: Mapping[str, bool]) -> str:
    """The newest release kubefit carries that accepts every gate on but `gates`."""
    for version in reversed(RELEASES):
        try:
            release_gates({"AllAlpha": True, "AllBeta": True, **gates}, version)
        except InputError:
            continue
        return version
    raise AssertionError(f"no release kubefit carries accepts {dict(gates)}")


def gate_args(gates: Mapping[str, bool] | None = None) -> list[str]:
    """`--feature-gates` (and `--emulated-version` where the newest release refuses them) for a run with
    every gate on but `gates`."""
    gates = dict(gates or {})
    values = ",".join([ALL_ON, *(f"{k}={str(v).lower()}" for k, v in gates.items())])
    version = release_for(gates)
    return ["--feature-gates", values] + (["--emulated-version", version] if version != RELEASES[-1] else [])
