"""`kubefit topology`: a machine's CPU, NUMA, cache and memory layout as a NodeTopology, from Linux sysfs
or the kubelet's cAdvisor machine info."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from .requests import EXIT_OK, Answer


@dataclass(frozen=True)
class TopologyRequest:
    fmt: str  # json or yaml
    cadvisor: str | None = None  # the kubelet's /spec machine info (JSON)
    sysfs: str | None = None  # else: read ROOT/sys/devices/system (the command line: / by default)
    name: str | None = None  # metadata.name (default: the host name)


def topology(request: TopologyRequest) -> Answer:
    from ..translate.node.sources import from_cadvisor, from_sysfs

    if request.cadvisor:
        doc = from_cadvisor(request.cadvisor, request.name)
    else:
        # (with an empty --from-cadvisor, no ROOT at all: refused as it always was)
        doc = from_sysfs(cast(str, request.sysfs), request.name)
    return Answer(doc, "", EXIT_OK, request.fmt)
