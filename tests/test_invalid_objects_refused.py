"""Invalid Pods, Nodes and the objects whose integers the scheduler reads never change an answer: what the
API server refuses is reported by `validate` (exit 2, one line per problem), and what the answer is
computed from (negative or fractional amounts, requests above limits, claims that name nothing, integers
past their Go type, quantities that do not decode) is refused by `allocate`, `explain` and `plan` too.
Issue 24, class 1, and two of class 9's points."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubefit.cli import main

NODE = """\
apiVersion: v1
kind: Node
metadata: {name: node-1}
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
"""
PENDING = """\
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default}
spec:
  containers:
  - name: main
    image: registry.example/app:1
    resources:
      requests: {cpu: "50", memory: 1000Gi}
"""


def running(requests: str, extra: str = "") -> str:
    return f"""\
apiVersion: v1
kind: Pod
metadata: {{name: running, namespace: default}}
spec:
  nodeName: node-1
  containers:
  - name: main
    image: registry.example/app:1
    resources:
      {requests}
{extra}status: {{phase: Running}}
"""


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], verb: str, *docs: str) -> tuple[int, str]:
    path = tmp_path / "in.yaml"
    path.write_text("---\n".join(docs))
    code = main([verb, "-f", str(path), "-o", "json"])
    _, err = capsys.readouterr()
    return code, err.replace(str(path), "in.yaml")


# (case, the bad object (first in the file), the line every verb prints)
REFUSED = [
    (
        "a running pod's negative request",
        running('requests: {cpu: "-100"}'),
        'in.yaml:10: Pod/default/running: spec.containers[0].resources.requests[cpu]: Invalid value: "-100": '
        "must be greater than or equal to 0",
    ),
    (
        "a negative limit",
        running("limits: {memory: -1Gi}"),
        'in.yaml:10: Pod/default/running: spec.containers[0].resources.limits[memory]: Invalid value: "-1Gi": '
        "must be greater than or equal to 0",
    ),
    (
        "a request above its limit",
        running('limits: {cpu: "2"}\n      requests: {cpu: "3"}'),
        'in.yaml:11: Pod/default/running: spec.containers[0].resources.requests: Invalid value: "3": must be '
        "less than or equal to cpu limit of 2",
    ),
    (
        "a fractional extended resource",
        running('limits: {example.com/gpu: "0.5"}'),
        "in.yaml:10: Pod/default/running: spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "
        "500m: must be an integer",
    ),
    (
        "a claim the pod does not have",
        running("claims: [{name: gpu}]"),
        'in.yaml:10: Pod/default/running: spec.containers[0].resources.claims[0]: Not found: "gpu": must be '
        "one of the names in pod.spec.resourceClaims which is empty",
    ),
    (
        "a quantity that does not decode",
        running("requests: {cpu: lots}"),
        'in.yaml:10: Pod/default/running: spec.containers[0].resources.requests[cpu]: Invalid value: "lots": '
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ),
    (
        "a priority past int32",
        running('requests: {cpu: "1"}', "  priority: 2147483648\n"),
        "in.yaml:11: Pod/default/running: spec.priority: json: cannot unmarshal number 2147483648 into Go "
        "struct field PodSpec.spec.priority of type int32",
    ),
    (
        "tolerationSeconds past int64",
        running(
            'requests: {cpu: "1"}',
            "  tolerations: [{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 9223372036854775808}]\n",
        ),
        "in.yaml:11: Pod/default/running: spec.tolerations[0].tolerationSeconds: json: cannot unmarshal number "
        "9223372036854775808 into Go struct field Toleration.spec.tolerations.tolerationSeconds of type int64",
    ),
    (
        "a node's negative capacity",
        NODE.replace('cpu: "4", memory', 'cpu: "-4", memory', 1),
        'in.yaml:5: Node/node-1: status.capacity[cpu]: Invalid value: "-4": must be greater than or equal to 0',
    ),
    (
        "a node's fractional pod count",
        NODE.replace('pods: "110"}\n  allocatable', 'pods: "1.5"}\n  allocatable'),
        "in.yaml:5: Node/node-1: status.capacity[pods]: Invalid value: 1500m: must be an integer",
    ),
    (
        "a PriorityClass value past int32",
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: huge}\nvalue: 4294967296\n",
        "in.yaml:4: PriorityClass/huge: value: json: cannot unmarshal number 4294967296 into Go struct field "
        "PriorityClass.value of type int32",
    ),
    (
        "a PodDisruptionBudget's count past int32",
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb, namespace: default}\n"
        "spec: {minAvailable: 1, selector: {matchLabels: {app: x}}}\n"
        "status: {disruptionsAllowed: 2147483648, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1}\n",
        "in.yaml:5: PodDisruptionBudget/default/pdb: status.disruptionsAllowed: json: cannot unmarshal number "
        "2147483648 into Go struct field PodDisruptionBudgetStatus.status.disruptionsAllowed of type int32",
    ),
    (
        "a PodGroup's gang past int32",
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: gang, namespace: default}\n"
        "spec: {schedulingPolicy: {gang: {minCount: 2147483648}}}\n",
        "in.yaml:4: PodGroup/default/gang: spec.schedulingPolicy.gang.minCount: json: cannot unmarshal number "
        "2147483648 into Go struct field GangSchedulingPolicy.spec.schedulingPolicy.gang.minCount of type int32",
    ),
    (
        "a Deployment's pod template",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n"
        "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n"
        "      containers:\n      - name: main\n        image: registry.example/app:1\n"
        '        resources: {requests: {cpu: "-1"}}\n',
        "in.yaml:12: Deployment/default/web: spec.template.spec.containers[0].resources.requests[cpu]: Invalid "
        'value: "-1": must be greater than or equal to 0',
    ),
]


@pytest.mark.parametrize(("case", "bad", "line"), REFUSED, ids=[c[0] for c in REFUSED])
@pytest.mark.parametrize("verb", ["validate", "allocate", "explain", "plan"])
def test_every_verb_refuses_with_the_api_servers_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], verb: str, case: str, bad: str, line: str
) -> None:
    docs = [bad, PENDING] if "kind: Node\n" in bad else [bad, NODE, PENDING]
    code, err = run(tmp_path, capsys, verb, *docs)
    assert code == 2, err
    assert line in err.splitlines(), err


def test_a_negative_request_no_longer_makes_room(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Without the running pod's -100 CPUs, the 50-CPU pod fits nowhere: exit 1. With them, it is refused.
    code, _ = run(tmp_path, capsys, "allocate", NODE, PENDING)
    assert code == 1
    code, err = run(
        tmp_path, capsys, "allocate", running('requests: {cpu: "-100", memory: -1000Gi}'), NODE, PENDING
    )
    assert code == 2
    assert "must be greater than or equal to 0" in err


def test_what_the_scheduler_counts_as_written_is_only_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An extended resource without a limit is refused by the API server, but its request is what the scheduler
    # counts: validate refuses it, allocate answers with a warning (--strict refuses).
    bad = running('requests: {cpu: "1", example.com/gpu: "1"}')
    line = (
        "in.yaml:9: Pod/default/running: spec.containers[0].resources.limits: Required value: Limit must be "
        "set for non overcommitable resources"
    )
    code, err = run(tmp_path, capsys, "validate", bad, NODE)
    assert code == 2 and line in err.splitlines()
    code, err = run(tmp_path, capsys, "allocate", bad, NODE)
    assert code == 0
    assert line.replace("resources.limits: ", "resources.limits: warning: ") in err.splitlines()


def test_a_number_of_five_thousand_digits_is_named_as_the_api_server_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    digits = "9" * 5000
    line = (
        "in.yaml:11: Pod/default/running: spec.priority: json: cannot unmarshal number "
        "99999999999999999999...99999999 (5000 digits) into Go struct field PodSpec.spec.priority of type int32"
    )
    code, err = run(tmp_path, capsys, "validate", running('requests: {cpu: "1"}', f"  priority: {digits}\n"))
    assert code == 2 and err.splitlines() == [line]
    doc = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "running", "namespace": "default"},
        "spec": {"priority": 0, "containers": [{"name": "main", "image": "x"}]},
    }
    path = tmp_path / "in.json"
    path.write_text(json.dumps(doc).replace('"priority": 0', f'"priority": {digits}'))
    code = main(["validate", "-f", str(path), "-o", "json"])
    err = capsys.readouterr().err.replace(str(path), "in.json")
    assert code == 2
    assert err.splitlines() == [line.replace("in.yaml:11", "in.json:1")]


def test_a_value_of_the_wrong_type_at_an_integer_is_named_as_the_api_server_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = "  priority: 1.5\n  tolerations: [{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: x}]\n"
    code, err = run(tmp_path, capsys, "validate", running('requests: {cpu: "1"}', extra))
    assert code == 2
    assert err.splitlines() == [
        "in.yaml:11: Pod/default/running: spec.priority: json: cannot unmarshal number 1.5 into Go struct field "
        "PodSpec.spec.priority of type int32",
        "in.yaml:12: Pod/default/running: spec.tolerations[0].tolerationSeconds: json: cannot unmarshal string "
        "into Go struct field Toleration.spec.tolerations.tolerationSeconds of type int64",
    ]


def test_a_namespace_on_a_cluster_scoped_object_is_cleared_as_the_api_server_clears_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    node = NODE.replace("metadata: {name: node-1}", "metadata: {name: node-1, namespace: default}")
    code, err = run(tmp_path, capsys, "validate", node)
    assert code == 0 and err == ""
    path = tmp_path / "in.yaml"
    main(["validate", "-f", str(path), "-o", "json"])
    report = json.loads(capsys.readouterr().out)
    assert report["objects"] == [
        {"apiVersion": "v1", "kind": "Node", "name": "node-1", "file": str(path), "line": 1, "valid": True}
    ]
