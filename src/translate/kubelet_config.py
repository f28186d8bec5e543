"""KubeletConfiguration (kubelet.config.k8s.io/v1beta1): the settings kubefit's node answers depend on.

Only the resource-manager settings are modelled. The many other kubelet fields are
recognised and ignored, so a real config file loads without noise; a field the
kubelet does not have at all is still reported as unknown.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from .model_base import KubefitModel, ObjectModel, QuantityText

# Fields of KubeletConfiguration v1beta1 that do not affect what kubefit predicts.
IGNORED_FIELDS = frozenset(
    [
        "enableServer",
        "staticPodPath",
        "podLogsDir",
        "syncFrequency",
        "fileCheckFrequency",
        "httpCheckFrequency",
        "staticPodURL",
        "staticPodURLHeader",
        "address",
        "port",
        "readOnlyPort",
        "tlsCertFile",
        "tlsPrivateKeyFile",
        "tlsCipherSuites",
        "tlsMinVersion",
        "rotateCertificates",
        "serverTLSBootstrap",
        "authentication",
        "authorization",
        "registryPullQPS",
        "registryBurst",
        "imagePullCredentialsVerificationPolicy",
        "preloadedImagesVerificationAllowlist",
        "eventRecordQPS",
        "eventBurst",
        "enableDebuggingHandlers",
        "enableContentionProfiling",
        "healthzPort",
        "healthzBindAddress",
        "oomScoreAdj",
        "clusterDomain",
        "clusterDNS",
        "streamingConnectionIdleTimeout",
        "nodeStatusUpdateFrequency",
        "nodeStatusReportFrequency",
        "nodeLeaseDurationSeconds",
        "imageMinimumGCAge",
        "imageMaximumGCAge",
        "imageGCHighThresholdPercent",
        "imageGCLowThresholdPercent",
        "volumeStatsAggPeriod",
        "kubeletCgroups",
        "systemCgroups",
        "cgroupRoot",
        "cgroupsPerQOS",
        "cgroupDriver",
        "singleProcessOOMKill",
        "cpuManagerReconcilePeriod",
        "qosReserved",
        "runtimeRequestTimeout",
        "hairpinMode",
        "maxPods",
        "podCIDR",
        "podPidsLimit",
        "resolvConf",
        "runOnce",
        "cpuCFSQuota",
        "cpuCFSQuotaPeriod",
        "nodeStatusMaxImages",
        "maxOpenFiles",
        "contentType",
        "kubeAPIQPS",
        "kubeAPIBurst",
        "serializeImagePulls",
        "maxParallelImagePulls",
        "evictionSoft",
        "evictionSoftGracePeriod",
        "evictionPressureTransitionPeriod",
        "evictionMaxPodGracePeriod",
        "evictionMinimumReclaim",
        "mergeDefaultEvictionSettings",
        "podsPerCore",
        "enableControllerAttachDetach",
        "protectKernelDefaults",
        "makeIPTablesUtilChains",
        "iptablesMasqueradeBit",
        "iptablesDropBit",
        "failSwapOn",
        "memorySwap",
        "containerLogMaxSize",
        "containerLogMaxFiles",
        "containerLogMaxWorkers",
        "containerLogMonitorInterval",
        "configMapAndSecretChangeDetectionStrategy",
        "showHiddenMetricsForVersion",
        "systemReservedCgroup",
        "kubeReservedCgroup",
        "enforceNodeAllocatable",
        "allowedUnsafeSysctls",
        "volumePluginDir",
        "providerID",
        "kernelMemcgNotification",
        "logging",
        "enableSystemLogHandler",
        "enableSystemLogQuery",
        "shutdownGracePeriod",
        "shutdownGracePeriodCriticalPods",
        "shutdownGracePeriodByPodPriority",
        "crashLoopBackOff",
        "enableProfilingHandler",
        "enableDebugFlagsHandler",
        "seccompDefault",
        "memoryThrottlingFactor",
        "registerWithTaints",
        "registerNode",
        "tracing",
        "localStorageCapacityIsolation",
        "containerRuntimeEndpoint",
        "imageServiceEndpoint",
        "failCgroupV1",
        "userNamespaces",
    ]
)


class ReservedMemory(KubefitModel):
    numa_node: int = Field(alias="numaNode")
    limits: dict[str, QuantityText] = Field(default_factory=dict)


class KubeletConfiguration(ObjectModel):
    """The resource-manager part of a kubelet's configuration.

    `metadata.name`, when set, names the Node it configures; without a name it
    applies to every node of the input.
    """

    api_version: str = Field(default="kubelet.config.k8s.io/v1beta1", alias="apiVersion")
    kind: str = "KubeletConfiguration"
    cpu_manager_policy: str = Field(default="none", alias="cpuManagerPolicy")
    cpu_manager_policy_options: dict[str, str] = Field(default_factory=dict, alias="cpuManagerPolicyOptions")
    reserved_system_cpus: str = Field(default="", alias="reservedSystemCPUs")
    kube_reserved: dict[str, QuantityText] = Field(default_factory=dict, alias="kubeReserved")
    system_reserved: dict[str, QuantityText] = Field(default_factory=dict, alias="systemReserved")
    eviction_hard: dict[str, str] = Field(default_factory=dict, alias="evictionHard")
    topology_manager_policy: str = Field(default="none", alias="topologyManagerPolicy")
    topology_manager_scope: str = Field(default="container", alias="topologyManagerScope")
    topology_manager_policy_options: dict[str, str] = Field(
        default_factory=dict, alias="topologyManagerPolicyOptions"
    )
    memory_manager_policy: str = Field(default="None", alias="memoryManagerPolicy")
    reserved_memory: list[ReservedMemory] = Field(default_factory=list, alias="reservedMemory")
    feature_gates: dict[str, bool] = Field(default_factory=dict, alias="featureGates")
    ignored: dict[str, Any] = Field(default_factory=dict, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _set_aside_ignored(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        kept = {k: v for k, v in data.items() if k not in IGNORED_FIELDS}
        kept["ignored"] = {k: v for k, v in data.items() if k in IGNORED_FIELDS}
        return kept
