"""What cpsat proved, and who decided: optimal / feasible / infeasible / unknown, never "does not fit"
without a proof; where greedy's search gives up and cpsat decides, the answer says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cluster_manifests import allocate, claim, device_class, events, gpus, items, node
from cpsat_support import cpsat, greedy
from problem_strategies import claim as problem_claim
from problem_strategies import device, exact, problem, string

from kubefit.model.problem import Constraint
from kubefit.model.solution import Proof, Status
from kubefit.solver.cpsat.build import build
from kubefit.solver.cpsat.facts import gather
from kubefit.solver.cpsat.model import fix
from kubefit.solver.cpsat.objective import first_fit
from kubefit.solver.cpsat.solve import Outcome, Runner
from kubefit.solver.engines import Budget


def distinct_conflict(devices: int, values: int, count: int) -> Any:
    """`devices` devices with only `values` distinct models, a claim asking for `count` distinct ones:
    first-fit search tries every combination before it fails."""
    models = [device(i, attrs={"model": string(f"m{i % values}")}) for i in range(devices)]
    c = problem_claim(0, exact(count=count), constraints=[Constraint("distinct", "driver-a/model")])
    return problem(models, [c])


def test_an_allocation_is_optimal_and_nothing_fitting_is_infeasible() -> None:
    assert cpsat(distinct_conflict(4, 2, 2)).units[0].proof == Proof.OPTIMAL
    assert cpsat(distinct_conflict(4, 2, 3)).units[0].proof == Proof.INFEASIBLE
    assert greedy(distinct_conflict(4, 2, 3)).units[0].proof == ""  # greedy proves nothing


def test_where_greedy_gives_up_cpsat_decides_and_says_so() -> None:
    p = distinct_conflict(14, 5, 6)
    budget = Budget(steps=200)
    assert greedy(p, budget).units[0].status == Status.UNKNOWN
    answer = cpsat(p, budget, hint=True).units[0]
    assert (answer.status, answer.proof, answer.decided_by) == (
        Status.UNSATISFIABLE,
        Proof.INFEASIBLE,
        "cpsat",
    )
    assert (
        "first-fit search stopped at its limit" in answer.note
        and "cpsat proved that nothing fits" in answer.note
    )


def test_greedy_stops_at_the_time_limit_inside_a_node_and_at_its_devices_budget() -> None:
    # 60 devices, 4 models, 5 distinct wanted: first-fit search would run for minutes.
    p = distinct_conflict(60, 4, 5)
    answer = greedy(p, Budget(seconds=0.2)).units[0]
    assert answer.status == Status.UNKNOWN
    assert "search stopped at the time limit after" in answer.message
    answer = greedy(p, Budget(devices=500)).units[0]
    assert answer.status == Status.UNKNOWN
    assert "search stopped at its limit of 500 devices tried" in answer.message


def test_a_time_limit_without_a_proof_is_unknown_never_does_not_fit() -> None:
    answer = cpsat(distinct_conflict(4, 2, 3), Budget(seconds=0)).units[0]
    assert (answer.status, answer.proof) == (Status.UNKNOWN, Proof.UNKNOWN)
    assert answer.message.startswith("undecided, not a proof that it does not fit")


def test_an_error_only_the_search_order_can_rule_out_stays_unknown_when_greedy_cannot_finish() -> None:
    """req-1's selector fails on a device, but only after req-0 is placed, which never happens: the
    scheduler answers "does not fit" after exhausting req-0, greedy stops before, and cpsat cannot
    tell which errors the scheduler's search order meets, so it does not guess."""
    models = [device(i, attrs={"model": string(f"m{i % 5}")}) for i in range(14)]
    c = problem_claim(
        0,
        exact("req-0", count=6),
        exact("req-1"),
        constraints=[Constraint("distinct", "driver-a/model", ("req-0",))],
    )
    error = "claim default/claim-0: selector #0 on device driver-a/pool-1/device-0: CEL runtime error"
    p = problem(models, [c], selectable={((0, 1, 0), 0): error})
    assert greedy(p).units[0].status == Status.UNSATISFIABLE
    answer = cpsat(p, Budget(steps=200)).units[0]
    assert (answer.status, answer.proof) == (Status.UNKNOWN, Proof.UNKNOWN)
    assert "CEL runtime error" in answer.message


def test_a_stage_cut_short_by_the_time_limit_leaves_the_incumbent_as_feasible(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first solve found an allocation that is not first-fit's; when the time runs out before the
    stage that would improve it, the allocation stands, proven feasible but not optimal."""
    # Devices of different pools: identical ones would be symmetry-broken to the first one anyway.
    p = problem([device(i, pool=f"pool-{i}") for i in range(3)], [problem_claim(0)])
    nm = build(gather(p, p.views["node-1"], list(p.claims), p.in_use))
    runner = Runner(nm, None)
    avoid = nm.model.new_bool_var("avoid_the_first_device")
    nm.model.add(nm.use[(0, 0)] == 0).only_enforce_if(avoid)
    fix(avoid, 1)
    assert runner.run() == Outcome.OPTIMAL
    fix(avoid, 0)
    monkeypatch.setattr(Runner, "run", lambda self: Outcome.UNKNOWN)
    assert first_fit(runner) == Outcome.FEASIBLE
    assert runner.value(nm.use[(0, 0)]) == 0


# --- on the command line -------------------------------------------------------------------------------------


BASE = [node(), device_class(), gpus(count=2), claim("claim-0")]


def test_the_json_output_carries_the_solver_status(tmp_path: Path) -> None:
    code, result, _ = allocate(tmp_path, BASE, "--engine", "cpsat")
    assert code == 0
    annotations = items(result, "ResourceClaim")["claim-0"]["metadata"]["annotations"]
    assert annotations["kubefit.io/solver-status"] == "optimal"
    code, result, _ = allocate(tmp_path, [*BASE, claim("claim-1", count=2)], "--engine", "cpsat")
    assert code == 1
    (event,) = (i for i in result["items"] if i["kind"] == "Event")
    assert event["metadata"]["annotations"] == {"kubefit.io/solver-status": "infeasible"}


def test_a_time_limit_answers_undecided(tmp_path: Path) -> None:
    code, result, _ = allocate(tmp_path, BASE, "--engine", "cpsat", "--time-limit", "0")
    assert code == 1
    assert events(result)[0].startswith("undecided, not a proof that it does not fit")


def test_objective_and_dump_model_reach_the_engine(tmp_path: Path) -> None:
    model = tmp_path / "model.txt"
    code, _, _ = allocate(
        tmp_path, BASE, "--engine", "cpsat", "--objective", "pack", "--dump-model", str(model)
    )
    assert code == 0
    text = model.read_text(encoding="utf-8")
    assert "use_c0_r0_s0_d0" in text


def test_greedy_takes_no_objective(tmp_path: Path) -> None:
    code, _, err = allocate(tmp_path, BASE, "--objective", "pack")
    assert code == 2
    assert "engine greedy does not take objective" in err


def test_the_table_says_who_decided_where_greedy_gave_up(tmp_path: Path) -> None:
    import contextlib
    import io

    from cluster_manifests import write

    from kubefit.cli import main

    devices = [{"name": f"gpu-{i}", "attributes": {"model": {"string": f"m{i % 3}"}}} for i in range(12)]
    sliced = gpus(count=0)
    sliced["spec"]["devices"] = devices
    wanted = claim("claim-0", count=4)
    wanted["spec"]["devices"]["constraints"] = [{"distinctAttribute": "gpu.example.com/model"}]
    path = write(tmp_path, [node(), device_class(), sliced, wanted])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(
            [
                "allocate",
                "-f",
                str(path),
                "--claims",
                "default/claim-0",
                "--node",
                "node-1",
                "--engine",
                "cpsat",
                "--steps",
                "5",
                "-o",
                "table",
            ]
        )
    assert code == 1
    assert (
        "default/claim-0: decided by cpsat: node node-1: greedy's first-fit search stopped" in out.getvalue()
    )
    assert "cpsat proved that nothing fits" in out.getvalue()
