"""rules/taints.lp: taints against tolerations, and per-device node reachability."""

from __future__ import annotations

from rules_support import derived

from kubefit.solver.asp import schema as s

FILES = ["taints.lp"]


def _tainted(effect: str, *tolerations: tuple[str, str, str, str]) -> list[object]:
    return [
        s.Use(slot=0, device=0),
        s.TaintOn(device=0, taint=0),
        s.TaintDef(taint=0, key="gpu/unhealthy", value="true", effect=effect),
        *(
            s.TolerationFact(slot=0, index=i, key=k, operator=op, value=v, effect=e)
            for i, (k, op, v, e) in enumerate(tolerations)
        ),
    ]


def test_an_untolerated_noschedule_taint_is_violated() -> None:
    assert derived(FILES, _tainted("NoSchedule")) == {"violated(taint(0))"}
    assert derived(FILES, _tainted("NoExecute")) == {"violated(taint(0))"}


def test_effect_none_never_blocks() -> None:
    assert derived(FILES, _tainted("None")) == set()


def test_tolerations_match_as_kubernetes_matches_them() -> None:
    assert derived(FILES, _tainted("NoSchedule", ("gpu/unhealthy", "Equal", "true", ""))) == set()
    assert derived(FILES, _tainted("NoSchedule", ("gpu/unhealthy", "Equal", "false", ""))) != set()
    assert derived(FILES, _tainted("NoSchedule", ("gpu/unhealthy", "Exists", "", "NoSchedule"))) == set()
    assert derived(FILES, _tainted("NoSchedule", ("gpu/unhealthy", "Exists", "", "NoExecute"))) != set()
    assert derived(FILES, _tainted("NoSchedule", ("", "Exists", "", ""))) == set()
    assert derived(FILES, _tainted("NoSchedule", ("", "Equal", "true", ""))) != set()


def test_a_device_this_node_cannot_reach_is_violated() -> None:
    assert derived(FILES, [s.Use(slot=0, device=4), s.Unreachable(device=4)]) == {"violated(unreachable(4))"}
