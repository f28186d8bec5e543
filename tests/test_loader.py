"""Reading objects: files, directories, stdin, lists, versions, and one precise line per problem."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pytest

from kubefit.model.errors import InputError
from kubefit.translate.loader import load, load_text

DATA = Path(__file__).parent / "data"

SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: s1
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    capacity:
      memory: {value: 80Gi}
"""


def problems_of(text: str, **kwargs: bool) -> list[str]:
    with pytest.raises(InputError) as info:
        load_text(textwrap.dedent(text), "in.yaml", **kwargs)
    return [str(p) for p in info.value.problems]


def test_a_multi_document_stream_loads_every_object_in_order() -> None:
    text = SLICE + "---\n" + "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n---\n# empty\n"
    objects = load_text(text)
    assert [o.ref for o in objects] == ["ResourceSlice/s1", "Node/node-1"]


def test_kubectl_get_output_with_managed_fields_and_status_loads_without_warnings() -> None:
    objects = load([str(DATA / "kubectl-get.yaml")])
    assert [o.kind for o in objects] == ["ResourceSlice", "DeviceClass", "ResourceClaim", "Node", "Pod"]
    assert objects.warnings == []
    claim = objects.get("ResourceClaim", "pod0-gpu-7nq5d", "gpu-test1")
    assert claim is not None
    assert claim.model.status.allocation.devices.results[0].device == "gpu-0"  # type: ignore[attr-defined]


def test_a_typed_list_gives_its_items_their_kind() -> None:
    text = """\
    apiVersion: v1
    kind: NodeList
    items:
    - metadata: {name: a}
    - metadata: {name: b}
    """
    objects = load_text(textwrap.dedent(text))
    assert [o.ref for o in objects] == ["Node/a", "Node/b"]


def test_directories_are_read_recursively_and_only_yaml_and_json_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.yaml").write_text(SLICE)
    (tmp_path / "sub" / "b.json").write_text(
        '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}'
    )
    (tmp_path / "sub" / "c.yml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: ml}\n")
    (tmp_path / "notes.txt").write_text("not yaml: [")
    objects = load([str(tmp_path)])
    assert sorted(o.ref for o in objects) == ["Namespace/ml", "Node/n", "ResourceSlice/s1"]


def test_stdin_is_read_for_a_dash() -> None:
    objects = load(["-"], stdin=io.StringIO(SLICE))
    assert objects.objects[0].file == "<stdin>"


def test_namespaced_objects_without_a_namespace_land_in_default() -> None:
    objects = load_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n")
    assert objects.objects[0].namespace == "default"


def test_quantities_written_as_numbers_are_accepted_as_kubernetes_does() -> None:
    text = (
        SLICE.replace("value: 80Gi", "value: 80") + "---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
        "status:\n  capacity: {cpu: 8, memory: 1073741824, ephemeral-storage: 0.5}\n"
    )
    objects = load_text(text)
    node = objects.get("Node", "n")
    assert node is not None
    assert node.model.status.capacity == {"cpu": "8", "memory": "1073741824", "ephemeral-storage": "0.5"}  # type: ignore[attr-defined]


def test_an_unknown_field_is_a_warning_with_its_line_and_is_carried_along() -> None:
    text = SLICE + "    futureField: {x: 1}\n"
    objects = load_text(text, "in.yaml")
    (warning,) = objects.warnings
    assert str(warning) == (
        'in.yaml:13: ResourceSlice/s1: spec.devices[0].futureField: warning: unknown field "futureField"'
    )
    assert objects.objects[0].extra(("spec", "devices", 0, "futureField")) == {"x": 1}


def test_strict_mode_makes_an_unknown_field_an_error() -> None:
    assert problems_of(SLICE + "    futureField: 1\n", strict=True) == [
        'in.yaml:13: ResourceSlice/s1: spec.devices[0].futureField: unknown field "futureField"'
    ]


def test_broken_yaml_is_one_line_with_the_line_number() -> None:
    (line,) = problems_of("apiVersion: v1\nkind: Node\nmetadata: {name: [}\n")
    assert line.startswith("in.yaml:3: invalid YAML: ")


def test_a_wrong_type_names_the_field_and_its_line() -> None:
    text = SLICE.replace("resourceSliceCount: 1", "resourceSliceCount: one")
    assert problems_of(text) == [
        "in.yaml:8: ResourceSlice/s1: spec.pool.resourceSliceCount: json: cannot unmarshal string into Go "
        "struct field ResourcePool.spec.pool.resourceSliceCount of type int64"
    ]


def test_every_problem_of_every_document_is_reported_at_once() -> None:
    text = (
        SLICE.replace("generation: 1", "generation: x")
        + "---\napiVersion: v1\nkind: Nodee\nmetadata: {name: n}\n"
    )
    lines = problems_of(text)
    assert len(lines) == 2
    assert lines[0].startswith("in.yaml:8: ResourceSlice/s1: spec.pool.generation:")
    assert lines[1] == 'in.yaml:15: Nodee/n: kind: unknown kind "Nodee" in apiVersion "v1"'


def test_an_unknown_kind_points_at_the_versions_kubefit_reads() -> None:
    text = SLICE.replace("resource.k8s.io/v1", "resource.k8s.io/v1alpha1")
    assert problems_of(text) == [
        'in.yaml:2: ResourceSlice/s1: kind: unknown kind "ResourceSlice" in apiVersion "resource.k8s.io/v1alpha1" '
        "(kubefit reads ResourceSlice as resource.k8s.io/v1, resource.k8s.io/v1beta1, resource.k8s.io/v1beta2)"
    ]


@pytest.mark.parametrize("group", ["kubelet.config.k8s.io", "gpu.example.com"])
def test_a_kind_of_another_group_is_not_taken_for_kubefits_own(group: str) -> None:
    # The client's v1beta1 ResourceSlice model fits any group's v1beta1 by name; only resource.k8s.io's is
    # the DRA kind (this one reached the validator unconverted and crashed it).
    text = SLICE.replace("resource.k8s.io/v1", f"{group}/v1beta1")
    assert problems_of(text) == [
        f'in.yaml:2: ResourceSlice/s1: kind: unknown kind "ResourceSlice" in apiVersion "{group}/v1beta1" '
        "(kubefit reads ResourceSlice as resource.k8s.io/v1, resource.k8s.io/v1beta1, resource.k8s.io/v1beta2)"
    ]


def test_a_missing_required_field_is_reported() -> None:
    text = SLICE.replace("  - name: gpu-0\n", "  - capacity: {}\n").replace(
        "    capacity:\n      memory: {value: 80Gi}\n", ""
    )
    assert problems_of(text) == ["in.yaml:10: ResourceSlice/s1: spec.devices[0].name: Required value"]


def test_duplicate_objects_are_an_error_naming_the_first_one() -> None:
    lines = problems_of(SLICE + "---\n" + SLICE)
    assert lines == [
        "in.yaml:17: ResourceSlice/s1: metadata.name: Duplicate value: ResourceSlice/s1 is also "
        "defined at in.yaml:1"
    ]


def test_duplicate_keys_in_a_mapping_are_an_error() -> None:
    (line,) = problems_of("apiVersion: v1\nkind: Node\nkind: Node\nmetadata: {name: n}\n")
    assert line.startswith("in.yaml:3: invalid YAML") and "duplicate key" in line


def test_a_pod_without_apiversion_is_read_as_v1_with_a_warning() -> None:
    objects = load_text("kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n", "in.yaml")
    assert objects.objects[0].api_version == "v1"
    assert "apiVersion is missing" in str(objects.warnings[0])


def test_a_document_that_is_not_a_mapping_is_an_error() -> None:
    assert problems_of("- a\n- b\n") == ["in.yaml:1: a document must be a Kubernetes object (a mapping)"]


def test_a_missing_file_is_reported_not_raised(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load([str(tmp_path / "nope.yaml")])
    assert str(info.value).endswith("nope.yaml: no such file or directory")


def test_v1beta1_claims_are_converted_to_v1() -> None:
    text = """\
    apiVersion: resource.k8s.io/v1beta1
    kind: ResourceClaim
    metadata: {name: c, namespace: ns}
    spec:
      devices:
        requests:
        - name: gpu
          deviceClassName: gpu.example.com
          count: 2
        - name: alt
          firstAvailable:
          - {name: big, deviceClassName: big.example.com}
    """
    (claim,) = load_text(textwrap.dedent(text))
    assert claim.api_version == "resource.k8s.io/v1"
    assert claim.written_api_version == "resource.k8s.io/v1beta1"
    first, second = claim.model.spec.devices.requests  # type: ignore[attr-defined]
    assert first.exactly.device_class_name == "gpu.example.com" and first.exactly.count == 2
    assert second.first_available[0].name == "big"


def test_v1beta1_slices_lose_their_basic_wrapper() -> None:
    text = """\
    apiVersion: resource.k8s.io/v1beta1
    kind: ResourceSlice
    metadata: {name: s}
    spec:
      driver: d.example.com
      allNodes: true
      pool: {name: p, generation: 1, resourceSliceCount: 1}
      devices:
      - name: dev
        basic:
          attributes: {model: {string: x}}
    """
    (obj,) = load_text(textwrap.dedent(text))
    assert obj.model.spec.devices[0].attributes["model"].string == "x"  # type: ignore[attr-defined]


def test_v1alpha2_pod_groups_load_as_the_newest_served_version() -> None:
    text = """\
    apiVersion: scheduling.k8s.io/v1alpha2
    kind: PodGroup
    metadata: {name: g, namespace: ns}
    spec:
      schedulingPolicy: {gang: {minCount: 2}}
      resourceClaims:
      - {name: gpu, resourceClaimTemplateName: one-gpu}
    """
    (group,) = load_text(textwrap.dedent(text))
    assert group.api_version == "scheduling.k8s.io/v1beta1"
    assert group.model.spec.resource_claims[0].resource_claim_template_name == "one-gpu"  # type: ignore[attr-defined]


def test_partial_node_status_is_accepted() -> None:
    (node,) = load_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus:\n  nodeInfo: {kubeletVersion: v1.36.1}\n"
    )
    assert node.model.status.node_info.kubelet_version == "v1.36.1"  # type: ignore[attr-defined]


def test_kubelet_configuration_and_node_topology_load_with_our_models() -> None:
    text = """\
    apiVersion: kubelet.config.k8s.io/v1beta1
    kind: KubeletConfiguration
    cpuManagerPolicy: static
    clusterDNS: [10.96.0.10]
    kubeReserved: {cpu: 1}
    ---
    apiVersion: kubefit.io/v1alpha1
    kind: NodeTopology
    metadata: {name: n}
    spec:
      cpus:
      - {id: 0, core: 0, socket: 0, numa: 0}
    """
    cfg, topo = load_text(textwrap.dedent(text))
    assert cfg.model.cpu_manager_policy == "static"  # type: ignore[attr-defined]
    assert cfg.model.kube_reserved == {"cpu": "1"}  # type: ignore[attr-defined]
    assert topo.model.spec.cpus[0].uncore_cache == 0  # type: ignore[attr-defined]


def test_output_is_camel_case_as_kubectl_prints_it() -> None:
    (obj,) = load_text(SLICE)
    dumped = obj.model.model_dump(by_alias=True, exclude_none=True)
    assert dumped["spec"]["nodeName"] == "node-1"
    assert dumped["spec"]["pool"]["resourceSliceCount"] == 1
