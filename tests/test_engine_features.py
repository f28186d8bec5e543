"""Which problem features an engine must model (engines.check_supported): every engine models all of them,
so the check does not read the problem; were one to lack a feature, the check names it."""

from __future__ import annotations

import random

import pytest
from problem_strategies import generated_problem

from kubefit.model.errors import KubefitError
from kubefit.solver import engines
from kubefit.solver.engines import ENGINE_FEATURES, check_supported, used_features


def test_what_a_problem_uses_is_among_the_features_engines_name() -> None:
    seen: set[str] = set()
    for seed in range(300):
        used = used_features(generated_problem(random.Random(seed)))
        assert used <= ENGINE_FEATURES
        seen |= used
    assert len(seen) >= 10  # the generated problems use most features: the check above is not empty


@pytest.mark.parametrize("name", ["greedy", "cpsat", "asp"])
def test_every_engine_models_every_feature(name: str) -> None:
    assert engines.get(name).supports() == ENGINE_FEATURES


def test_an_engine_without_a_feature_the_problem_uses_is_refused() -> None:
    problem = next(
        p
        for p in (generated_problem(random.Random(seed)) for seed in range(300))
        if "PartitionableDevices" in used_features(p)
    )

    class Partial:
        name = "partial"

        def supports(self) -> frozenset[str]:
            return ENGINE_FEATURES - {"PartitionableDevices"}

    with pytest.raises(KubefitError, match="does not support PartitionableDevices"):
        check_supported(Partial(), problem)  # type: ignore[arg-type]
