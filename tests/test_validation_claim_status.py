"""ResourceClaim validation of the status: reservations, the allocation result and device status.

Cases follow kubernetes/kubernetes `validation_resourceclaim_test.go`, rewritten
as camelCase manifests.
"""

from __future__ import annotations

from typing import Any

from claim_manifests import REF, UID, allocated, claim, errors, ex_path, res_path, result
from validation_helpers import BAD, LABEL, SUBDOMAIN, Case, Found, cases, with_

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


@cases(STATUS_CASES)
def test_claim_status(name: str, manifest: dict[str, Any], expected: Found) -> None:
    assert errors(manifest) == expected


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
