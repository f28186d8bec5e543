"""Which devices does a DeviceClass and/or a request's selectors select?

The check is the allocator's "selectable" test: devices with binding conditions
need their gates, then the class selectors in order, then the request selectors
in order, stopping at the first that is false. A CEL runtime error is reported
for the device it happened on, worded as the scheduler words it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model.errors import CelRuntimeError, InputError, Problem
from ..model.features import ALL_ON, FeatureGates
from .cel.environment import Features
from .cel.selector import NEW, STORED, DeviceInput, Selector, compile_error_text
from .inventory import DeviceEntry


@dataclass(frozen=True)
class SelectorSource:
    """A selector and how messages name it (`class gpu.example.com: selector #0`)."""

    expression: str
    label: str
    # A selector typed on the command line is checked as the API server checks a new object;
    # one read from a stored object as the scheduler evaluates it.
    env_type: str = STORED


@dataclass(frozen=True)
class Selection:
    entry: DeviceEntry
    selected: bool
    error: str = ""
    reason: str = ""
    # The error as the allocator words it, without the device (`error` names it): the same on every
    # device a selector fails on alike.
    cause: str = ""


def class_selectors(device_class: Any) -> list[SelectorSource]:
    """The CEL selectors of a DeviceClass model, labelled as upstream labels them."""
    name = device_class.metadata.name
    out = []
    for i, selector in enumerate(device_class.spec.selectors or []):
        if selector.cel is None:
            raise InputError(
                f"class {name}: selector #{i}: CEL expression empty (unsupported selector type?)"
            )
        out.append(SelectorSource(selector.cel.expression, f"class {name}: selector #{i}"))
    return out


def compile_selectors(
    sources: Sequence[SelectorSource], features: Features
) -> list[tuple[SelectorSource, Selector]]:
    compiled = []
    problems = []
    for source in sources:
        selector = Selector(source.expression, features, source.env_type)
        if source.env_type == NEW:
            # As the API server would refuse it in a new object (this includes the cost limit).
            error = compile_error_text(source.expression, features, new=True)
        else:
            error = selector.error.detail if selector.error is not None else None
        if error is not None:
            problems.append(Problem(f"{source.label}: CEL compile error: {error}"))
        compiled.append((source, selector))
    if problems:
        raise InputError(problems)
    return compiled


def select(
    entries: Sequence[DeviceEntry],
    sources: Sequence[SelectorSource],
    features: Features,
    gates: FeatureGates = ALL_ON,
) -> list[Selection]:
    """Evaluate the selectors on every device (in order), as the allocator decides selectability."""
    compiled = compile_selectors(sources, features)
    binding_ok = gates.enabled("DRADeviceBindingConditions") and gates.enabled("DRAResourceClaimDeviceStatus")
    out: list[Selection] = []
    for entry in entries:
        if entry.device.binding_conditions and not binding_ok:
            out.append(
                Selection(
                    entry,
                    False,
                    reason="has binding conditions, but DRADeviceBindingConditions "
                    "or DRAResourceClaimDeviceStatus is off",
                )
            )
            continue
        out.append(_evaluate(entry, compiled, features))
    return out


def _evaluate(
    entry: DeviceEntry, compiled: Sequence[tuple[SelectorSource, Selector]], features: Features
) -> Selection:
    if not compiled:
        return Selection(entry, True)
    device = DeviceInput.of(entry.driver, entry.device)
    for source, selector in compiled:
        try:
            if not selector.evaluate(device):
                return Selection(entry, False, reason=f"{source.label} is false")
        except CelRuntimeError as e:
            return Selection(
                entry,
                False,
                error=f"{source.label} on device {entry.name}: CEL runtime error: {e}",
                cause=f"{source.label}: CEL runtime error: {e}",
            )
    return Selection(entry, True)
