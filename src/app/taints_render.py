"""The controller's answer as Kubernetes objects and as tables.

`document`: a v1 `List` of the DeviceTaintRules with their `EvictionInProgress` condition, then
an Event on every pod that is evicted (as the controller records it when it deletes the pod)
or would be if an `effect: None` rule were NoExecute (marked `kubefit.io/dry-run`). Events carry
the time of eviction and, in annotations, the taints behind it.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Sequence
from typing import Any

from ..output import table
from ..solver.taints.evict import PodEviction
from ..solver.taints.go_time import parse_time, rfc3339
from ..solver.taints.status import EVICTION_IN_PROGRESS, Report, RuleReport
from ..translate.kube import ObjectSet
from .written import dump

CONTROLLER = "device-taint-eviction-controller"
EVICTED_BY = "kubefit.io/evicted-by"
EVICTION_TIME = "kubefit.io/eviction-time"
DRY_RUN = "kubefit.io/dry-run"


def _condition(r: RuleReport) -> dict[str, Any]:
    assert r.condition is not None
    out: dict[str, Any] = {"type": r.condition.type, "status": r.condition.status}
    out["observedGeneration"] = r.rule.generation
    # The controller writes the condition as soon as the rule appears; the input says no later time.
    added = parse_time(r.rule.taint.time_added)
    if added is not None:
        out["lastTransitionTime"] = rfc3339(added)
    out["reason"] = r.condition.reason
    out["message"] = r.condition.message
    return out


def _rule_object(r: RuleReport, objects: ObjectSet) -> dict[str, Any]:
    obj = objects.get("DeviceTaintRule", r.rule.name)
    assert obj is not None
    doc = copy.deepcopy(dump(obj.model))
    doc["apiVersion"] = obj.written_api_version
    doc["kind"] = "DeviceTaintRule"
    if r.condition is not None:
        status = doc.setdefault("status", {})
        kept = [c for c in status.get("conditions") or () if c.get("type") != EVICTION_IN_PROGRESS]
        status["conditions"] = [*kept, _condition(r)]
    return doc


def _event(e: PodEviction, dry_run: str = "") -> dict[str, Any]:
    pod = e.pod
    digest = hashlib.sha256(f"{pod.key}/{dry_run}/device-taint-eviction".encode()).hexdigest()[:16]
    annotations = {EVICTED_BY: ", ".join(str(s) for s in e.sources), EVICTION_TIME: str(e.deadline)}
    if dry_run:
        annotations[DRY_RUN] = f"DeviceTaintRule {dry_run} has effect None"
    involved = {"apiVersion": "v1", "kind": "Pod", "namespace": pod.namespace, "name": pod.name}
    if pod.uid:
        involved["uid"] = pod.uid
    doc: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{pod.name}.{digest}", "namespace": pod.namespace, "annotations": annotations},
        "involvedObject": involved,
        "reason": "DeviceTaintManagerEviction",
        "message": "Marking for deletion",
        "type": "Normal",
        "source": {"component": CONTROLLER},
        "count": 1,
    }
    if e.deadline.at is not None:
        doc["firstTimestamp"] = doc["lastTimestamp"] = str(e.deadline)
    return doc


def _dry_runs(report: Report) -> list[tuple[str, PodEviction]]:
    return [(r.rule.name, e) for r in report.rules if r.dry_run for e in r.pods]


def document(report: Report, objects: ObjectSet) -> dict[str, Any]:
    items = [_rule_object(r, objects) for r in report.rules]
    items += [_event(e) for e in report.evictions]
    items += [_event(e, rule) for rule, e in _dry_runs(report)]
    return {"apiVersion": "v1", "kind": "List", "items": items}


def _selector(r: RuleReport) -> str:
    sel = r.rule.selector
    if sel is None:
        return "<none: selects no device>"
    fields = [
        f"{k}={v}"
        for k, v in (("driver", sel.driver), ("pool", sel.pool), ("device", sel.device))
        if v is not None
    ]
    return ",".join(fields) or "<every device>"


def _pod_rows(evictions: Sequence[PodEviction], dry_run: bool) -> list[list[str]]:
    return [
        [
            e.pod.key,
            e.pod.node,
            str(e.deadline) + (" (if NoExecute)" if dry_run else ""),
            ",".join(e.claims),
            ", ".join(str(s) for s in e.sources),
        ]
        for e in evictions
    ]


def text(report: Report) -> str:
    out = []
    taints_enabled = report.taints_enabled
    if not taints_enabled:
        out.append("DRADeviceTaints is off: the device taint eviction controller does not run.\n")
    elif not report.rules_enabled:
        out.append("DRADeviceTaintRules is off: the controller ignores every DeviceTaintRule.\n")
    if report.rules:
        rows = [
            [
                r.rule.name,
                r.rule.taint.effect,
                _selector(r),
                r.condition.status if r.condition else "-",
                r.condition.reason if r.condition else "-",
                r.condition.message if r.condition else "",
            ]
            for r in report.rules
        ]
        out.append(table(["DEVICETAINTRULE", "EFFECT", "SELECTOR", "IN PROGRESS", "REASON", "MESSAGE"], rows))
    elif taints_enabled:
        out.append("No DeviceTaintRules.\n")
    pods = _pod_rows(report.evictions, False) + _pod_rows([e for _, e in _dry_runs(report)], True)
    if pods:
        out.append(table(["POD", "NODE", "EVICTED AT", "CLAIMS", "TAINTS"], pods))
    elif taints_enabled:
        out.append("No pods to evict.\n")
    return "\n".join(out)
