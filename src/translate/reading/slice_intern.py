"""Shared parts for the plain devices of ResourceSlices read from a large JSON dump.

Decoded as it is written, every device of a cluster dump is a nest of small maps: one per attribute
value, per capacity, per counter consumed. On a 500-node MIG fleet that is about a million maps and
most of the memory kubefit holds (more than the text of the file), while almost all of them repeat:
the same `{"string": "mig"}` on every partition, the same capacities and counter consumption on the
same placement of every GPU. The reader calls `share` on each item of a List as soon as it is decoded,
so equal parts become one object and the copies are freed before the next item is read.

The data stays equal to what was read, so every reader sees the same values. Sharing is safe because
nothing writes into a plain device (quantity coercion has nothing to change there: its quantities are
already text), and only plain devices (see `slice_plain`) are shared.
"""

from __future__ import annotations

from typing import Any

from .slice_plain import prove

Parts = dict[Any, Any]


def share(item: Any, parts: Parts) -> None:
    """Equal parts of the item's plain devices made one object, in place, if the item is a
    resource.k8s.io/v1 ResourceSlice whose devices are plain. `parts` remembers them across items."""
    if item.__class__ is not dict or item.get("kind") != "ResourceSlice":
        return
    spec = item.get("spec")
    devices = spec.get("devices") if spec.__class__ is dict else None
    if not devices or item.get("apiVersion") != "resource.k8s.io/v1" or not prove(devices):
        return
    get = parts.get
    for device in devices:
        attributes = device.get("attributes")
        if attributes:
            for key, value in list(attributes.items()):
                for kind, scalar in value.items():  # exactly one: plain
                    # The kind tells a bool from an int, which are equal as keys.
                    found = get((kind, scalar))
                    if found is None:
                        parts[(kind, scalar)] = value
                    elif found is not value:
                        attributes[key] = found
        capacity = device.get("capacity")
        if capacity:
            key = ("capacity", *[(k, v["value"]) for k, v in capacity.items()])
            found = get(key)
            if found is None:
                parts[key] = capacity
            else:
                device["capacity"] = found
        consumes = device.get("consumesCounters")
        if consumes:
            key = (
                "consumesCounters",
                *[(c["counterSet"], *[(k, v["value"]) for k, v in c["counters"].items()]) for c in consumes],
            )
            found = get(key)
            if found is None:
                parts[key] = consumes
            else:
                device["consumesCounters"] = found
