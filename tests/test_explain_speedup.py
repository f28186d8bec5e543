"""Nodes explained alike (`explain.classes`): a node whose signature matches an earlier node's takes that
node's facts with its own names put in, and its reasons share what they can. The explanations must be
exactly those of every node explained on its own: on random problems copied onto many nodes (renamed
pools, devices and attribute values, some copies changed a little), on each kind of difference a
signature has to tell apart, and on the MIG fleet the benchmarks generate."""

from __future__ import annotations

import random
from dataclasses import fields, replace
from fractions import Fraction
from typing import Any

import pytest
from benchmark_modules import benchmark_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from node_copies import copies, twin
from problem_strategies import claim, device, exact, generated_problem, node_view, problem, string, uses

from kubefit.model.problem import (
    Claim,
    Constraint,
    Device,
    InUse,
    NodeView,
    PoolView,
    Problem,
    Request,
    Slot,
    Unit,
)
from kubefit.model.solution import Status
from kubefit.model.terms import Taint
from kubefit.solver.asp.facts import TooLarge, gather
from kubefit.solver.asp.gathered import NodeFacts
from kubefit.solver.dra import AllocationError
from kubefit.solver.engines import Budget
from kubefit.solver.explain import Explainer, Options, UnitExplanation, explain
from kubefit.solver.explain.classes import NodeClasses
from kubefit.solver.greedy import GreedyEngine
from kubefit.translate.dra.build import build

STEPS = Budget(steps=20_000)

# --- the same explanations -----------------------------------------------------------------------------


def _both(p: Problem, holders: dict[str, list[str]]) -> tuple[list[UnitExplanation], list[UnitExplanation]]:
    solution = GreedyEngine().solve(p, STEPS)
    alike = Explainer(p, solution, holders, options=Options(steps=STEPS.steps)).run()
    alone = Explainer(p, solution, holders, options=Options(steps=STEPS.steps, alike=False)).run()
    return alike, alone


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.integers(min_value=2, max_value=6), st.booleans())
def test_nodes_explained_alike_get_the_explanations_each_gets_on_its_own(
    rng: random.Random, count: int, twins: bool
) -> None:
    p, holders = copies(generated_problem(rng), count, rng)
    if twins:
        p = twin(p)
    if any(u.status == Status.UNKNOWN for u in GreedyEngine().solve(p, STEPS).units):
        return
    alike, alone = _both(p, holders)
    assert alike == alone


def _facts(nf: NodeFacts) -> dict[str, Any]:
    return {f.name: getattr(nf, f.name) for f in fields(nf) if f.name != "allocator"}


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.integers(min_value=2, max_value=5), st.booleans())
def test_a_node_signed_like_an_earlier_one_gets_the_facts_gathering_gives_it(
    rng: random.Random, count: int, changes: bool
) -> None:
    p, holders = copies(generated_problem(rng), count, rng, changes)
    unit = p.units[0]
    claims = [p.claims[c] for c in unit.claims if not p.claims[c].allocated]
    call = NodeClasses(p).call(claims, p.in_use, holders)
    for node in unit.nodes:
        signed = call.sign(p.views[node])
        try:
            nf = gather(p, p.views[node], claims, p.in_use, holders, first_fit=False, canonical=True)
        except (AllocationError, TooLarge):
            assert signed is None or call.representative(signed) is None
            continue
        if signed is None:
            continue
        representative = call.representative(signed)
        if representative is None:
            if not nf.hazards:
                call.keep(signed, nf)
            continue
        assert _facts(call.derive(representative, signed)) == _facts(nf)


def test_every_copy_of_a_node_takes_its_facts_from_the_first() -> None:
    for seed in range(20):
        rng = random.Random(seed)
        p, holders = copies(generated_problem(rng), 4, rng, changes=False)
        unit = p.units[0]
        claims = [p.claims[c] for c in unit.claims if not p.claims[c].allocated]
        call = NodeClasses(p).call(claims, p.in_use, holders)
        first = call.sign(p.views["copy-0"])
        if first is None:
            continue
        for node in ("copy-1", "copy-2", "copy-3"):
            signed = call.sign(p.views[node])
            assert signed is not None and signed.key == first.key, (seed, node)


# --- each kind of difference -----------------------------------------------------------------------------

UUID = "driver-a/uuid"


def _gpus(node: str, uuids: list[str], **changes: Any) -> list[Device]:
    """Two GPUs' partitions on one node: a whole one and two halves each, on the GPU's counter set."""
    out = []
    for g, uuid in enumerate(uuids):
        for part, amount in (("whole", 2), ("half-0", 1), ("half-1", 1)):
            out.append(
                device(
                    0,
                    name=f"gpu-{g}-{part}",
                    pool=node,
                    attrs={UUID: string(uuid), "driver-a/part": string(part.split("-")[0])},
                    consumes=[uses(f"gpu-{g}", mem=amount)],
                )
            )
    return [replace(d, **changes.get(d.name, {})) for d in out]


def _node_pair(first: list[Device], second: list[Device], **view: Any) -> Problem:
    """Two nodes with those devices, a claim for two devices on one GPU: a whole one and a half (the
    counters forbid it), the whole one selected by its part attribute."""
    devices = [replace(d, id=i) for i, d in enumerate([*first, *second])]
    views = []
    for node, group in (("node-1", devices[: len(first)]), ("node-2", devices[len(first) :])):
        v = node_view(group, node)
        pools = tuple(
            replace(pool, counter_sets={f"gpu-{g}": {"mem": Fraction(2)} for g in range(2)})
            for pool in v.pools
        )
        views.append(replace(v, pools=pools, **(view if node == "node-2" else {})))
    c = claim(
        0,
        exact("whole"),
        exact("half"),
        constraints=[Constraint("match", UUID)],
    )
    selectable = {
        ((0, r, 0), d.id): d.attributes["driver-a/part"].values[0] == part
        for r, part in ((0, "whole"), (1, "half"))
        for d in devices
    }
    return problem(
        devices,
        [c],
        views=views,
        selectable=selectable,
        units=[Unit(0, "pod-0", (0,), ("node-1", "node-2"))],
    )


SAME = ["GPU-a", "GPU-b"]
CASES = [
    pytest.param(_node_pair(_gpus("n1", SAME), _gpus("n2", ["GPU-c", "GPU-d"])), True, id="other UUIDs"),
    pytest.param(
        _node_pair(_gpus("n1", SAME), _gpus("n2", ["GPU-z", "GPU-d"])),
        True,
        id="other UUIDs that sort another way",
    ),
    pytest.param(
        _node_pair(_gpus("n1", SAME), _gpus("n2", ["GPU-c", "GPU-c"])),
        False,
        id="one UUID for both GPUs",
    ),
    pytest.param(
        _node_pair(_gpus("n1", SAME), _gpus("n2", SAME, **{"gpu-1-whole": {"name": "gpu-9-whole"}})),
        False,
        id="a device of another name",
    ),
    pytest.param(
        _node_pair(
            _gpus("n1", SAME), _gpus("n2", SAME, **{"gpu-1-half-0": {"consumes": (uses("gpu-1", mem=2),)}})
        ),
        False,
        id="a device that draws more",
    ),
    pytest.param(
        _node_pair(
            _gpus("n1", SAME),
            _gpus("n2", SAME, **{"gpu-0-whole": {"taints": (Taint("t", "", "NoSchedule"),)}}),
        ),
        False,
        id="a tainted device",
    ),
    pytest.param(
        _node_pair(_gpus("n1", SAME), _gpus("n2", SAME), unreachable=frozenset({7})),
        False,
        id="a device the node cannot reach",
    ),
]


@pytest.mark.parametrize(("p", "alike"), CASES)
def test_a_node_is_explained_alike_only_when_its_differences_are_names(p: Problem, alike: bool) -> None:
    claims = list(p.claims)
    call = NodeClasses(p).call(claims, p.in_use, {})
    first, second = call.sign(p.views["node-1"]), call.sign(p.views["node-2"])
    assert first is not None and second is not None
    assert (first.key == second.key) == alike
    explained, alone = _both(p, {})
    assert explained == alone


def test_a_node_held_by_a_claim_of_another_name_is_explained_on_its_own() -> None:
    p = _node_pair(_gpus("n1", SAME), _gpus("n2", SAME))
    held = [p.devices[0].ref, p.devices[6].ref]
    p = replace(p, in_use=InUse(frozenset(held)))
    holders = {held[0]: ["default/a"], held[1]: ["default/b"]}
    call = NodeClasses(p).call(list(p.claims), p.in_use, holders)
    first, second = call.sign(p.views["node-1"]), call.sign(p.views["node-2"])
    assert first is not None and second is not None and first.key != second.key
    explained, alone = _both(p, holders)
    assert explained == alone


def _two_pods(p: Problem) -> Problem:
    """`p` with a second pod whose claim is the first pod's under another name."""
    other = replace(p.claims[0], id=1, name="claim-other")
    selectable = {**p.selectable, **{((1, *key[1:]), d): v for (key, d), v in p.selectable.items()}}
    units = (*p.units, Unit(1, "pod-1", (1,), p.units[0].nodes))
    return replace(p, claims=(*p.claims, other), selectable=selectable, units=units)


def test_a_later_pod_whose_claims_look_the_same_takes_the_facts_the_first_gathered() -> None:
    p = _two_pods(_node_pair(_gpus("n1", SAME), _gpus("n2", ["GPU-c", "GPU-d"])))
    classes = NodeClasses(p)
    first = classes.call([p.claims[0]], p.in_use, {})
    signed = first.sign(p.views["node-1"])
    assert signed is not None and first.representative(signed) is None
    first.keep(
        signed, gather(p, p.views["node-1"], [p.claims[0]], p.in_use, {}, first_fit=False, canonical=True)
    )
    later = classes.call([p.claims[1]], p.in_use, {})
    for node in ("node-1", "node-2"):
        again = later.sign(p.views[node])
        assert again is not None
        representative = later.representative(again)
        assert representative is not None
        nf = gather(p, p.views[node], [p.claims[1]], p.in_use, {}, first_fit=False, canonical=True)
        assert _facts(later.derive(representative, again)) == _facts(nf)
    explained, alone = _both(p, {})
    assert explained == alone
    assert [u.fits for u in explained] == [False, False]


# --- the MIG fleet ---------------------------------------------------------------------------------------


def _pod(gen: Any, name: str, spec: dict[str, Any], cpu: str = "1") -> list[dict[str, Any]]:
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": gen.NAMESPACE},
        "spec": {"spec": spec},
    }
    pod = benchmark_module("cluster")._pod(name, gen.NAMESPACE, "c", name)
    pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = cpu
    return [template, pod]


def _profile(gen: Any, profile: str, count: int = 1) -> dict[str, Any]:
    expression = f'device.attributes["{gen.GPU_DRIVER}"].profile == "{profile}"'
    return {
        "deviceClassName": gen.MIG_CLASS,
        "count": count,
        "selectors": [{"cel": {"expression": expression}}],
    }


def _fleet_pods(gen: Any) -> list[Any]:
    parent = f"{gen.GPU_DRIVER}/parentUUID"
    specs = {
        "no-such-profile": {"devices": {"requests": [{"name": "mig", "exactly": _profile(gen, "5g.60gb")}]}},
        "two-7g-on-one-gpu": {
            "devices": {
                "requests": [{"name": "mig", "exactly": _profile(gen, "7g.80gb", 2)}],
                "constraints": [{"requests": ["mig"], "matchAttribute": parent}],
            }
        },
        "7g-and-1g-on-one-gpu": {
            "devices": {
                "requests": [
                    {"name": "big", "exactly": _profile(gen, "7g.80gb")},
                    {"name": "small", "exactly": _profile(gen, "1g.10gb")},
                ],
                "constraints": [{"requests": ["big", "small"], "matchAttribute": parent}],
            }
        },
        "nine-gpus": {
            "devices": {
                "requests": [{"name": "gpus", "exactly": {"deviceClassName": gen.GPU_DRIVER, "count": 9}}]
            }
        },
    }
    return [pytest.param(name, spec, id=name) for name, spec in specs.items()]


@pytest.fixture(scope="module")
def mig() -> Any:
    return benchmark_module("generate")


@pytest.mark.parametrize(("name", "spec"), _fleet_pods(benchmark_module("generate")))
@pytest.mark.parametrize("busy", [0.0, 0.5])
def test_a_pod_pending_on_a_mig_fleet_gets_the_same_explanation_node_by_node(
    mig: Any, name: str, spec: dict[str, Any], busy: float
) -> None:
    cluster = mig.mig_cluster(5, gpus=2, seed=7, busy=busy)
    docs = [*cluster, benchmark_module("cluster").namespace(mig.NAMESPACE), *_pod(mig, name, spec)]
    built = build(benchmark_module("cluster").load_docs(docs))
    solution = GreedyEngine().solve(built.problem, STEPS)
    assert all(u.status != Status.ALLOCATED for u in solution.units)
    alike = explain(built, solution, Options(steps=STEPS.steps))
    alone = explain(built, solution, Options(steps=STEPS.steps, alike=False))
    assert alike == alone
    (unit,) = alike
    assert len(unit.nodes) == 5 and all(n.verdict != "fits" for n in unit.nodes)


# --- what a signature must account for ------------------------------------------------------------------

# A new field of these is either named in a node's signature (`classes.Call.sign` and `keys`) or carried
# over by `Call.derive`, or shown to be harmless there; then listed here.
KNOWN = {
    NodeFacts: {
        "problem",
        "view",
        "claims",
        "in_use",
        "allocator",
        "slots",
        "devices",
        "pools",
        "counter_sets",
        "holders",
        "taints",
        "constraints",
        "capacities",
        "shares",
        "candidates",
        "rank",
        "texts",
        "facts",
        "hazards",
    },
    Device: {
        "id",
        "driver",
        "pool",
        "name",
        "slice",
        "generation",
        "attributes",
        "capacity",
        "consumes",
        "taints",
        "binding_conditions",
        "binding_failure_conditions",
        "binds_to_node",
        "allow_multiple_allocations",
        "placement",
        "per_device_node_selection",
        "skip_node_operations",
        "node_allocatable",
    },
    PoolView: {
        "driver",
        "pool",
        "state",
        "generation",
        "reason",
        "devices",
        "counter_sets",
        "counter_devices",
    },
    NodeView: {"node", "pools", "unreachable", "error"},
    # pod_group: whom the scheduler reserves the claim for, which no node's facts read; status: an allocated
    # claim's binding and node operations, which the checks before DRA read (never a node's facts).
    Claim: {
        "id",
        "namespace",
        "name",
        "requests",
        "constraints",
        "allocated",
        "allocated_selector",
        "pod_group",
        "status",
    },
    Request: {"name", "slots", "first_available"},
    Slot: {
        "name",
        "parent",
        "device_class",
        "class_exists",
        "mode",
        "count",
        "admin_access",
        "tolerations",
        "capacity_requests",
        "selectors_without_cel",
        "derived",
    },
}


@pytest.mark.parametrize("kind", list(KNOWN), ids=lambda k: k.__name__)
def test_signatures_account_for_every_field_of_what_they_read(kind: type) -> None:
    assert {f.name for f in fields(kind)} == KNOWN[kind]
