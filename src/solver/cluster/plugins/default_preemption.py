"""DefaultPreemption (pkg/scheduler/framework/plugins/defaultpreemption): the PostFilter plugin that
makes room for a pod no node accepts by preempting lower-priority pods.

With GenericWorkload on, a pod of a scheduling group never preempts alone: its PodGroup's cycle runs
the plugin's PodGroupPostFilter instead (podgroup.post_filter).

The scheduler lends it, through the Handle's services, the running framework ("framework"), the
nominated pods of a node ("nominated"), its random source ("rng", None for deterministic runs)
and the way to act on the decision ("preempt": evict the victims, clear the nominations). Victims
are evicted synchronously, so the PreEnqueue gate of asynchronous preemption has nothing to hold.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from ....model.cluster import names
from ....model.cluster.args import DefaultPreemptionArgs
from ....model.cluster.facts import Pod
from ....model.cluster.points import POD_GROUP_POST_FILTER, POST_FILTER
from ..framework import Code, CycleState, Handle, Plugin, Status
from ..preemption import Preemption, Services, preempt
from ..runtime import Framework

PREFIX = "preemption: "
WORKLOAD_AWARE = "not eligible due to workload aware preemption enabled"

PreemptFn = Callable[[Pod, str, list[Pod], list[Pod]], None]


class DefaultPreemption(Plugin):
    name = names.DEFAULT_PREEMPTION
    # The PodGroup cycle runs the podGroupPostFilter point itself (podgroup.post_filter).
    points = frozenset({POST_FILTER, POD_GROUP_POST_FILTER})

    def __init__(self, handle: Handle, args: Any = None) -> None:
        super().__init__(handle, args)
        if args is None:
            args = DefaultPreemptionArgs()
        if not isinstance(args, DefaultPreemptionArgs):
            raise TypeError(f"want args to be of type DefaultPreemptionArgs, got {type(args).__name__}")
        self.config = args

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
    ) -> tuple[str | None, Status | None]:
        if pod.pod_group and self.handle.cluster.groups is not None:
            # A pod of a scheduling group preempts with its group (workload-aware preemption), never alone.
            return None, Status(Code.UNSCHEDULABLE, (PREFIX + WORKLOAD_AWARE,))
        lent = self.handle.services
        services = Services(
            cast(Framework, lent["framework"]),
            cast(Callable[[str], list[Pod]], lent["nominated"]),
            lent.get("rng"),
        )
        outcome = preempt(services, self.handle, self.config, state, pod, statuses)
        if isinstance(outcome, Preemption):
            cast(PreemptFn, lent["preempt"])(pod, outcome.node, list(outcome.victims), list(outcome.cleared))
            return outcome.node, None
        # No candidate clears the pod's nomination; a preemption not tried leaves it as it is.
        keep = "" if outcome.clear else None
        status = outcome.status
        if not status.message:
            return keep, status
        return keep, Status(status.code, (PREFIX + status.message,))
