"""ResourceClaim and ResourceClaimTemplate validation of the spec, rule by rule.

Cases follow kubernetes/kubernetes `validation_resourceclaim_test.go` and
`validation_resourceclaimtemplate_test.go`, rewritten as camelCase manifests.
"""

from __future__ import annotations

from typing import Any

from claim_manifests import REF, claim, derived, errors, ex_path, req_path, request, subs
from kubernetes.client.models import V1ResourceClaimTemplate
from validation_helpers import (
    BAD,
    LABEL,
    LABEL_VALUE,
    NAME_PART,
    SUBDOMAIN,
    Case,
    Ctx,
    DerivedCtx,
    Found,
    cases,
    pairs,
    with_,
)

from kubefit.translate.validation.resource_claim import validate_resource_claim_template

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


@cases(SPEC_CASES)
def test_claim_spec(name: str, manifest: dict[str, Any], expected: Found) -> None:
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
    found = pairs(validate_resource_claim_template(bad, Ctx()))
    assert found == [
        (("spec", "spec", "devices", "requests", 0, "exactly", "deviceClassName"), "Required value")
    ]


def test_template_metadata_may_only_hold_labels_and_annotations() -> None:
    bad = template({"requests": [request()]}, {"name": "x", "labels": {"app": BAD}})
    found = pairs(validate_resource_claim_template(bad, Ctx()))
    assert found == [
        (("spec", "metadata", "labels"), f'Invalid value: "{BAD}": {LABEL_VALUE}'),
        (("spec", "metadata"), "Forbidden: Name cannot be set"),
    ]
