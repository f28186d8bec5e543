"""ResourceClaim and ResourceClaimTemplate validation, rule by rule.

Cases follow kubernetes/kubernetes `validation_resourceclaim_test.go` and
`validation_resourceclaimtemplate_test.go`, rewritten as camelCase manifests.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from kubernetes.client.models import ResourceV1ResourceClaim, V1ResourceClaimTemplate

from kubefit.translate.validation.resource_claim import (
    validate_resource_claim,
    validate_resource_claim_template,
)

LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
REF = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
BAD = "!@#$%^"
UID = "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d"


class Ctx:
    """Selectors compile unless they contain "!!bad"; gates are on unless listed as off."""

    def __init__(self, *off: str) -> None:
        self.off = set(off)

    def cel_compile_error(self, expression: str) -> str | None:
        return "ERROR: <input>:1:1: Syntax error" if "!!bad" in expression else None

    def feature_enabled(self, gate: str) -> bool:
        return gate not in self.off


class DerivedCtx(Ctx):
    """A context that can also compile derived-attribute expressions."""

    def derived_attribute_compile_error(self, expression: str) -> str | None:
        return "ERROR: <input>:1:1: no such overload" if "!!bad" in expression else None


def request(name: str = "req-0", **exactly: Any) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": "class", **exactly}}


def claim(*requests: dict[str, Any], **devices: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "claim", "namespace": "default"},
        "spec": {"devices": {"requests": list(requests) or [request()], **devices}},
    }


def with_(base: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    change(out)
    return out


def result(i: int = 0, **fields: Any) -> dict[str, Any]:
    return {
        "request": "req-0",
        "driver": "dra.example.com",
        "pool": "pool",
        "device": f"device-{i}",
        **fields,
    }


def allocated(*results: dict[str, Any], **status: Any) -> dict[str, Any]:
    return with_(
        claim(), lambda m: m.update(status={"allocation": {"devices": {"results": list(results)}}, **status})
    )


def errors(manifest: dict[str, Any], ctx: Ctx | None = None) -> list[tuple[tuple[str | int, ...], str]]:
    found = validate_resource_claim(ResourceV1ResourceClaim.model_validate(manifest), ctx or Ctx())
    return [(e.path, e.message) for e in found]


def req_path(i: int, *rest: str | int) -> tuple[str | int, ...]:
    return ("spec", "devices", "requests", i, *rest)


def ex_path(i: int, *rest: str | int) -> tuple[str | int, ...]:
    return req_path(i, "exactly", *rest)


def res_path(i: int, *rest: str | int) -> tuple[str | int, ...]:
    return ("status", "allocation", "devices", "results", i, *rest)


def subs(*names: str, **fields: Any) -> list[dict[str, Any]]:
    return [{"name": n, "deviceClassName": "class", **fields} for n in names]


def derived(name: str, expression: str = "device.attributes['dra.example.com'].numa") -> dict[str, Any]:
    return {"name": name, "expression": expression}


Case = tuple[str, dict[str, Any], list[tuple[tuple[str | int, ...], str]]]

SPEC_CASES: list[Case] = [
    ("a minimal claim", claim(), []),
    ("a claim without requests", with_(claim(), lambda m: m["spec"]["devices"].update(requests=[])), []),
    (
        "a claim name is a DNS subdomain",
        with_(claim(), lambda m: m["metadata"].update(name=BAD)),
        [(("metadata", "name"), f'Invalid value: "{BAD}": {SUBDOMAIN}')],
    ),
    ("32 requests", claim(*[request(f"r-{i}") for i in range(32)]), []),
    (
        "33 requests",
        claim(*[request(f"r-{i}") for i in range(33)]),
        [(("spec", "devices", "requests"), "Too many: 33: must have at most 32 items")],
    ),
    (
        "request names are unique DNS labels",
        claim(request(BAD), request("a"), request("a")),
        [
            (req_path(0, "name"), f'Invalid value: "{BAD}": {LABEL}'),
            (req_path(2), 'Duplicate value: "a"'),
        ],
    ),
    (
        "a request without exactly or firstAvailable",
        claim({"name": "req-0"}),
        [(req_path(0), "Required value: exactly one of `exactly` or `firstAvailable` is required")],
    ),
    (
        "a request with exactly and firstAvailable",
        claim({**request(), "firstAvailable": subs("a")}),
        [
            (
                req_path(0),
                "Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, "
                "but multiple fields are set",
            )
        ],
    ),
    (
        "the device class name",
        claim(request("a", deviceClassName=""), request("b", deviceClassName=BAD)),
        [
            (ex_path(0, "deviceClassName"), "Required value"),
            (ex_path(1, "deviceClassName"), f'Invalid value: "{BAD}": {SUBDOMAIN}'),
        ],
    ),
    (
        "selectors",
        claim(
            request(
                selectors=[
                    {"cel": {"expression": "device.driver == 'a'"}},
                    {"cel": {"expression": "!!bad"}},
                    {},
                    {"cel": {"expression": "x" * (10 * 1024 + 1)}},
                ]
            )
        ),
        [
            (
                ex_path(0, "selectors", 1, "cel", "expression"),
                'Invalid value: "!!bad": ERROR: <input>:1:1: Syntax error',
            ),
            (ex_path(0, "selectors", 2, "cel"), "Required value"),
            (ex_path(0, "selectors", 3, "cel", "expression"), "Too long: may not be more than 10240 bytes"),
        ],
    ),
    (
        "33 selectors",
        claim(request(selectors=[{"cel": {"expression": "true"}}] * 33)),
        [(ex_path(0, "selectors"), "Too many: 33: must have at most 32 items")],
    ),
    (
        "allocation modes and counts",
        claim(
            request("a", allocationMode="All"),
            request("b", allocationMode="All", count=2),
            request("c", count=0),
            request("d", allocationMode="ExactCount", count=-1),
            request("e", allocationMode="Some"),
        ),
        [
            (ex_path(1, "count"), "Invalid value: 2: must not be specified when allocationMode is 'All'"),
            (ex_path(3, "count"), "Invalid value: -1: must be greater than zero"),
            (
                ex_path(4, "allocationMode"),
                'Unsupported value: "Some": supported values: "All", "ExactCount"',
            ),
        ],
    ),
    ("admin access", claim(request(adminAccess=True)), []),
    (
        "tolerations",
        claim(
            request(
                tolerations=[
                    {"operator": "Exists"},
                    {"key": "example.com/k", "value": "v", "effect": "NoSchedule"},
                    {"key": BAD, "operator": "Exists", "value": "v"},
                    {"key": "k", "value": BAD},
                    {"key": "k", "operator": "Within", "effect": "PreferNoSchedule"},
                ]
            )
        ),
        [
            (ex_path(0, "tolerations", 2, "key"), f'Invalid value: "{BAD}": {NAME_PART}'),
            (
                ex_path(0, "tolerations", 2, "value"),
                'Invalid value: "v": must be empty for operator `Exists`',
            ),
            (ex_path(0, "tolerations", 3, "value"), f'Invalid value: "{BAD}": {LABEL_VALUE}'),
            (
                ex_path(0, "tolerations", 4, "operator"),
                'Unsupported value: "Within": supported values: "Equal", "Exists"',
            ),
            (
                ex_path(0, "tolerations", 4, "effect"),
                'Unsupported value: "PreferNoSchedule": supported values: "NoExecute", "NoSchedule", "None"',
            ),
        ],
    ),
    ("a capacity request", claim(request(capacity={"requests": {"dra.example.com/memory": "1Gi"}})), []),
    # firstAvailable
    ("eight subrequests", claim({"name": "req-0", "firstAvailable": subs(*[f"s{i}" for i in range(8)])}), []),
    (
        "nine subrequests",
        claim({"name": "req-0", "firstAvailable": subs(*[f"s{i}" for i in range(9)])}),
        [(req_path(0, "firstAvailable"), "Too many: 9: must have at most 8 items")],
    ),
    (
        "subrequests follow the request rules",
        claim(
            {
                "name": "req-0",
                "firstAvailable": [
                    *subs(BAD),
                    {"name": "b", "deviceClassName": "", "allocationMode": "All", "count": 1},
                    *subs("c", selectors=[{"cel": {"expression": "!!bad"}}]),
                    *subs("c"),
                ],
            }
        ),
        [
            (req_path(0, "firstAvailable", 0, "name"), f'Invalid value: "{BAD}": {LABEL}'),
            (req_path(0, "firstAvailable", 1, "deviceClassName"), "Required value"),
            (
                req_path(0, "firstAvailable", 1, "count"),
                "Invalid value: 1: must not be specified when allocationMode is 'All'",
            ),
            (
                req_path(0, "firstAvailable", 2, "selectors", 0, "cel", "expression"),
                'Invalid value: "!!bad": ERROR: <input>:1:1: Syntax error',
            ),
            (req_path(0, "firstAvailable", 3), 'Duplicate value: "c"'),
        ],
    ),
    # Constraints
    (
        "constraints on requests and subrequests",
        claim(
            request("a"),
            {"name": "b", "firstAvailable": subs("x", "y")},
            constraints=[
                {"requests": ["a", "b/x"], "matchAttribute": "dra.example.com/numa"},
                {"distinctAttribute": "dra.example.com/nic"},
            ],
        ),
        [],
    ),
    (
        "constraint request references",
        claim(
            request("a"),
            constraints=[
                {
                    "requests": ["a", "a", "missing", "a/x", "a/b/c", BAD],
                    "matchAttribute": "dra.example.com/numa",
                }
            ],
        ),
        [
            (("spec", "devices", "constraints", 0, "requests", 2), f'Invalid value: "missing": {REF}'),
            (("spec", "devices", "constraints", 0, "requests", 3), f'Invalid value: "a/x": {REF}'),
            (("spec", "devices", "constraints", 0, "requests", 4), f'Invalid value: "a/b/c": {REF}'),
            (("spec", "devices", "constraints", 0, "requests", 5), f'Invalid value: "{BAD}": {LABEL}'),
            (("spec", "devices", "constraints", 0, "requests", 5), f'Invalid value: "{BAD}": {REF}'),
            (("spec", "devices", "constraints", 0, "requests", 1), 'Duplicate value: "a"'),
        ],
    ),
    (
        "constraint attributes need a domain",
        claim(constraints=[{"matchAttribute": "numa"}, {}]),
        [
            (
                ("spec", "devices", "constraints", 0, "matchAttribute"),
                'Invalid value: "numa": a fully qualified name must be a domain and a name separated by a '
                "slash",
            ),
            (
                ("spec", "devices", "constraints", 1),
                'Required value: exactly one of "matchAttribute" or "distinctAttribute" is required, '
                "but multiple fields are set",
            ),
        ],
    ),
    (
        "33 constraints",
        claim(constraints=[{"matchAttribute": "dra.example.com/numa"}] * 33),
        [(("spec", "devices", "constraints"), "Too many: 33: must have at most 32 items")],
    ),
    # Config
    (
        "claim configuration",
        claim(
            config=[
                {"requests": ["req-0"], "opaque": {"driver": "dra.example.com", "parameters": {"kind": "x"}}},
                {"requests": ["nope"], "opaque": {"driver": BAD, "parameters": {}}},
                {"requests": []},
                {"opaque": {"driver": "dra.example.com", "parameters": {"blob": "x" * (10 * 1024)}}},
            ]
        ),
        [
            (("spec", "devices", "config", 1, "requests", 0), f'Invalid value: "nope": {REF}'),
            (("spec", "devices", "config", 1, "opaque", "driver"), f'Invalid value: "{BAD}": {SUBDOMAIN}'),
            (("spec", "devices", "config", 2, "opaque"), "Required value"),
            (
                ("spec", "devices", "config", 3, "opaque", "parameters"),
                "Too long: may not be more than 10240 bytes",
            ),
        ],
    ),
    (
        "33 configurations",
        claim(config=[{"opaque": {"driver": "dra.example.com", "parameters": {}}}] * 33),
        [(("spec", "devices", "config"), "Too many: 33: must have at most 32 items")],
    ),
    # Derived attributes
    (
        "derived attributes used by constraints",
        claim(
            request("a", derivedAttributes=[derived("derived/numa")]),
            {"name": "b", "firstAvailable": subs("x", derivedAttributes=[derived("derived/nic")])},
            request("c", derivedAttributes=[derived("derived/zone")]),
            constraints=[
                {"matchAttribute": "derived/numa"},
                {"requests": ["b"], "distinctAttribute": "derived/nic"},
                {"requests": ["c"], "matchAttribute": "derived/zone"},
            ],
        ),
        [],
    ),
    (
        "derived attributes nobody reads",
        claim(
            request("a", derivedAttributes=[derived("derived/numa")]),
            request("b"),
            constraints=[{"requests": ["b"], "matchAttribute": "derived/numa"}],
        ),
        [
            (
                ex_path(0, "derivedAttributes", 0, "name"),
                'Invalid value: "derived/numa": must be referenced by at least one matchAttribute or '
                "distinctAttribute constraint targeting this request",
            )
        ],
    ),
    (
        "derived attribute names and expressions",
        claim(
            request(
                derivedAttributes=[
                    {"name": "", "expression": ""},
                    derived("numa"),
                    derived("derived/numa"),
                    derived("derived/numa"),
                ]
            ),
            constraints=[{"matchAttribute": "numa"}, {"matchAttribute": "derived/numa"}],
        ),
        [
            (ex_path(0, "derivedAttributes", 0, "name"), "Required value"),
            (ex_path(0, "derivedAttributes", 0, "expression"), "Required value"),
            (
                ex_path(0, "derivedAttributes", 1, "name"),
                'Invalid value: "numa": a fully qualified name must be a domain and a name separated by a '
                "slash",
            ),
            (ex_path(0, "derivedAttributes", 3), 'Duplicate value: "derived/numa"'),
            (
                ("spec", "devices", "constraints", 0, "matchAttribute"),
                'Invalid value: "numa": a fully qualified name must be a domain and a name separated by a '
                "slash",
            ),
        ],
    ),
    (
        "33 derived attributes",
        claim(
            request(derivedAttributes=[derived(f"derived/a{i}") for i in range(33)]),
            constraints=[{"matchAttribute": f"derived/a{i}"} for i in range(32)]
            + [{"matchAttribute": "derived/a32"}],
        ),
        [
            (ex_path(0, "derivedAttributes"), "Too many: 33: must have at most 32 items"),
            (("spec", "devices", "constraints"), "Too many: 33: must have at most 32 items"),
        ],
    ),
]


@pytest.mark.parametrize(("name", "manifest", "expected"), SPEC_CASES, ids=[c[0] for c in SPEC_CASES])
def test_claim_spec(
    name: str, manifest: dict[str, Any], expected: list[tuple[tuple[str | int, ...], str]]
) -> None:
    assert errors(manifest) == expected


def test_without_consumable_capacity_an_empty_constraint_asks_for_matchAttribute() -> None:
    manifest = claim(constraints=[{}])
    assert errors(manifest, Ctx("DRAConsumableCapacity")) == [
        (("spec", "devices", "constraints", 0, "matchAttribute"), "Required value")
    ]


def test_derived_expressions_compile_when_the_context_can_compile_them() -> None:
    manifest = claim(
        request(derivedAttributes=[derived("derived/numa", "!!bad")]),
        constraints=[{"matchAttribute": "derived/numa"}],
    )
    assert errors(manifest) == []
    assert errors(manifest, DerivedCtx()) == [
        (
            ex_path(0, "derivedAttributes", 0, "expression"),
            'Invalid value: "!!bad": ERROR: <input>:1:1: no such overload',
        )
    ]


STATUS_CASES: list[Case] = [
    (
        "an allocated claim",
        allocated(result(0), result(1, shareID=UID, consumedCapacity={"memory": "1Gi"})),
        [],
    ),
    ("32 results", allocated(*[result(i) for i in range(32)]), []),
    (
        "33 results",
        allocated(*[result(i) for i in range(33)]),
        [(("status", "allocation", "devices", "results"), "Too many: 33: must have at most 32 items")],
    ),
    (
        "result names",
        allocated(
            result(0, request="other", driver=BAD, pool="", device=BAD),
            result(1, shareID="not-a-uid"),
            result(2, shareID=UID.upper()),
        ),
        [
            (res_path(0, "request"), f'Invalid value: "other": {REF}'),
            (res_path(0, "driver"), f'Invalid value: "{BAD}": {SUBDOMAIN}'),
            (res_path(0, "pool"), "Required value"),
            (res_path(0, "device"), f'Invalid value: "{BAD}": {LABEL}'),
            (
                res_path(1, "shareID"),
                'Invalid value: "not-a-uid": error validating uid: invalid UUID length: 9',
            ),
            (
                res_path(2, "shareID"),
                f'Invalid value: "{UID.upper()}": uid must be in RFC 4122 normalized form, '
                "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters",
            ),
        ],
    ),
    (
        "result binding conditions, tolerations and skipped operations",
        allocated(
            result(
                0,
                bindingConditions=["ready"],
                tolerations=[{"key": "k", "operator": "Exists", "value": "v"}],
                skipNodeOperations=["NodePrepareResources"],
            )
        ),
        [
            (
                res_path(0, "bindingFailureConditions"),
                "Invalid value: []string(nil): bindingFailureConditions are required to use "
                "bindingConditions",
            ),
            (
                res_path(0, "tolerations", 0, "value"),
                'Invalid value: "v": must be empty for operator `Exists`',
            ),
            (
                res_path(0, "skipNodeOperations"),
                'Invalid value: []resource.SkipNodeOperation{"NodePrepareResources"}: NodePrepareResources '
                "cannot be skipped unless NodeUnprepareResources is also skipped",
            ),
        ],
    ),
    (
        "allocation configuration",
        with_(
            allocated(result(0)),
            lambda m: m["status"]["allocation"]["devices"].update(
                config=[
                    {"source": "FromClass", "opaque": {"driver": "dra.example.com", "parameters": {}}},
                    {
                        "source": "",
                        "requests": ["req-0"],
                        "opaque": {"driver": "dra.example.com", "parameters": {}},
                    },
                    {"source": "FromNowhere", "opaque": {"driver": "dra.example.com", "parameters": {}}},
                ]
            ),
        ),
        [
            (("status", "allocation", "devices", "config", 1, "source"), "Required value"),
            (
                ("status", "allocation", "devices", "config", 2, "source"),
                'Unsupported value: "FromNowhere": supported values: "FromClaim", "FromClass"',
            ),
        ],
    ),
    (
        "reservations need an allocation",
        with_(
            claim(),
            lambda m: m.update(status={"reservedFor": [{"resource": "pods", "name": "p", "uid": UID}]}),
        ),
        [(("status", "reservedFor"), "Forbidden: may not be specified when `allocated` is not set")],
    ),
    (
        "reservations name a unique consumer",
        allocated(
            result(0),
            reservedFor=[
                {"resource": "", "name": "", "uid": ""},
                {"resource": "pods", "name": "p", "uid": ""},
            ],
        ),
        [
            (("status", "reservedFor", 0, "resource"), "Required value"),
            (("status", "reservedFor", 0, "name"), "Required value"),
            (("status", "reservedFor", 0, "uid"), "Required value"),
            (("status", "reservedFor", 1, "uid"), "Required value"),
            (("status", "reservedFor", 1), 'Duplicate value: ""'),
        ],
    ),
    (
        "257 reservations",
        allocated(
            result(0), reservedFor=[{"resource": "pods", "name": "p", "uid": f"u{i}"} for i in range(257)]
        ),
        [(("status", "reservedFor"), "Too many: 257: must have at most 256 items")],
    ),
    (
        "device status for devices of the allocation",
        allocated(
            result(0),
            devices=[
                {
                    "driver": "dra.example.com",
                    "pool": "pool",
                    "device": "device-0",
                    "networkData": {
                        "ips": ["10.9.8.7/24", "2001:DB8::1/64", "nonsense"],
                        "interfaceName": "x" * 257,
                    },
                },
                {"driver": "dra.example.com", "pool": "pool", "device": "device-9"},
            ],
        ),
        [
            (
                ("status", "devices", 0, "networkData", "interfaceName"),
                "Too long: may not be more than 256 bytes",
            ),
            (
                ("status", "devices", 0, "networkData", "ips", 1),
                'Invalid value: "2001:DB8::1/64": must be in canonical form ("2001:db8::1/64")',
            ),
            (
                ("status", "devices", 0, "networkData", "ips", 2),
                'Invalid value: "nonsense": must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or '
                "2001:db8::1/64)",
            ),
            (
                ("status", "devices", 1),
                "Invalid value: dra.example.com/pool/device-9: must be an allocated device in the claim",
            ),
        ],
    ),
    (
        "the allocation node selector",
        with_(
            allocated(result(0)),
            lambda m: m["status"]["allocation"].update(
                nodeSelector={"nodeSelectorTerms": [{"matchFields": [{"key": "name", "operator": "Exists"}]}]}
            ),
        ),
        [
            (
                (
                    "status",
                    "allocation",
                    "nodeSelector",
                    "nodeSelectorTerms",
                    0,
                    "matchFields",
                    0,
                    "operator",
                ),
                'Invalid value: "Exists": not a valid selector operator',
            ),
            (
                ("status", "allocation", "nodeSelector", "nodeSelectorTerms", 0, "matchFields", 0, "key"),
                'Invalid value: "name": not a valid field selector key',
            ),
        ],
    ),
]


@pytest.mark.parametrize(("name", "manifest", "expected"), STATUS_CASES, ids=[c[0] for c in STATUS_CASES])
def test_claim_status(
    name: str, manifest: dict[str, Any], expected: list[tuple[tuple[str | int, ...], str]]
) -> None:
    assert errors(manifest) == expected


def template(devices: dict[str, Any], metadata: dict[str, Any] | None = None) -> V1ResourceClaimTemplate:
    spec: dict[str, Any] = {"spec": {"devices": devices}}
    if metadata is not None:
        spec["metadata"] = metadata
    return V1ResourceClaimTemplate.model_validate(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "t"},
            "spec": spec,
        }
    )


def test_a_template_validates_its_claim_spec_under_spec_spec() -> None:
    good = template({"requests": [request()]}, {"labels": {"app": "x"}})
    assert validate_resource_claim_template(good, Ctx()) == []
    bad = template({"requests": [request(deviceClassName="")]})
    found = [(e.path, e.message) for e in validate_resource_claim_template(bad, Ctx())]
    assert found == [
        (("spec", "spec", "devices", "requests", 0, "exactly", "deviceClassName"), "Required value")
    ]


def test_template_metadata_may_only_hold_labels_and_annotations() -> None:
    bad = template({"requests": [request()]}, {"name": "x", "labels": {"app": BAD}})
    found = [(e.path, e.message) for e in validate_resource_claim_template(bad, Ctx())]
    assert found == [
        (("spec", "metadata", "labels"), f'Invalid value: "{BAD}": {LABEL_VALUE}'),
        (("spec", "metadata"), "Forbidden: Name cannot be set"),
    ]


def test_malformed_quantities_in_a_claim() -> None:
    manifest = with_(
        allocated(result(0, consumedCapacity={"memory": "1 Gi"})),
        lambda m: m["spec"]["devices"]["requests"][0]["exactly"].update(
            capacity={"requests": {"memory": "x"}}
        ),
    )
    found = errors(manifest)
    assert [p for p, _ in found] == [
        ex_path(0, "capacity", "requests", "memory"),
        res_path(0, "consumedCapacity", "memory"),
    ]
    assert all(m.startswith("Invalid value: ") for _, m in found)
