"""What an input can make kubefit build is bounded, and an item costs what it holds: at most
--max-objects objects (200,000 unless raised) are read, at most 1,000 problems are looked for (and as
many warnings shown), a pod's many claims make models linear in them, and --max-new-nodes adds at
most 256 copies of a template."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rules_support import ENTRY, control, one_slot

from kubefit.cli import main
from kubefit.model.errors import MAX_PROBLEMS, InputError, Problem, ProblemList, capped

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def write(path: Path, docs: list[Any]) -> str:
    path.write_text("\n---\n".join(json.dumps(d) for d in docs), encoding="utf-8")
    return str(path)


def empty_items(count: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": [{}] * count}


# --- objects ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["json", "yaml"])
def test_a_list_of_more_items_than_kubefit_reads_is_refused_as_it_is_read(tmp_path: Path, form: str) -> None:
    path = tmp_path / f"items.{form}"
    if form == "json":
        write(path, [empty_items(2001)])
    else:
        path.write_text("apiVersion: v1\nkind: List\nitems:\n" + "- {}\n" * 2001, encoding="utf-8")
    code, _, err = run("devices", "-f", str(path), "--max-objects", "2000")
    assert code == 2
    assert (
        err
        == f"{path}: holds more than --max-objects (2000) objects (documents and List items): raise it to read them all\n"
    )


def test_documents_count_as_objects_too(tmp_path: Path) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}
    docs = [{**node, "metadata": {"name": f"n{i}"}} for i in range(30)]
    code, _, err = run("devices", "-f", write(tmp_path / "nodes.yaml", docs), "--max-objects", "20")
    assert code == 2 and "more than --max-objects (20)" in err
    one = write(tmp_path / "one.json", docs[:15])
    two = write(tmp_path / "two.json", docs[15:])
    code, _, err = run("devices", "-f", one, "-f", two, "--max-objects", "20")
    assert code == 2 and "the inputs hold more than --max-objects (20) objects" in err
    assert run("devices", "-f", one, "-f", two, "--max-objects", "30", "-o", "json")[0] == 0


# --- problems ----------------------------------------------------------------------------------------------


def test_reading_stops_after_a_thousand_problems(tmp_path: Path) -> None:
    code, _, err = run("devices", "-f", write(tmp_path / "empty.json", [empty_items(5000)]))
    lines = err.splitlines()
    assert code == 2
    # The first thousand, the same message on every object: one line, counted.
    assert len(lines) == 2
    assert lines[0].endswith(
        "apiVersion: Required value: every object needs apiVersion and kind (on 1000 fields: apiVersion, kind)"
    )
    assert lines[-1] == f"kubefit: stopped after {MAX_PROBLEMS} problems: fix these first (there may be more)"


def _bad_names(count: int) -> list[dict[str, Any]]:
    return [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"Node_{i}"}, "spec": {"bogus": i}}
        for i in range(count)
    ]


def test_api_problems_past_a_thousand_are_not_looked_for_and_warnings_are_capped(tmp_path: Path) -> None:
    path = write(tmp_path / "nodes.json", [{"apiVersion": "v1", "kind": "List", "items": _bad_names(1500)}])
    code, _, err = run("allocate", "-f", path, "-o", "json")
    lines = err.splitlines()
    assert code == 0
    unknown = [line for line in lines if 'unknown field "bogus"' in line]
    invalid = [line for line in lines if "metadata.name: warning: Invalid value" in line]
    # Invalid names quote each name: a line each; the unknown field is the same on all: one line, counted.
    assert len(invalid) == MAX_PROBLEMS
    assert unknown == [
        f'{path}:1: Node/Node_0: spec.bogus: warning: unknown field "bogus" '
        f"(on {MAX_PROBLEMS} objects: Node/Node_0, Node/Node_1, Node/Node_2, … and {MAX_PROBLEMS - 3} more)"
    ]
    assert lines.count(f"warning: more warnings than these {MAX_PROBLEMS} are not shown") == 2


def test_validate_says_which_objects_it_did_not_reach(tmp_path: Path) -> None:
    path = write(tmp_path / "nodes.json", [{"apiVersion": "v1", "kind": "List", "items": _bad_names(1500)}])
    code, out, _ = run("validate", "-f", path, "-o", "json")
    report = json.loads(out)
    assert code == 2
    assert len(report["problems"]) == MAX_PROBLEMS + 1 + MAX_PROBLEMS + 1  # errors, warnings, each capped
    checked = [o for o in report["objects"] if "checked" not in o]
    unchecked = [o for o in report["objects"] if o.get("checked") is False]
    assert len(checked) == MAX_PROBLEMS + 1 and len(unchecked) == 1500 - MAX_PROBLEMS - 1
    assert all("valid" not in o for o in unchecked)


def test_problems_are_capped_in_order_with_a_line_that_says_so() -> None:
    errors = [Problem(f"e{i}", file="f", line=i) for i in range(MAX_PROBLEMS + 5)]
    kept = capped(errors)
    assert kept[:-1] == errors[:MAX_PROBLEMS] and "stopped after" in kept[-1].message
    found = ProblemList()
    with pytest.raises(InputError) as raised:
        for p in errors:
            found.add(p)
    assert found.error_count == MAX_PROBLEMS + 1
    assert len(raised.value.problems) == MAX_PROBLEMS + 1
    assert str(raised.value).count("\n") == MAX_PROBLEMS


# --- models ------------------------------------------------------------------------------------------------


def _pod_with_claims(tmp_path: Path, claims: int, devices: int = 4) -> str:
    docs: list[dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
            "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": "s1"},
            "spec": {
                "driver": "gpu.example.com",
                "nodeName": "n1",
                "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                "devices": [{"name": f"d{i}"} for i in range(devices)],
            },
        },
    ]
    request = {"name": "r", "exactly": {"deviceClassName": "gpu"}}
    for i in range(claims):
        docs.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaim",
                "metadata": {"name": f"c{i}", "namespace": "default"},
                "spec": {"devices": {"requests": [request]}},
            }
        )
    container = {
        "name": "c",
        "image": "i",
        "resources": {"claims": [{"name": f"c{i}"} for i in range(claims)]},
    }
    docs.append(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default"},
            "spec": {
                "containers": [container],
                "resourceClaims": [{"name": f"c{i}", "resourceClaimName": f"c{i}"} for i in range(claims)],
            },
        }
    )
    return write(tmp_path / f"pod-{claims}.json", docs)


def _cpsat_constraints(tmp_path: Path, claims: int) -> int:
    model = tmp_path / f"model-{claims}.txt"
    code, _, err = run(
        "allocate", "-f", _pod_with_claims(tmp_path, claims), "--engine", "cpsat", "--dump-model", str(model)
    )
    assert code == 1, err  # more claims than devices
    return len(re.findall(r"^constraints \{", model.read_text(encoding="utf-8"), re.M))


def test_a_pods_many_claims_make_a_cpsat_model_linear_in_them(tmp_path: Path) -> None:
    small, large = _cpsat_constraints(tmp_path, 60), _cpsat_constraints(tmp_path, 120)
    assert large < 2.5 * small  # pairwise exclusions would make it four times as large


def _ground_rules(slots: int, devices: int = 4) -> int:
    facts = [fact for i in range(slots) for fact in one_slot(devices, claim=i, slot=i)[1 if i else 0 :]]
    ctl = control(ENTRY, facts)
    ctl.solve()
    return int(ctl.statistics["problem"]["lp"]["rules"])


def test_a_pods_many_claims_ground_rules_linear_in_them() -> None:
    small, large = _ground_rules(60), _ground_rules(120)
    assert large < 2.5 * small


def test_a_pod_with_a_thousand_claims_is_planned(tmp_path: Path) -> None:
    code, out, _ = run("plan", "-f", _pod_with_claims(tmp_path, 1000), "-o", "json", "--time-limit", "30")
    assert code == 1
    (pod,) = [i for i in json.loads(out)["items"] if i["kind"] == "Pod"]
    assert "nodeName" not in pod["spec"]


def test_new_nodes_are_at_most_256() -> None:
    template = EXAMPLES / "templates" / "a100-node.yaml"
    args = ("plan", "-f", str(EXAMPLES / "mig-batch"), "--node-template", str(template), "--max-new-nodes")
    code, out, err = run(*args, "1000000")
    assert (code, out) == (2, "")
    assert err == "--max-new-nodes 1000000: from 0 to 256\n"


# --- large YAML documents -----------------------------------------------------------------------------------

BIG_NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nspec:\n  podCIDRs:\n" + "  - 10.0.0.0/24\n" * 300


def test_a_yaml_document_past_the_recorded_events_reads_as_usual(monkeypatch: pytest.MonkeyPatch) -> None:
    from kubefit.translate.reading import yaml_events, yaml_source

    whole = [d.data for d in yaml_source.read_documents(BIG_NODE, "f") if not isinstance(d, Problem)]
    monkeypatch.setattr(yaml_events, "RECORDED_EVENTS", 50)
    cut = [d.data for d in yaml_source.read_documents(BIG_NODE, "f") if not isinstance(d, Problem)]
    assert cut == whole and len(cut[0]["spec"]["podCIDRs"]) == 300


def test_a_large_yaml_document_that_needs_pyyamls_composer_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kubefit.translate.reading import yaml_events, yaml_source

    monkeypatch.setattr(yaml_events, "RECORDED_EVENTS", 50)
    (problem,) = yaml_source.read_documents(BIG_NODE + "  taints: !!null\n", "f")
    assert isinstance(problem, Problem)
    assert "a document of more than 50 YAML nodes with a tag" in problem.message


def test_a_problem_deep_in_a_huge_yaml_object_is_located_at_what_is_known(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kubefit.translate.reading import yaml_reference

    path = tmp_path / "node.yaml"
    path.write_text(BIG_NODE + "  bogus: 1\n", encoding="utf-8")
    assert ":306: Node/a: spec.bogus: warning" in run("validate", "-f", str(path), "-o", "json")[2]
    monkeypatch.setattr(yaml_reference, "LOCATED_SPAN", 100)  # not read again: the line of spec
    assert ":4: Node/a: spec.bogus: warning" in run("validate", "-f", str(path), "-o", "json")[2]
