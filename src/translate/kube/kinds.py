"""Which model reads which (apiVersion, kind), and how older API versions become the one we use.

API kinds are read with the official Kubernetes client's pydantic models. kubefit
works on one version of each kind it understands (resource.k8s.io/v1 for DRA);
objects written in an older served version are converted the way the API server
converts them. Kinds no API server serves (KubeletConfiguration, NodeTopology) use
our own models.
"""

from __future__ import annotations

import copy
import importlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import kubernetes.client.models as k8s
from pydantic import BaseModel

Converter = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class KindInfo:
    group: str
    version: str
    kind: str
    # A model class, or where to find one, imported on first use (building pydantic classes is most
    # of kubefit's start-up time): the name of one in kubernetes.client.models, or `module:Class` of
    # kubefit's own models.
    model_ref: type[BaseModel] | str
    namespaced: bool
    # Set when this version is converted to another one before use.
    canonical_version: str | None = None
    convert: Converter | None = None

    @property
    def model(self) -> type[BaseModel]:
        if isinstance(self.model_ref, str):
            module, _, name = self.model_ref.rpartition(":")
            model: type[BaseModel] = getattr(
                importlib.import_module(module, __package__) if module else k8s, name
            )
            return model
        return self.model_ref

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


def _same_shape(doc: dict[str, Any]) -> dict[str, Any]:
    """For versions whose schema equals the canonical one (v1beta2 -> v1)."""
    return doc


def _v1beta1_device(device: dict[str, Any]) -> dict[str, Any]:
    # v1beta1 wraps the device's content in `basic`; v1 has it inline.
    out = {k: v for k, v in device.items() if k != "basic"}
    basic = device.get("basic")
    if isinstance(basic, dict):
        out.update(basic)
    return out


def _v1beta1_slice(doc: dict[str, Any]) -> dict[str, Any]:
    spec = doc.get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("devices"), list):
        spec["devices"] = [_v1beta1_device(d) if isinstance(d, dict) else d for d in spec["devices"]]
    return doc


_EXACT_FIELDS = (
    "deviceClassName",
    "selectors",
    "allocationMode",
    "count",
    "adminAccess",
    "tolerations",
    "capacity",
    "derivedAttributes",
)


def _v1beta1_request(request: dict[str, Any]) -> dict[str, Any]:
    # v1beta1 puts the "exactly" fields on the request itself.
    if "firstAvailable" in request:
        return request
    out = {k: v for k, v in request.items() if k not in _EXACT_FIELDS}
    exactly = {k: request[k] for k in _EXACT_FIELDS if k in request}
    out["exactly"] = exactly
    return out


def _v1beta1_claim_spec(spec: Any) -> None:
    devices = spec.get("devices") if isinstance(spec, dict) else None
    if isinstance(devices, dict) and isinstance(devices.get("requests"), list):
        devices["requests"] = [_v1beta1_request(r) if isinstance(r, dict) else r for r in devices["requests"]]


def _v1beta1_claim(doc: dict[str, Any]) -> dict[str, Any]:
    _v1beta1_claim_spec(doc.get("spec"))
    return doc


def _v1beta1_claim_template(doc: dict[str, Any]) -> dict[str, Any]:
    spec = doc.get("spec")
    if isinstance(spec, dict):
        _v1beta1_claim_spec(spec.get("spec"))
    return doc


RESOURCE = "resource.k8s.io"
SCHEDULING = "scheduling.k8s.io"

_KNOWN: list[KindInfo] = [
    KindInfo("", "v1", "Node", "V1Node", False),
    KindInfo("", "v1", "Pod", "V1Pod", True),
    KindInfo("", "v1", "Namespace", "V1Namespace", False),
    KindInfo(RESOURCE, "v1", "ResourceSlice", "V1ResourceSlice", False),
    KindInfo(RESOURCE, "v1", "DeviceClass", "V1DeviceClass", False),
    KindInfo(RESOURCE, "v1", "ResourceClaim", "ResourceV1ResourceClaim", True),
    KindInfo(RESOURCE, "v1", "ResourceClaimTemplate", "V1ResourceClaimTemplate", True),
    KindInfo(RESOURCE, "v1", "DeviceTaintRule", "V1DeviceTaintRule", False),
    KindInfo(RESOURCE, "v1beta2", "ResourceSlice", "V1beta2ResourceSlice", False, "v1", _same_shape),
    KindInfo(RESOURCE, "v1beta2", "DeviceClass", "V1beta2DeviceClass", False, "v1", _same_shape),
    KindInfo(RESOURCE, "v1beta2", "ResourceClaim", "V1beta2ResourceClaim", True, "v1", _same_shape),
    KindInfo(
        RESOURCE, "v1beta2", "ResourceClaimTemplate", "V1beta2ResourceClaimTemplate", True, "v1", _same_shape
    ),
    KindInfo(RESOURCE, "v1beta2", "DeviceTaintRule", "V1beta2DeviceTaintRule", False, "v1", _same_shape),
    KindInfo(RESOURCE, "v1alpha3", "DeviceTaintRule", "V1alpha3DeviceTaintRule", False, "v1", _same_shape),
    KindInfo(RESOURCE, "v1beta1", "ResourceSlice", "V1beta1ResourceSlice", False, "v1", _v1beta1_slice),
    KindInfo(RESOURCE, "v1beta1", "DeviceClass", "V1beta1DeviceClass", False, "v1", _same_shape),
    KindInfo(RESOURCE, "v1beta1", "ResourceClaim", "V1beta1ResourceClaim", True, "v1", _v1beta1_claim),
    KindInfo(
        RESOURCE,
        "v1beta1",
        "ResourceClaimTemplate",
        "V1beta1ResourceClaimTemplate",
        True,
        "v1",
        _v1beta1_claim_template,
    ),
    KindInfo(SCHEDULING, "v1beta1", "PodGroup", "V1beta1PodGroup", True),
    KindInfo(SCHEDULING, "v1alpha3", "PodGroup", "V1alpha3PodGroup", True, "v1beta1", _same_shape),
    # The client has no v1alpha2 models; its PodGroup had the same fields as v1alpha3.
    KindInfo(SCHEDULING, "v1alpha2", "PodGroup", "V1alpha3PodGroup", True, "v1beta1", _same_shape),
    KindInfo(SCHEDULING, "v1alpha3", "CompositePodGroup", "V1alpha3CompositePodGroup", True),
    KindInfo(
        "kubelet.config.k8s.io",
        "v1beta1",
        "KubeletConfiguration",
        "..kubelet_config:KubeletConfiguration",
        False,
    ),
    KindInfo("kubefit.io", "v1alpha1", "NodeTopology", "..node_topology:NodeTopology", False),
    KindInfo(
        "kubescheduler.config.k8s.io",
        "v1",
        "KubeSchedulerConfiguration",
        "..sched.config_model:KubeSchedulerConfiguration",
        False,
    ),
]

_BY_KEY = {(k.group, k.version, k.kind): k for k in _KNOWN}
# The groups kubefit reads each of its kinds in: a ResourceClaim of another group is another API's kind.
_GROUPS_OF: dict[str, set[str]] = {}
for _k in _KNOWN:
    _GROUPS_OF.setdefault(_k.kind, set()).add(_k.group)
# Groups whose kinds the client's models are: the core group, the unsuffixed built-in groups and those
# under k8s.io (a kind of example.com/v1 is a custom resource, whatever its name).
_BUILTIN_GROUPS = frozenset({"", "apps", "batch", "policy", "autoscaling", "extensions"})

# Cluster-scoped built-in kinds (everything else the client knows is namespaced).
_CLUSTER_SCOPED = {
    "Node",
    "Namespace",
    "PersistentVolume",
    "StorageClass",
    "CSIDriver",
    "CSINode",
    "ClusterRole",
    "ClusterRoleBinding",
    "PriorityClass",
    "RuntimeClass",
    "CustomResourceDefinition",
    "APIService",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
    "VolumeAttachment",
    "IngressClass",
    "CertificateSigningRequest",
    "FlowSchema",
    "PriorityLevelConfiguration",
    "ResourceSlice",
    "DeviceClass",
    "DeviceTaintRule",
    "IPAddress",
    "ServiceCIDR",
    "StorageVersionMigration",
    "VolumeAttributesClass",
    "ClusterTrustBundle",
    "ResourcePoolStatusRequest",
}


def prefetch() -> Iterator[None]:
    """The client's models of the served kinds a cluster dump holds (v1: Node, Pod, the DRA kinds),
    imported one at a time, for a reader that waits anyway (see `json_child`); each model is
    otherwise imported when the loader first meets its kind."""
    for info in _KNOWN:
        if info.version == "v1" and isinstance(info.model_ref, str) and ":" not in info.model_ref:
            info.model  # noqa: B018 - imported on first use
            yield


def split_api_version(api_version: str) -> tuple[str, str]:
    if "/" in api_version:
        group, _, version = api_version.partition("/")
        return group, version
    return "", api_version


def _camel_group(group: str) -> str:
    if not group:
        return "Core"
    first = group.split(".")[0]
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[-_]", first))


def lookup(api_version: str, kind: str) -> KindInfo | None:
    """The model for an (apiVersion, kind), or None when neither kubefit nor the client knows it."""
    group, version = split_api_version(api_version)
    known = _BY_KEY.get((group, version, kind))
    if known is not None:
        return known
    if not version or not kind:
        return None
    if kind in _GROUPS_OF and group not in _GROUPS_OF[kind]:
        return None
    if group not in _BUILTIN_GROUPS and not group.endswith(".k8s.io"):
        return None
    prefix = version[:1].upper() + version[1:]
    # The client prefixes a model with its group only where two groups share a kind name.
    for name in (f"{_camel_group(group)}{prefix}{kind}", f"{prefix}{kind}"):
        try:
            model = getattr(k8s, name, None)
        except ImportError:
            model = None
        if isinstance(model, type) and issubclass(model, BaseModel) and "kind" in model.model_fields:
            return KindInfo(group, version, kind, model, kind not in _CLUSTER_SCOPED)
    return None


def known_versions(kind: str) -> list[str]:
    """The apiVersions under which kubefit reads `kind` (for "did you mean" messages)."""
    return sorted({k.api_version for k in _KNOWN if k.kind == kind})


def canonical(info: KindInfo) -> KindInfo:
    """The KindInfo of the version kubefit works on for this kind."""
    if info.canonical_version is None:
        return info
    return _BY_KEY[(info.group, info.canonical_version, info.kind)]


def converted(info: KindInfo, doc: dict[str, Any]) -> dict[str, Any]:
    """The document rewritten into the canonical version (a deep copy; the input is untouched)."""
    if info.convert is None:
        return doc
    target = canonical(info)
    out = info.convert(copy.deepcopy(dict(doc)))
    out["apiVersion"] = target.api_version
    return out
