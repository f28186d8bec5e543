"""What explanations read from the objects besides the Problem: who holds the allocated devices, and
which devices a DeviceClass's own selectors match (the first step of the candidate funnel)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...model.errors import CelError
from ...model.explain_source import ClassMatch
from ...model.features import FeatureGates
from ...model.problem import Problem, SlotKey
from ..cel.selector import Selector, device_problem, input_at
from ..kube import ObjectSet
from ..validation.run import cel_features
from .devices import DeviceTable
from .pods import ClaimSource
from .selectable import SelectorCache, selector_reads


def holders(objects: ObjectSet) -> dict[str, list[str]]:
    """Device (`driver/pool/device`) -> the claims (`namespace/name`) whose status.allocation holds it
    (results with admin access hold nothing)."""
    out: dict[str, list[str]] = {}
    for obj in objects.of_kind("ResourceClaim"):
        model: Any = obj.model
        allocation = model.status.allocation if model.status is not None else None
        if allocation is None or allocation.devices is None:
            continue
        ref = f"{obj.namespace}/{obj.name}" if obj.namespace else obj.name
        for result in allocation.devices.results or ():
            if result.admin_access:
                continue
            users = out.setdefault(f"{result.driver}/{result.pool}/{result.device}", [])
            if ref not in users:
                users.append(ref)
    return out


def _own_selectors(problem: Problem, claims: list[ClaimSource]) -> set[SlotKey]:
    """The request slots that have selectors of their own (beside their class's)."""
    out: set[SlotKey] = set()
    for claim in problem.claims:
        spec: Any = claims[claim.id].spec
        for ri, request in enumerate(spec.devices.requests or ()):
            bodies = request.first_available or [request.exactly]
            for si, body in enumerate(bodies):
                if body is not None and body.selectors:
                    out.add((claim.id, ri, si))
    return out


def class_matcher(
    problem: Problem, objects: ObjectSet, table: DeviceTable, gates: FeatureGates, claims: list[ClaimSource]
) -> ClassMatch:
    """How many of some devices match the class of a slot (None when that cannot be told of one: an
    unknown class, a CEL error). For a request without selectors of its own, a device matches if the
    request selects it; otherwise the class's selectors are evaluated once per class and distinct
    values they read (as the selectability table is, `selectable._column`)."""
    features = cel_features(gates)
    own = _own_selectors(problem, claims)
    selectable = problem.selectable
    inputs = table.inputs
    classes: dict[str, list[Selector]] = {}
    cache = SelectorCache(features)
    for obj in objects.of_kind("DeviceClass"):
        model: Any = obj.model
        classes[obj.name] = [cache.get(s.cel.expression) for s in (model.spec.selectors or ()) if s.cel]
    reads = {name: selector_reads(selectors) for name, selectors in classes.items()}
    known: dict[tuple[str, int], bool | None] = {}
    by_values: dict[tuple[object, ...], bool | None] = {}

    def evaluate(name: str, device: int) -> bool | None:
        for selector in classes[name]:
            if selector.error is not None:
                return None
            try:
                if not selector.evaluate(inputs[device]):
                    return False
            except CelError:
                return None
        return True

    def match(slot: SlotKey, name: str, device: int) -> bool | None:
        if slot not in own:
            selected = selectable.get((slot, device))
            return None if isinstance(selected, str) else bool(selected)
        key = (name, device)
        if key in known:
            return known[key]
        if name not in classes:
            outcome = None
        else:
            paths = reads[name]
            cel = inputs[device]
            if paths is not None and device_problem(cel, features) is None:
                values = (name, *[input_at(cel, path) for path in paths])
                if values not in by_values:
                    by_values[values] = evaluate(name, device)
                outcome = by_values[values]
            else:
                outcome = evaluate(name, device)
        known[key] = outcome
        return outcome

    def count(slot: SlotKey, name: str, devices: Sequence[int]) -> int | None:
        matched = 0
        for device in devices:
            outcome = match(slot, name, device)
            if outcome is None:
                return None
            matched += outcome
        return matched

    return count
