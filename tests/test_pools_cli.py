"""`kubefit pools` on the bundled GPU example: the table, the List, filters, and bad flags (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kubefit.cli import main

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "gpu-mig"
TYPE = "gpu.nvidia.com/type"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["pools", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def placed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example after kube-scheduler placed its pending pods: the claims with their allocations."""
    path = tmp_path_factory.mktemp("placed") / "placed.yaml"
    with pytest.MonkeyPatch.context() as mp:
        lines: list[str] = []
        mp.setattr("sys.stdout.write", lines.append)
        assert main(["allocate", "-f", str(EXAMPLE), "-o", "yaml"]) == 0
    path.write_text("".join(lines))
    return path


def test_the_example_before_anything_is_placed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-f", str(EXAMPLE), "-o", "table")
    assert code == 0
    assert out == (
        "DRIVER           POOL         NODE         GENERATION   SLICES   TOTAL   ALLOCATED   AVAILABLE   UNAVAILABLE\n"
        "gpu.nvidia.com   gpu-node-1   gpu-node-1   1            2        30      0           30          0\n"
        "gpu.nvidia.com   gpu-node-2   gpu-node-2   1            2        30      0           30          0\n"
    )


def test_what_is_left_once_the_pods_are_placed(capsys: pytest.CaptureFixture[str], placed: Path) -> None:
    # The trainer holds gpu-0 of gpu-node-1, a 3g.40gb and a 1g.10gb sit on its gpu-1: of gpu-1's free
    # memory slices 5-7 only two 1g.10gb placements remain (slice 7 starts none).
    args = [
        "-f",
        str(EXAMPLE / "cluster.yaml"),
        "-f",
        str(placed),
        "--default-partition-type-attribute",
        TYPE,
    ]
    code, out, _ = run(capsys, *args, "-o", "table")
    assert code == 0
    assert out.split("\n\n")[1] == (
        "POOL                        PARTITION ATTRIBUTE   TYPE   TOTAL   ALLOCATABLE\n"
        "gpu.nvidia.com/gpu-node-1   gpu.nvidia.com/type   gpu    2       0\n"
        "gpu.nvidia.com/gpu-node-1   gpu.nvidia.com/type   mig    28      2\n"
        "gpu.nvidia.com/gpu-node-2   gpu.nvidia.com/type   gpu    2       2\n"
        "gpu.nvidia.com/gpu-node-2   gpu.nvidia.com/type   mig    28      14\n"
    )
    code, out, _ = run(capsys, *args, "--pool", "gpu-node-1", "-o", "json")
    doc = json.loads(out)
    (item,) = doc["items"]
    assert item["kind"] == "ResourcePoolStatusRequest" and item["apiVersion"] == "resource.k8s.io/v1alpha3"
    assert item["spec"] == {
        "driver": "gpu.nvidia.com",
        "poolName": "gpu-node-1",
        "defaultPartitionTypeAttribute": TYPE,
    }
    (pool,) = item["status"]["pools"]
    assert (pool["allocatedDevices"], pool["availableDevices"]) == (3, 27)
    together = json.loads(item["metadata"]["annotations"]["kubefit.io/allocatable-devices"])
    assert together[f"{TYPE}=mig"] == ["gpu-1-mig-1g-10gb-19-5", "gpu-1-mig-1g-10gb-19-6"]


def test_yaml_is_the_same_list(capsys: pytest.CaptureFixture[str]) -> None:
    _, as_json, _ = run(capsys, "-f", str(EXAMPLE), "-o", "json")
    _, as_yaml, _ = run(capsys, "-f", str(EXAMPLE), "-o", "yaml")
    assert yaml.safe_load(as_yaml) == json.loads(as_json)


def test_upstreams_error_when_a_partition_lacks_the_attribute(capsys: pytest.CaptureFixture[str]) -> None:
    # The whole GPUs of the example carry no profile, so grouping by profile is refused as upstream does.
    code, out, _ = run(
        capsys,
        "-f",
        str(EXAMPLE),
        "--default-partition-type-attribute",
        "gpu.nvidia.com/profile",
        "-o",
        "table",
    )
    assert code == 0
    assert (
        'gpu.nvidia.com/gpu-node-1: PartitionTypeMissing: device "gpu-0" in pool gpu.nvidia.com/gpu-node-1 does '
        'not carry partition type attribute "gpu.nvidia.com/profile"\n'
    ) in out


def test_a_filter_that_matches_nothing_is_an_empty_answer(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "-f", str(EXAMPLE), "--driver", "nic.example.com", "-o", "table")
    assert (code, out, err) == (0, "No pools.\n", "")
    code, out, _ = run(capsys, "-f", str(EXAMPLE), "--pool", "elsewhere", "-o", "json")
    assert (code, json.loads(out)) == (0, {"apiVersion": "v1", "kind": "List", "items": []})


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--limit", "0"], "--limit: spec.limit: Invalid value: 0: must be at least 1"),
        (["--limit", "1001"], "--limit: spec.limit: Invalid value: 1001: must not exceed 1000"),
        (["--limit", "many"], "kubefit pools: argument --limit: invalid int value: 'many'"),
        (
            ["--pool", "Node_1"],
            '--pool: spec.poolName: Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower '
            "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
            "(e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*"
            "[a-z0-9])?)*')",
        ),
        (
            ["--default-partition-type-attribute", "profile"],
            '--default-partition-type-attribute: spec.defaultPartitionTypeAttribute: Invalid value: "profile": a '
            "fully qualified name must be a domain and a name separated by a slash",
        ),
    ],
)
def test_bad_flags_are_bad_input(capsys: pytest.CaptureFixture[str], flags: list[str], message: str) -> None:
    code, out, err = run(capsys, "-f", str(EXAMPLE), *flags)
    assert (code, out, err) == (2, "", message + "\n")
