"""KubeletConfiguration and NodeTopology: our own models, checked as the kubelet checks its config."""

from __future__ import annotations

import textwrap

import pytest

from kubefit.model.cpuset import format_cpuset, parse_cpuset
from kubefit.model.errors import InputError
from kubefit.model.features import ALL_ON, split_gates
from kubefit.translate.loader import load_text
from kubefit.translate.validation.run import validate_objects

TOPOLOGY = """\
apiVersion: kubefit.io/v1alpha1
kind: NodeTopology
metadata: {name: node-1}
spec:
  cpus:
  - {id: 0, core: 0, socket: 0, numa: 0}
  - {id: 1, core: 1, socket: 0, numa: 0}
  - {id: 2, core: 0, socket: 0, numa: 0}
  - {id: 3, core: 1, socket: 0, numa: 0}
  memory:
  - {numa: 0, capacity: 64Gi, hugepages-1Gi: 4Gi}
"""


def problems(text: str, gates: str = "") -> list[str]:
    objects = load_text(textwrap.dedent(text), "in.yaml")
    # Every gate on but those named, as the kubelet's own tests switch one at a time.
    return [str(p) for p in validate_objects(objects, ALL_ON.with_values(split_gates([gates])))]


def kubelet(body: str) -> str:
    return "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n" + textwrap.dedent(body)


def test_a_valid_topology_and_config_have_no_problems() -> None:
    config = kubelet("""\
        cpuManagerPolicy: static
        cpuManagerPolicyOptions: {full-pcpus-only: "true"}
        reservedSystemCPUs: "0,2"
        topologyManagerPolicy: single-numa-node
        memoryManagerPolicy: Static
        reservedMemory: [{numaNode: 0, limits: {memory: 1Gi}}]
        """)
    assert problems(TOPOLOGY + "---\n" + config) == []


def test_the_topology_is_typed() -> None:
    (topo,) = load_text(TOPOLOGY)
    spec = topo.model.spec  # type: ignore[attr-defined]
    assert [c.core for c in spec.cpus] == [0, 1, 0, 1]
    assert spec.memory[0].hugepages_1gi == "4Gi"
    assert spec.memory[0].hugepages_2mi == "0"


def test_duplicate_cpu_ids_are_refused() -> None:
    text = TOPOLOGY.replace("{id: 3,", "{id: 2,")
    assert problems(text) == [
        "in.yaml:9: NodeTopology/node-1: spec.cpus[3].id: Duplicate value: CPU 2 (also at spec.cpus[2])"
    ]


def test_a_core_split_across_sockets_is_refused() -> None:
    text = TOPOLOGY.replace("{id: 3, core: 1, socket: 0", "{id: 3, core: 1, socket: 1")
    (line,) = problems(text)
    assert "spec.cpus[3].core: Invalid value: 1: core 1 has CPUs on different sockets or NUMA nodes" in line


def test_memory_on_an_unknown_numa_node_is_refused() -> None:
    (line,) = problems(TOPOLOGY.replace("{numa: 0, capacity", "{numa: 3, capacity"))
    assert line.endswith("spec.memory[0].numa: Invalid value: 3: no CPU is on this NUMA node")


def test_an_invalid_memory_quantity_is_refused() -> None:
    (line,) = problems(TOPOLOGY.replace("capacity: 64Gi", "capacity: 64GB"))
    assert "spec.memory[0].capacity: Invalid value: '64GB'" in line


@pytest.mark.parametrize(
    "body,expected",
    [
        (
            "cpuManagerPolicy: dynamic\n",
            'cpuManagerPolicy: Unsupported value: \'dynamic\': supported values: "none", "static"',
        ),
        (
            'cpuManagerPolicy: static\ncpuManagerPolicyOptions: {fast: "true"}\n',
            'cpuManagerPolicyOptions[fast]: Unsupported value: "fast": unknown CPU manager policy option',
        ),
        (
            'cpuManagerPolicy: static\ncpuManagerPolicyOptions: {full-pcpus-only: "yes"}\n',
            'cpuManagerPolicyOptions[full-pcpus-only]: Invalid value: "yes": must be "true" or "false"',
        ),
        (
            'cpuManagerPolicyOptions: {full-pcpus-only: "true"}\n',
            "cpuManagerPolicyOptions: Forbidden: policy options are only supported with the static policy",
        ),
        (
            'cpuManagerPolicy: static\ncpuManagerPolicyOptions: {full-pcpus-only: "true", '
            'distribute-cpus-across-cores: "true"}\n',
            'cpuManagerPolicyOptions: Invalid value: "full-pcpus-only" and "distribute-cpus-across-cores" cannot be '
            "used together",
        ),
        ("topologyManagerPolicy: strict\n", "topologyManagerPolicy: Unsupported value: 'strict'"),
        ("topologyManagerScope: node\n", "topologyManagerScope: Unsupported value: 'node'"),
        (
            'topologyManagerPolicyOptions: {max-allowable-numa-nodes: "4"}\n',
            'topologyManagerPolicyOptions[max-allowable-numa-nodes]: Invalid value: "4": must be a whole number of at '
            "least 8",
        ),
        (
            "memoryManagerPolicy: Static\n",
            "reservedMemory: Required value: the Static memory manager policy needs reservedMemory",
        ),
        (
            "reservedSystemCPUs: 0-a\n",
            "reservedSystemCPUs: Invalid value: invalid configuration: unable to parse reservedSystemCPUs "
            '(--reserved-cpus) 0-a, error: strconv.Atoi: parsing "a": invalid syntax',
        ),
        ("kubeReserved: {cpu: lots}\n", "kubeReserved[cpu]: Invalid value: 'lots'"),
    ],
)
def test_kubelet_configuration_is_checked_as_the_kubelet_checks_it(body: str, expected: str) -> None:
    lines = problems(kubelet(body))
    assert len(lines) == 1, lines
    assert expected in lines[0]


def test_alpha_cpu_options_need_their_gate() -> None:
    body = 'cpuManagerPolicy: static\ncpuManagerPolicyOptions: {align-by-socket: "true"}\n'
    assert problems(kubelet(body)) == []
    (line,) = problems(kubelet(body), "CPUManagerPolicyAlphaOptions=false")
    assert 'Forbidden: option "align-by-socket" requires feature gate CPUManagerPolicyAlphaOptions' in line


def test_ordinary_kubelet_fields_load_without_warnings() -> None:
    objects = load_text(
        kubelet("clusterDNS: [10.96.0.10]\nmaxPods: 250\nauthentication: {anonymous: {enabled: false}}\n")
    )
    assert objects.warnings == []


def test_a_field_the_kubelet_does_not_have_is_unknown() -> None:
    objects = load_text(kubelet("cpuManagerPolcy: static\n"), "in.yaml")
    assert [str(w) for w in objects.warnings] == [
        'in.yaml:3: KubeletConfiguration/<unnamed>: cpuManagerPolcy: warning: unknown field "cpuManagerPolcy"'
    ]


def test_a_topology_without_cpus_is_bad_input() -> None:
    with pytest.raises(InputError):
        load_text("apiVersion: kubefit.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: n}\nspec: {}\n")


@pytest.mark.parametrize(
    "text,cpus",
    [
        ("", set()),
        ("0", {0}),
        ("0-3,7", {0, 1, 2, 3, 7}),
        ("1,3-4,9-10", {1, 3, 4, 9, 10}),
        ("+2,05", {2, 5}),
    ],
)
def test_cpu_sets_read_and_print_like_the_kubelet(text: str, cpus: set[int]) -> None:
    assert parse_cpuset(text) == cpus
    assert parse_cpuset(format_cpuset(cpus)) == cpus
    assert format_cpuset({0, 1, 2, 3, 7}) == "0-3,7" and format_cpuset({1, 2}) == "1-2"


@pytest.mark.parametrize(
    "text,message",
    [
        ("5-3", 'invalid range "5-3" (5 > 3)'),
        (" 2", 'strconv.Atoi: parsing " 2": invalid syntax'),
        ("1,,2", 'strconv.Atoi: parsing "": invalid syntax'),
        ("-1", 'strconv.Atoi: parsing "": invalid syntax'),
        ("99999999999999999999", 'strconv.Atoi: parsing "99999999999999999999": value out of range'),
    ],
)
def test_a_cpu_list_the_kubelet_cannot_parse_is_refused_with_its_message(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_cpuset(text)
    assert str(info.value) == message
