"""Pod, pod template, Node and PriorityClass validation (upstream validation_test.go's cases for
ValidatePodSpec, ValidateNode and ValidatePriorityClass that bear on what kubefit reads, as manifests)."""

from __future__ import annotations

from typing import Any

from kubernetes.client.models import V1Deployment, V1Node, V1Pod, V1PriorityClass
from validation_helpers import LABEL, LABEL_VALUE, NAME_PART, SUBDOMAIN, Case, Ctx, Found, cases, pairs

from kubefit.translate.validation.core_node import validate_node
from kubefit.translate.validation.pod import validate_pod, validate_pod_template
from kubefit.translate.validation.priority_class import validate_priority_class

NEGATIVE = "must be greater than or equal to 0"
C0: tuple[str | int, ...] = ("spec", "containers", 0)
RES = (*C0, "resources")


def container(name: str = "c", **fields: Any) -> dict[str, Any]:
    return {"name": name, "image": "registry.example/app:1", **fields}


def pod(*containers: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": list(containers) or [container()], **spec},
    }


def resources(**fields: Any) -> dict[str, Any]:
    return pod(container(resources=fields))


def pod_errors(manifest: dict[str, Any], *off: str) -> Found:
    return pairs(validate_pod(V1Pod.model_validate(manifest), Ctx(*off)))


POD_RESOURCE_CASES: list[Case] = [
    (
        "requests and limits within each other",
        resources(requests={"cpu": "1", "memory": "1Gi"}, limits={"cpu": "2", "memory": "1Gi"}),
        [],
    ),
    (
        "negative requests and limits",
        resources(requests={"cpu": "-100"}, limits={"memory": "-1Gi"}),
        [
            ((*RES, "limits", "memory"), f'Invalid value: "-1Gi": {NEGATIVE}'),
            ((*RES, "requests", "cpu"), f'Invalid value: "-100": {NEGATIVE}'),
        ],
    ),
    (
        "a request above its limit",
        resources(requests={"cpu": "3"}, limits={"cpu": "2"}),
        [((*RES, "requests"), 'Invalid value: "3": must be less than or equal to cpu limit of 2')],
    ),
    (
        "an extended resource is counted in units",
        resources(limits={"example.com/gpu": "0.5"}),
        [((*RES, "limits", "example.com/gpu"), "Invalid value: 500m: must be an integer")],
    ),
    (
        "an extended resource's request must equal its limit",
        resources(requests={"example.com/gpu": "1"}, limits={"example.com/gpu": "2"}),
        [((*RES, "requests"), 'Invalid value: "1": must be equal to example.com/gpu limit of 2')],
    ),
    (
        "an extended resource needs a limit",
        resources(requests={"example.com/gpu": "1"}),
        [((*RES, "limits"), "Required value: Limit must be set for non overcommitable resources")],
    ),
    (
        "resource names",
        resources(limits={"gpu": "1", "pods": "1", "example.com/a b": "1"}),
        [
            (
                (*RES, "limits", "gpu"),
                'Invalid value: "gpu": must be a standard resource type or fully qualified',
            ),
            ((*RES, "limits", "gpu"), 'Invalid value: "gpu": must be a standard resource for containers'),
            ((*RES, "limits", "pods"), 'Invalid value: "pods": must be a standard resource for containers'),
            ((*RES, "limits", "example.com/a b"), f'Invalid value: "example.com/a b": {NAME_PART}'),
            (
                (*RES, "limits", "example.com/a b"),
                'Invalid value: "example.com/a b": doesn\'t follow extended resource name standard',
            ),
        ],
    ),
    (
        "huge pages come in whole pages, beside cpu or memory",
        resources(limits={"hugepages-2Mi": "3Mi"}),
        [
            (
                (*RES, "limits", "hugepages-2Mi"),
                'Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi',
            ),
            (RES, "Forbidden: HugePages require cpu or memory"),
        ],
    ),
    (
        "claims name the pod's claims",
        pod(
            container(resources={"claims": [{"name": "gpu"}, {"name": "nothing"}, {"name": "gpu"}]}),
            resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}],
        ),
        [
            (
                (*RES, "claims", 1),
                'Not found: "nothing": must be one of the names in pod.spec.resourceClaims: gpu',
            ),
            ((*RES, "claims", 2), 'Duplicate value: "gpu"'),
        ],
    ),
    (
        "claims of a pod without any",
        pod(container(resources={"claims": [{"name": "gpu", "request": "Bad"}]})),
        [
            ((*RES, "claims", 0, "request"), f'Invalid value: "Bad": {LABEL}'),
            (
                (*RES, "claims", 0),
                'Not found: "gpu": must be one of the names in pod.spec.resourceClaims which is empty',
            ),
        ],
    ),
    (
        "a claim's request after the whole claim, and the whole claim after a request",
        pod(
            container(resources={"claims": [{"name": "a"}, {"name": "a", "request": "r"}]}),
            container("d", resources={"claims": [{"name": "a", "request": "r"}, {"name": "a"}]}),
            resourceClaims=[{"name": "a", "resourceClaimName": "claim"}],
        ),
        [
            ((*RES, "claims", 1), 'Duplicate value: "a"'),
            (("spec", "containers", 1, "resources", "claims", 1), 'Duplicate value: "a"'),
        ],
    ),
    (
        "the pod's claims",
        pod(
            resourceClaims=[
                {"name": "a", "resourceClaimName": "x"},
                {"name": "a", "resourceClaimName": "y"},
                {"name": "b"},
                {"name": "c", "resourceClaimName": "x", "resourceClaimTemplateName": "t"},
                {"name": "", "resourceClaimTemplateName": "BAD"},
            ]
        ),
        [
            (("spec", "resourceClaims", 1, "name"), 'Duplicate value: "a"'),
            (
                ("spec", "resourceClaims", 2),
                'Invalid value: {"name":"b"}: must specify one of: `resourceClaimName`, '
                "`resourceClaimTemplateName`",
            ),
            (
                ("spec", "resourceClaims", 3),
                'Invalid value: {"name":"c","resourceClaimName":"x","resourceClaimTemplateName":"t"}: at most '
                "one of `resourceClaimName` or `resourceClaimTemplateName` may be specified",
            ),
            (("spec", "resourceClaims", 4, "name"), "Required value"),
            (
                ("spec", "resourceClaims", 4, "resourceClaimTemplateName"),
                f'Invalid value: "BAD": {SUBDOMAIN}',
            ),
        ],
    ),
    (
        "the overhead",
        pod(overhead={"cpu": "-1", "pods": "1"}),
        [
            (("spec", "overhead", "cpu"), f'Invalid value: "-1": {NEGATIVE}'),
            (
                ("spec", "overhead", "pods"),
                'Invalid value: "pods": must be a standard resource for containers',
            ),
        ],
    ),
    (
        "pod-level resources cover the containers'",
        pod(
            container(resources={"requests": {"cpu": "2"}, "limits": {"memory": "2Gi"}}),
            resources={"requests": {"cpu": "1"}, "limits": {"memory": "1Gi", "example.com/gpu": "1"}},
        ),
        [
            (
                ("spec", "resources", "limits", "example.com/gpu"),
                'Unsupported value: "example.com/gpu": supported values: "cpu", "memory"',
            ),
            (
                ("spec", "resources", "requests", "cpu"),
                'Invalid value: "1": must be greater than or equal to aggregate container requests of 2',
            ),
            (
                (*RES, "limits", "memory"),
                'Invalid value: "2Gi": must be less than or equal to pod limits of 1Gi',
            ),
        ],
    ),
]


@cases(POD_RESOURCE_CASES)
def test_pod_resources(name: str, manifest: dict[str, Any], expected: Found) -> None:
    assert pod_errors(manifest) == expected


def test_pod_level_resources_are_dropped_with_their_gate_off() -> None:
    manifest = pod(resources={"requests": {"cpu": "-1"}})
    assert pod_errors(manifest, "PodLevelResources") == []
    assert pod_errors(manifest) == [
        (("spec", "resources", "requests", "cpu"), f'Invalid value: "-1": {NEGATIVE}')
    ]


def test_sidecars_run_beside_the_containers_and_init_containers_after_each_other() -> None:
    manifest = pod(
        container(resources={"requests": {"cpu": "1"}}),
        initContainers=[
            container("sidecar", restartPolicy="Always", resources={"requests": {"cpu": "1"}}),
            container("init", resources={"requests": {"cpu": "3"}}),
        ],
        resources={"requests": {"cpu": "3"}},
    )
    # Together: 1 + 1 = 2; the init container beside the sidecar: 3 + 1 = 4.
    assert pod_errors(manifest) == [
        (
            ("spec", "resources", "requests", "cpu"),
            'Invalid value: "3": must be greater than or equal to aggregate container requests of 4',
        )
    ]


def test_only_amounts_the_answer_is_computed_from_are_unstorable() -> None:
    manifest = pod(
        container(resources={"requests": {"cpu": "-1", "example.com/gpu": "1"}, "claims": [{"name": "x"}]}),
        tolerations=[{"operator": "Bad"}],
    )
    flagged = {(e.path[-1], e.unstorable) for e in validate_pod(V1Pod.model_validate(manifest), Ctx())}
    assert flagged == {("cpu", True), ("limits", False), (0, True), ("operator", False)}


POD_CASES: list[Case] = [
    ("a minimal pod", pod(), []),
    ("no containers", pod(), []),
    (
        "containers are named, with an image, once",
        pod(
            {"name": "", "image": ""},
            container("Bad"),
            container("c"),
            container("c", restartPolicy="Always"),
        ),
        [
            ((*C0, "name"), "Required value"),
            ((*C0, "image"), "Required value"),
            (("spec", "containers", 1, "name"), f'Invalid value: "Bad": {LABEL}'),
            (("spec", "containers", 3, "name"), 'Duplicate value: "c"'),
            (("spec", "containers", 3, "restartPolicy"), "Forbidden: may not be set for non-init containers"),
        ],
    ),
    (
        "init containers",
        pod(initContainers=[container("c"), container("i", restartPolicy="OnFailure")]),
        [
            (("spec", "initContainers", 0, "name"), 'Duplicate value: "c"'),
            (
                ("spec", "initContainers", 1, "restartPolicy"),
                'Unsupported value: "OnFailure": supported values: "Always"',
            ),
        ],
    ),
    (
        "ports",
        pod(
            container(
                ports=[
                    {"containerPort": 0, "name": "http", "protocol": "HTTP"},
                    {"containerPort": 70000, "name": "http", "hostPort": 80},
                    {"containerPort": 8080, "name": "-Bad--", "hostPort": 80},
                ]
            )
        ),
        [
            ((*C0, "ports", 0, "containerPort"), "Required value"),
            (
                (*C0, "ports", 0, "protocol"),
                'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
            ),
            ((*C0, "ports", 1, "name"), 'Duplicate value: "http"'),
            (
                (*C0, "ports", 1, "containerPort"),
                "Invalid value: 70000: must be between 1 and 65535, inclusive",
            ),
            (
                (*C0, "ports", 2, "name"),
                'Invalid value: "-Bad--": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
            ),
            ((*C0, "ports", 2, "name"), 'Invalid value: "-Bad--": must not contain consecutive hyphens'),
            ((*C0, "ports", 2, "name"), 'Invalid value: "-Bad--": must not begin or end with a hyphen'),
            ((*C0, "ports", 2, "hostPort"), 'Duplicate value: "TCP//80"'),
        ],
    ),
    (
        "a host-network pod's host ports are its container ports",
        pod(
            container(ports=[{"containerPort": 80, "hostPort": 8080}, {"containerPort": 81}]),
            hostNetwork=True,
        ),
        [
            (
                (*C0, "ports", 0, "hostPort"),
                "Invalid value: 8080: must match `containerPort` when `hostNetwork` is true",
            )
        ],
    ),
    (
        "tolerations",
        pod(
            tolerations=[
                {"operator": "Equal", "value": "v"},
                {"key": "k", "operator": "Exists", "value": "v"},
                {"key": "k", "value": "not a label", "effect": "Evict"},
                {"key": "k", "operator": "Gt", "tolerationSeconds": 5, "effect": "NoSchedule"},
                {"key": "k", "operator": "Exists", "tolerationSeconds": 5, "effect": "NoExecute"},
            ]
        ),
        [
            (
                ("spec", "tolerations", 0, "operator"),
                'Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all '
                'values and all keys"',
            ),
            (
                ("spec", "tolerations", 1, "operator"),
                "Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
            ),
            (("spec", "tolerations", 2, "operator"), f'Invalid value: "not a label": {LABEL_VALUE}'),
            (
                ("spec", "tolerations", 2, "effect"),
                'Unsupported value: "Evict": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
            ),
            (
                ("spec", "tolerations", 3, "effect"),
                "Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
            ),
            (
                ("spec", "tolerations", 3, "operator"),
                'Unsupported value: "Gt": supported values: "Equal", "Exists"',
            ),
        ],
    ),
    (
        "scheduling gates, node name, priority class, preemption policy, restart policy, node selector",
        pod(
            schedulingGates=[{"name": "example.com/gate"}, {"name": "example.com/gate"}, {"name": "a b"}],
            nodeName="Node_1",
            priorityClassName="High",
            preemptionPolicy="Sometimes",
            restartPolicy="Sometimes",
            nodeSelector={"zone": "a b"},
        ),
        [
            (
                ("spec", "restartPolicy"),
                'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
            ),
            (("spec", "nodeSelector"), f'Invalid value: "a b": {LABEL_VALUE}'),
            (("spec", "schedulingGates", 1), 'Duplicate value: "example.com/gate"'),
            (("spec", "schedulingGates", 2), f'Invalid value: "a b": {NAME_PART}'),
            (("spec", "nodeName"), f'Invalid value: "Node_1": {SUBDOMAIN}'),
            (("spec", "priorityClassName"), f'Invalid value: "High": {SUBDOMAIN}'),
            (
                ("spec", "preemptionPolicy"),
                'Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"',
            ),
        ],
    ),
    (
        "topology spread constraints",
        pod(
            topologySpreadConstraints=[
                {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "minDomains": 0},
                {
                    "maxSkew": 1,
                    "topologyKey": "",
                    "whenUnsatisfiable": "ScheduleAnyway",
                    "minDomains": 2,
                    "nodeTaintsPolicy": "Maybe",
                    "matchLabelKeys": ["app"],
                },
                {
                    "maxSkew": 1,
                    "topologyKey": "host",
                    "whenUnsatisfiable": "Later",
                    "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In"}]},
                },
            ]
        ),
        [
            (
                ("spec", "topologySpreadConstraints", 0, "maxSkew"),
                "Invalid value: 0: must be greater than zero",
            ),
            (
                ("spec", "topologySpreadConstraints", 0, "{topologyKey, whenUnsatisfiable}"),
                'Duplicate value: "{zone, DoNotSchedule}"',
            ),
            (
                ("spec", "topologySpreadConstraints", 1, "minDomains"),
                "Invalid value: 0: must be greater than zero",
            ),
            (("spec", "topologySpreadConstraints", 2, "topologyKey"), "Required value: can not be empty"),
            (
                ("spec", "topologySpreadConstraints", 2, "minDomains"),
                "Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
            ),
            (
                ("spec", "topologySpreadConstraints", 2, "nodeTaintsPolicy"),
                'Unsupported value: "Maybe": supported values: "Honor", "Ignore"',
            ),
            (
                ("spec", "topologySpreadConstraints", 2, "matchLabelKeys"),
                "Forbidden: must not be specified when labelSelector is not set",
            ),
            (
                ("spec", "topologySpreadConstraints", 3, "whenUnsatisfiable"),
                'Unsupported value: "Later": supported values: "DoNotSchedule", "ScheduleAnyway"',
            ),
            (
                ("spec", "topologySpreadConstraints", 3, "labelSelector", "matchExpressions", 0, "values"),
                "Required value: must be specified when `operator` is 'In' or 'NotIn'",
            ),
        ],
    ),
    (
        "node and pod affinity",
        pod(
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []},
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 0,
                            "preference": {
                                "matchExpressions": [{"key": "zone", "operator": "In", "values": ["a b"]}]
                            },
                        }
                    ],
                },
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"topologyKey": "", "namespaces": ["NS"], "mismatchLabelKeys": ["app"]}
                    ],
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 101,
                            "podAffinityTerm": {
                                "topologyKey": "zone",
                                "labelSelector": {"matchLabels": {"app": "x"}},
                                "matchLabelKeys": ["pod-template-hash"],
                                "mismatchLabelKeys": ["pod-template-hash"],
                            },
                        }
                    ],
                },
            }
        ),
        [
            (
                (
                    "spec",
                    "affinity",
                    "nodeAffinity",
                    "requiredDuringSchedulingIgnoredDuringExecution",
                    "nodeSelectorTerms",
                ),
                "Required value: must have at least one node selector term",
            ),
            (
                (
                    "spec",
                    "affinity",
                    "nodeAffinity",
                    "preferredDuringSchedulingIgnoredDuringExecution",
                    0,
                    "weight",
                ),
                "Invalid value: 0: must be in the range 1-100",
            ),
            (
                (
                    "spec",
                    "affinity",
                    "podAntiAffinity",
                    "requiredDuringSchedulingIgnoredDuringExecution",
                    0,
                    "namespaces",
                    0,
                ),
                f'Invalid value: "NS": {LABEL}',
            ),
            (
                (
                    "spec",
                    "affinity",
                    "podAntiAffinity",
                    "requiredDuringSchedulingIgnoredDuringExecution",
                    0,
                    "mismatchLabelKeys",
                ),
                "Forbidden: must not be specified when labelSelector is not set",
            ),
            (
                (
                    "spec",
                    "affinity",
                    "podAntiAffinity",
                    "requiredDuringSchedulingIgnoredDuringExecution",
                    0,
                    "topologyKey",
                ),
                "Required value: can not be empty",
            ),
            (
                (
                    "spec",
                    "affinity",
                    "podAntiAffinity",
                    "requiredDuringSchedulingIgnoredDuringExecution",
                    0,
                    "topologyKey",
                ),
                'Invalid value: "": name part must be non-empty',
            ),
            (
                (
                    "spec",
                    "affinity",
                    "podAntiAffinity",
                    "requiredDuringSchedulingIgnoredDuringExecution",
                    0,
                    "topologyKey",
                ),
                f'Invalid value: "": {NAME_PART}',
            ),
            (
                (
                    "spec",
                    "affinity",
                    "podAntiAffinity",
                    "preferredDuringSchedulingIgnoredDuringExecution",
                    0,
                    "weight",
                ),
                "Invalid value: 101: must be in the range 1-100",
            ),
            (
                (
                    "spec",
                    "affinity",
                    "podAntiAffinity",
                    "preferredDuringSchedulingIgnoredDuringExecution",
                    0,
                    "podAffinityTerm",
                    "matchLabelKeys",
                    0,
                ),
                'Invalid value: "pod-template-hash": exists in both matchLabelKeys and mismatchLabelKeys',
            ),
        ],
    ),
]
POD_CASES.pop(1)  # kept out: a pod without containers is in the next test


@cases(POD_CASES)
def test_pod_spec(name: str, manifest: dict[str, Any], expected: Found) -> None:
    assert pod_errors(manifest) == expected


def test_a_pod_without_containers() -> None:
    manifest = pod()
    manifest["spec"]["containers"] = []
    assert pod_errors(manifest) == [(("spec", "containers"), "Required value")]


def test_a_workloads_pod_template_is_a_pod_spec_under_spec_template() -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": pod(container(resources={"limits": {"memory": "-1Gi"}}))["spec"],
            },
        },
    }
    errors = validate_pod_template(V1Deployment.model_validate(deployment), Ctx())
    path = ("spec", "template", "spec", "containers", 0, "resources", "limits", "memory")
    assert [(e.path, e.message, e.unstorable) for e in errors] == [
        (path, f'Invalid value: "-1Gi": {NEGATIVE}', True)
    ]


def node(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}, **fields}


NODE_CASES: list[Case] = [
    ("a node", node(status={"capacity": {"cpu": "3.5", "pods": "110"}, "allocatable": {"cpu": "3"}}), []),
    (
        "negative and fractional amounts",
        node(status={"capacity": {"cpu": "-4", "pods": "1.5"}, "allocatable": {"example.com/gpu": "0.5"}}),
        [
            (("status", "capacity", "cpu"), f'Invalid value: "-4": {NEGATIVE}'),
            (("status", "capacity", "pods"), "Invalid value: 1500m: must be an integer"),
            (("status", "allocatable", "example.com/gpu"), "Invalid value: 500m: must be an integer"),
        ],
    ),
    (
        "taints",
        node(
            spec={
                "taints": [
                    {"key": "k", "value": "v", "effect": "NoSchedule"},
                    {"key": "k", "value": "w", "effect": "NoSchedule"},
                    {"key": "k", "effect": "NoExecute"},
                    {"key": "", "value": "a b", "effect": ""},
                    {"key": "x", "effect": "Evict"},
                ]
            }
        ),
        [
            (
                ("spec", "taints", 1),
                'Duplicate value: core.Taint{Key:"k", Value:"w", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: '
                "taints must be unique by key and effect pair",
            ),
            (("spec", "taints", 3, "key"), 'Invalid value: "": name part must be non-empty'),
            (("spec", "taints", 3, "key"), f'Invalid value: "": {NAME_PART}'),
            (("spec", "taints", 3, "value"), f'Invalid value: "a b": {LABEL_VALUE}'),
            (("spec", "taints", 3, "effect"), "Required value"),
            (
                ("spec", "taints", 4, "effect"),
                'Unsupported value: "Evict": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
            ),
        ],
    ),
]


@cases(NODE_CASES)
def test_node(name: str, manifest: dict[str, Any], expected: Found) -> None:
    assert pairs(validate_node(V1Node.model_validate(manifest), Ctx())) == expected


def test_node_amounts_are_unstorable_and_taints_are_not() -> None:
    manifest = node(spec={"taints": [{"key": "k", "effect": "Evict"}]}, status={"capacity": {"pods": "-1"}})
    flagged = [(e.path[1], e.unstorable) for e in validate_node(V1Node.model_validate(manifest), Ctx())]
    assert flagged == [("taints", False), ("capacity", True)]


def priority_class(name: str, value: int, **fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        **fields,
    }


PRIORITY_CASES: list[Case] = [
    ("the highest user priority", priority_class("high", 1_000_000_000), []),
    ("a system class may go higher", priority_class("system-node-critical", 2_000_001_000), []),
    (
        "above the highest user priority",
        priority_class("higher", 1_000_000_001, preemptionPolicy="Always"),
        [
            (("value",), "Forbidden: maximum allowed value of a user defined priority is 1000000000"),
            (
                ("preemptionPolicy",),
                'Unsupported value: "Always": supported values: "PreemptLowerPriority", "Never"',
            ),
        ],
    ),
]


@cases(PRIORITY_CASES)
def test_priority_class(name: str, manifest: dict[str, Any], expected: Found) -> None:
    assert pairs(validate_priority_class(V1PriorityClass.model_validate(manifest), Ctx())) == expected
