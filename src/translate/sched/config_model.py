"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): kube-scheduler's configuration file.

The whole v1 schema is read, so a real configuration file loads without noise. Fields that
concern only the scheduler process (leader election, client connection, profiling, extenders'
transport) are read and checked as kube-scheduler checks them, and change nothing kubefit
predicts. Plugin args are typed by the plugin they configure, as kube-scheduler decodes them
(`<Plugin>Args`); the args of plugins that take none, or that kube-scheduler does not know,
are kept as written.

Scalars are strict, as Go's decoder is: `"5"` is no integer and `"true"` no boolean.
"""

from __future__ import annotations

from typing import Annotated, Any, Generic, TypeVar

from kubernetes.client.models import V1LabelSelector, V1NodeAffinity
from pydantic import AfterValidator, Discriminator, Field, Strict, Tag
from pydantic_core import PydanticCustomError

from ..model_base import KubefitModel, ObjectModel
from .go_duration import DurationError, parse

API_VERSION = "kubescheduler.config.k8s.io/v1"


def _bounded(bits: int) -> AfterValidator:
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1

    def check(value: int) -> int:
        if not low <= value <= high:
            raise PydanticCustomError("int_bits", f"{value} does not fit in an int{bits}")
        return value

    return AfterValidator(check)


def _duration(text: str) -> str:
    try:
        parse(text)
    except DurationError as e:
        raise PydanticCustomError("go_duration", str(e)) from None
    return text


Int32 = Annotated[int, Strict(), _bounded(32)]
Int64 = Annotated[int, Strict(), _bounded(64)]
Bool = Annotated[bool, Strict()]
Text = Annotated[str, Strict()]
# A metav1.Duration as written (`10s`); go_duration.parse reads it.
Duration = Annotated[str, Strict(), AfterValidator(_duration)]

# --- plugins --------------------------------------------------------------------------------------


class Plugin(KubefitModel):
    name: Text
    weight: Int32 | None = None


class PluginSet(KubefitModel):
    enabled: list[Plugin] = Field(default_factory=list)
    disabled: list[Plugin] = Field(default_factory=list)


class Plugins(KubefitModel):
    """The plugin sets of one profile, by extension point (the field name is the point's name)."""

    pre_enqueue: PluginSet | None = Field(default=None, alias="preEnqueue")
    queue_sort: PluginSet | None = Field(default=None, alias="queueSort")
    pre_filter: PluginSet | None = Field(default=None, alias="preFilter")
    filter: PluginSet | None = None
    post_filter: PluginSet | None = Field(default=None, alias="postFilter")
    pre_score: PluginSet | None = Field(default=None, alias="preScore")
    score: PluginSet | None = None
    reserve: PluginSet | None = None
    permit: PluginSet | None = None
    pre_bind: PluginSet | None = Field(default=None, alias="preBind")
    bind: PluginSet | None = None
    post_bind: PluginSet | None = Field(default=None, alias="postBind")
    multi_point: PluginSet | None = Field(default=None, alias="multiPoint")
    # Pod-group (workload) scheduling; kubefit's plugins implement none of these points.
    placement_generate: PluginSet | None = Field(default=None, alias="placementGenerate")
    placement_score: PluginSet | None = Field(default=None, alias="placementScore")
    placement_feasible: PluginSet | None = Field(default=None, alias="placementFeasible")
    pod_group_post_filter: PluginSet | None = Field(default=None, alias="podGroupPostFilter")

    def by_point(self) -> dict[str, PluginSet]:
        """The sets written, keyed by the extension point's name as the file spells it."""
        out: dict[str, PluginSet] = {}
        for name, info in type(self).model_fields.items():
            value = getattr(self, name)
            if value is not None:
                out[info.alias or name] = value
        return out


# --- plugin args ----------------------------------------------------------------------------------


class ArgsModel(KubefitModel):
    """Every args type may name itself (`apiVersion`, `kind`), as a nested object of the scheme."""

    api_version: Text | None = Field(default=None, alias="apiVersion")
    kind: Text | None = None


class ResourceSpec(KubefitModel):
    name: Text = ""
    weight: Int64 = 0


class UtilizationShapePoint(KubefitModel):
    utilization: Int32 = 0
    score: Int32 = 0


class RequestedToCapacityRatioParam(KubefitModel):
    shape: list[UtilizationShapePoint] = Field(default_factory=list)


class ScoringStrategy(KubefitModel):
    type: Text = ""
    resources: list[ResourceSpec] = Field(default_factory=list)
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = Field(
        default=None, alias="requestedToCapacityRatio"
    )


class NodeResourcesFitArgs(ArgsModel):
    ignored_resources: list[Text] = Field(default_factory=list, alias="ignoredResources")
    ignored_resource_groups: list[Text] = Field(default_factory=list, alias="ignoredResourceGroups")
    scoring_strategy: ScoringStrategy | None = Field(default=None, alias="scoringStrategy")


class NodeResourcesBalancedAllocationArgs(ArgsModel):
    resources: list[ResourceSpec] = Field(default_factory=list)


class NodeAffinityArgs(ArgsModel):
    added_affinity: V1NodeAffinity | None = Field(default=None, alias="addedAffinity")


class TopologySpreadConstraint(KubefitModel):
    """core/v1 TopologySpreadConstraint with Go's zero values, so validation can name what is missing."""

    max_skew: Int32 = Field(default=0, alias="maxSkew")
    topology_key: Text = Field(default="", alias="topologyKey")
    when_unsatisfiable: Text = Field(default="", alias="whenUnsatisfiable")
    label_selector: V1LabelSelector | None = Field(default=None, alias="labelSelector")
    min_domains: Int32 | None = Field(default=None, alias="minDomains")
    node_affinity_policy: Text | None = Field(default=None, alias="nodeAffinityPolicy")
    node_taints_policy: Text | None = Field(default=None, alias="nodeTaintsPolicy")
    match_label_keys: list[Text] = Field(default_factory=list, alias="matchLabelKeys")


class PodTopologySpreadArgs(ArgsModel):
    default_constraints: list[TopologySpreadConstraint] = Field(
        default_factory=list, alias="defaultConstraints"
    )
    defaulting_type: Text = Field(default="", alias="defaultingType")


class InterPodAffinityArgs(ArgsModel):
    hard_pod_affinity_weight: Int32 | None = Field(default=None, alias="hardPodAffinityWeight")
    ignore_preferred_terms_of_existing_pods: Bool = Field(
        default=False, alias="ignorePreferredTermsOfExistingPods"
    )


class DefaultPreemptionArgs(ArgsModel):
    min_candidate_nodes_percentage: Int32 | None = Field(default=None, alias="minCandidateNodesPercentage")
    min_candidate_nodes_absolute: Int32 | None = Field(default=None, alias="minCandidateNodesAbsolute")


class VolumeBindingArgs(ArgsModel):
    bind_timeout_seconds: Int64 | None = Field(default=None, alias="bindTimeoutSeconds")
    shape: list[UtilizationShapePoint] = Field(default_factory=list)


class DynamicResourcesArgs(ArgsModel):
    filter_timeout: Duration | None = Field(default=None, alias="filterTimeout")
    binding_timeout: Duration | None = Field(default=None, alias="bindingTimeout")


# Plugin name -> the args type kube-scheduler decodes its pluginConfig into.
ARGS_MODELS: dict[str, type[ArgsModel]] = {
    "NodeResourcesFit": NodeResourcesFitArgs,
    "NodeResourcesBalancedAllocation": NodeResourcesBalancedAllocationArgs,
    "NodeAffinity": NodeAffinityArgs,
    "PodTopologySpread": PodTopologySpreadArgs,
    "InterPodAffinity": InterPodAffinityArgs,
    "DefaultPreemption": DefaultPreemptionArgs,
    "VolumeBinding": VolumeBindingArgs,
    "DynamicResources": DynamicResourcesArgs,
}

ArgsT = TypeVar("ArgsT", bound=ArgsModel)


class TypedPluginConfig(KubefitModel, Generic[ArgsT]):
    name: Text
    args: ArgsT | None = None


class RawPluginConfig(KubefitModel):
    name: Text
    args: Any = None


def _config_tag(name: str) -> str:
    # A tag with brackets: the loader leaves union tags out of the field paths it reports.
    return f"pluginConfig[{name}]"


_RAW = _config_tag("*")


def _config_kind(value: Any) -> str:
    name = value.get("name") if isinstance(value, dict) else getattr(value, "name", None)
    return _config_tag(name) if isinstance(name, str) and name in ARGS_MODELS else _RAW


PluginConfig = Annotated[
    Annotated[TypedPluginConfig[NodeResourcesFitArgs], Tag(_config_tag("NodeResourcesFit"))]
    | Annotated[
        TypedPluginConfig[NodeResourcesBalancedAllocationArgs],
        Tag(_config_tag("NodeResourcesBalancedAllocation")),
    ]
    | Annotated[TypedPluginConfig[NodeAffinityArgs], Tag(_config_tag("NodeAffinity"))]
    | Annotated[TypedPluginConfig[PodTopologySpreadArgs], Tag(_config_tag("PodTopologySpread"))]
    | Annotated[TypedPluginConfig[InterPodAffinityArgs], Tag(_config_tag("InterPodAffinity"))]
    | Annotated[TypedPluginConfig[DefaultPreemptionArgs], Tag(_config_tag("DefaultPreemption"))]
    | Annotated[TypedPluginConfig[VolumeBindingArgs], Tag(_config_tag("VolumeBinding"))]
    | Annotated[TypedPluginConfig[DynamicResourcesArgs], Tag(_config_tag("DynamicResources"))]
    | Annotated[RawPluginConfig, Tag(_RAW)],
    Discriminator(_config_kind),
]


# --- profiles and the configuration ---------------------------------------------------------------


class KubeSchedulerProfile(KubefitModel):
    scheduler_name: Text | None = Field(default=None, alias="schedulerName")
    percentage_of_nodes_to_score: Int32 | None = Field(default=None, alias="percentageOfNodesToScore")
    # Pod-group placement search; not modelled.
    percentage_of_placements_to_score: Int32 | None = Field(
        default=None, alias="percentageOfPlacementsToScore"
    )
    plugins: Plugins | None = None
    plugin_config: list[PluginConfig] = Field(default_factory=list, alias="pluginConfig")


class LeaderElectionConfiguration(KubefitModel):
    leader_elect: Bool | None = Field(default=None, alias="leaderElect")
    lease_duration: Duration | None = Field(default=None, alias="leaseDuration")
    renew_deadline: Duration | None = Field(default=None, alias="renewDeadline")
    retry_period: Duration | None = Field(default=None, alias="retryPeriod")
    resource_lock: Text = Field(default="", alias="resourceLock")
    resource_name: Text = Field(default="", alias="resourceName")
    resource_namespace: Text = Field(default="", alias="resourceNamespace")


class ClientConnectionConfiguration(KubefitModel):
    kubeconfig: Text = ""
    accept_content_types: Text = Field(default="", alias="acceptContentTypes")
    content_type: Text = Field(default="", alias="contentType")
    qps: float = 0.0
    burst: Int32 = 0


class ExtenderManagedResource(KubefitModel):
    name: Text = ""
    ignored_by_scheduler: Bool = Field(default=False, alias="ignoredByScheduler")


class ExtenderTLSConfig(KubefitModel):
    insecure: Bool = False
    server_name: Text = Field(default="", alias="serverName")
    cert_file: Text = Field(default="", alias="certFile")
    key_file: Text = Field(default="", alias="keyFile")
    ca_file: Text = Field(default="", alias="caFile")
    cert_data: Text = Field(default="", alias="certData")
    key_data: Text = Field(default="", alias="keyData")
    ca_data: Text = Field(default="", alias="caData")


class Extender(KubefitModel):
    """An HTTP scheduler extender: checked, not called (kubefit cannot ask it)."""

    url_prefix: Text = Field(default="", alias="urlPrefix")
    filter_verb: Text = Field(default="", alias="filterVerb")
    preempt_verb: Text = Field(default="", alias="preemptVerb")
    prioritize_verb: Text = Field(default="", alias="prioritizeVerb")
    weight: Int64 = 0
    bind_verb: Text = Field(default="", alias="bindVerb")
    enable_https: Bool = Field(default=False, alias="enableHTTPS")
    tls_config: ExtenderTLSConfig | None = Field(default=None, alias="tlsConfig")
    http_timeout: Duration | None = Field(default=None, alias="httpTimeout")
    node_cache_capable: Bool = Field(default=False, alias="nodeCacheCapable")
    managed_resources: list[ExtenderManagedResource] = Field(default_factory=list, alias="managedResources")
    ignorable: Bool = False


class KubeSchedulerConfiguration(ObjectModel):
    """kube-scheduler's configuration. `metadata` is kubefit's addition (v1 has none): it names the
    object in messages."""

    api_version: str = Field(default=API_VERSION, alias="apiVersion")
    kind: str = "KubeSchedulerConfiguration"
    parallelism: Int32 | None = None
    leader_election: LeaderElectionConfiguration | None = Field(default=None, alias="leaderElection")
    client_connection: ClientConnectionConfiguration | None = Field(default=None, alias="clientConnection")
    enable_profiling: Bool | None = Field(default=None, alias="enableProfiling")
    enable_contention_profiling: Bool | None = Field(default=None, alias="enableContentionProfiling")
    percentage_of_nodes_to_score: Int32 | None = Field(default=None, alias="percentageOfNodesToScore")
    percentage_of_placements_to_score: Int32 | None = Field(
        default=None, alias="percentageOfPlacementsToScore"
    )
    pod_initial_backoff_seconds: Int64 | None = Field(default=None, alias="podInitialBackoffSeconds")
    pod_max_backoff_seconds: Int64 | None = Field(default=None, alias="podMaxBackoffSeconds")
    profiles: list[KubeSchedulerProfile] = Field(default_factory=list)
    extenders: list[Extender] = Field(default_factory=list)
    delay_cache_until_active: Bool = Field(default=False, alias="delayCacheUntilActive")
