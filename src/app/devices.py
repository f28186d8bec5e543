"""`kubefit devices`: the devices of the ResourceSlices; with a DeviceClass and/or selectors, each
evaluated on every device as the allocator does."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..model.errors import InputError
from ..model.repeated import Repeated
from ..output import table
from ..runtime import process
from . import names
from .loading import load_valid
from .requests import EXIT_NO_FIT, EXIT_OK, Answer, Input

if TYPE_CHECKING:
    from ..translate.inventory import DeviceEntry

log = logging.getLogger("kubefit")


@dataclass(frozen=True)
class DevicesRequest:
    input: Input
    fmt: str
    node: str | None = None  # only the devices this node can use
    device_class: str | None = None  # a DeviceClass whose selectors apply
    selectors: tuple[str, ...] = ()  # request selectors (CEL), all must match


def devices(request: DevicesRequest) -> Answer:
    from ..translate import inventory
    from ..translate.cel.selector import NEW
    from ..translate.selection import SelectorSource, class_selectors, select
    from ..translate.validation.run import cel_features

    gates = request.input.gates
    objects = load_valid(request.input)
    names.check_node(objects, request.node)
    if request.node is not None and objects.get("Node", request.node) is None:
        log.warning("node %s is not in the input: node selectors are matched against no labels", request.node)
    sources = []
    if request.device_class:
        device_class = objects.get("DeviceClass", request.device_class)
        if device_class is None:
            raise InputError(
                f"--class: could not retrieve device class {request.device_class} (not in the input)"
            )
        sources += class_selectors(device_class.model)
    sources += [SelectorSource(expr, f"--selector #{i}", NEW) for i, expr in enumerate(request.selectors)]
    entries = inventory.devices(objects, request.node)
    selections = select(entries, sources, cel_features(gates), gates)
    process.keep(entries, selections)
    filtering = bool(sources)
    items = []
    rows = []
    for s in selections:
        e = s.entry
        attributes = {k: _attribute_text(v) for k, v in (e.device.attributes or {}).items()}
        capacity = {k: v.value for k, v in (e.device.capacity or {}).items()}
        item: dict[str, Any] = {
            "driver": e.driver,
            "pool": e.pool,
            "device": e.name,
            "nodeName": e.node_name,
            "selected": s.selected,
            "error": s.error,
            "slice": e.slice.name,
            "attributes": attributes,
            "capacity": capacity,
        }
        if s.reason:
            item["reason"] = s.reason
        items.append(item)
        row = [e.driver, e.pool, e.name, e.placement(), _short(attributes), _short(capacity, 40)]
        if filtering:
            row.append("error" if s.error else ("yes" if s.selected else "no"))
        rows.append(row)
    headers = ["DRIVER", "POOL", "DEVICE", "NODE", "ATTRIBUTES", "CAPACITY"] + (
        ["SELECTED"] if filtering else []
    )
    text = table(headers, rows) if rows else "No devices.\n"
    failed = [s for s in selections if s.error]
    drivers = {s.entry.driver for s in failed}
    errors = [
        Repeated(s.error, s.cause or s.error, _device_name(s.entry, len(drivers) > 1), "devices")
        for s in failed
    ]
    if filtering and request.fmt == "table":
        chosen = sum(s.selected for s in selections)
        text += f"\n{chosen} of {len(selections)} devices selected\n"
    process.settle()
    doc = {"apiVersion": "kubefit.io/v1alpha1", "kind": "DeviceList", "items": items}
    return Answer(doc, text, EXIT_NO_FIT if errors else EXIT_OK, request.fmt, errors=tuple(errors))


def _device_name(e: DeviceEntry, with_driver: bool) -> str:
    """A device as a counted error names it: pool/device (the driver too when errors span drivers)."""
    return f"{e.driver}/{e.pool}/{e.name}" if with_driver else f"{e.pool}/{e.name}"


def _short(mapping: dict[str, str], limit: int = 70) -> str:
    text = ",".join(f"{k}={v}" for k, v in mapping.items())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _attribute_text(attr: Any) -> str:
    for name in ("string", "int", "bool", "version"):
        value = getattr(attr, name, None)
        if value is not None:
            return str(value).lower() if isinstance(value, bool) else str(value)
    for name in ("strings", "ints", "bools", "versions"):
        value = getattr(attr, name, None)
        if value is not None:
            return "[" + ";".join(str(v) for v in value) + "]"
    return "?"
