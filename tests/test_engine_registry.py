"""The one engine registry: every verb's engines come from it, and an engine asked for something it does
not do is refused out loud, never replaced by another."""

from __future__ import annotations

import pytest

from kubefit.model.errors import InputError, KubefitError
from kubefit.solver import engines, registry


def test_every_name_has_a_dra_and_an_admission_engine_of_that_name() -> None:
    assert registry.names() == ["asp", "cpsat", "greedy"]
    for name in registry.names():
        assert engines.get(name).name == name
        assert registry.node(name).name == name


def test_the_planners_are_kube_schedulers_pass_and_the_model() -> None:
    assert registry.plan_names() == ["greedy", "cpsat"]
    assert (registry.planner("greedy"), registry.planner("cpsat")) == ("pass", "model")
    with pytest.raises(KubefitError, match="engine 'asp' does not plan"):
        registry.planner("asp")


@pytest.mark.parametrize("text", ["greedy", "greedy,greedy", "greedy,asp", "greedy,cpsat,greedy", ""])
def test_compare_takes_two_different_planning_engines(text: str) -> None:
    with pytest.raises(InputError, match="two of greedy, cpsat"):
        registry.plan_pair(text)


def test_compare_keeps_the_order_given() -> None:
    assert registry.plan_pair(" cpsat , greedy ") == ["cpsat", "greedy"]


def test_only_the_model_plans_capacity() -> None:
    registry.check_capacity("cpsat")
    with pytest.raises(InputError, match="--node-template plans capacity, which needs --engine cpsat"):
        registry.check_capacity("greedy")


def test_unknown_names_are_refused_with_the_names_there_are() -> None:
    with pytest.raises(KubefitError, match=r"unknown engine 'minizinc' \(available: asp, cpsat, greedy\)"):
        engines.get("minizinc")
    with pytest.raises(KubefitError, match=r"available for admit: asp, cpsat, greedy"):
        registry.node("minizinc")
