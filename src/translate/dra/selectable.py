"""Which devices each request slot may use: the class and request selectors, evaluated once per
distinct combination of the values they read; derived attributes likewise.

The allocator evaluates selectors lazily, so a CEL error only matters for a device the
search actually reaches: errors are recorded as facts, worded as the scheduler words
them, and the engines raise them at that point.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...model.errors import CelError
from ...model.problem import AttrValue, Claim, Device, Selectable, SelectableTable, SlotKey
from ..cel.environment import Features
from ..cel.library.semver import Semver
from ..cel.reads import Path
from ..cel.selector import DeviceInput, Selector, device_problem, evaluate_value, input_at


class SelectorCache:
    """One compiled Selector per expression, shared by every slot that uses it."""

    def __init__(self, features: Features) -> None:
        self.features = features
        self.selectors: dict[str, Selector] = {}

    def get(self, expression: str) -> Selector:
        selector = self.selectors.get(expression)
        if selector is None:
            selector = self.selectors[expression] = Selector(expression, self.features)
        return selector


def _run(
    selectors: Iterable[tuple[int, str]], device: Device, cel: DeviceInput, cache: SelectorCache
) -> bool | str:
    """True / False, or the error after `<who>: ` (the caller knows whose selectors these are)."""
    for i, expression in selectors:
        selector = cache.get(expression)
        if selector.error is not None:
            return f"selector #{i}: CEL compile error: {selector.error.detail}"
        try:
            if not selector.evaluate(cel):
                return False
        except CelError as e:
            return f"selector #{i} on device {device.ref}: CEL runtime error: {e}"
    return True


def selectability(
    claims: Iterable[Claim],
    claim_specs: Mapping[int, Any],
    class_selectors: Mapping[str, list[str]],
    devices: list[Device],
    inputs: list[DeviceInput],
    candidates: Iterable[int],
    cache: SelectorCache,
) -> SelectableTable:
    """(slot, device) -> True / False / error message, for every slot and candidate device; slots
    with the same class and selectors share their evaluation."""
    table = SelectableTable()
    device_ids = sorted(set(candidates))
    columns: dict[tuple[str, tuple[str, ...]], int] = {}
    for claim in claims:
        claim_spec = claim_specs[claim.id]
        wanted = claim_spec.devices if claim_spec is not None else None
        requests = (wanted.requests if wanted is not None else None) or []
        for r_index, (request, spec) in enumerate(zip(claim.requests, requests, strict=True)):
            bodies = spec.first_available or [spec.exactly]
            for s_index, (slot, body) in enumerate(zip(request.slots, bodies, strict=True)):
                if not slot.class_exists or body is None:
                    continue
                request_exprs = tuple(s.cel.expression if s.cel else "" for s in body.selectors or ())
                signature = (slot.device_class, request_exprs)
                column = columns.get(signature)
                if column is None:
                    column = columns[signature] = table.column(
                        _column(
                            slot.device_class,
                            request_exprs,
                            class_selectors,
                            devices,
                            inputs,
                            device_ids,
                            cache,
                        )
                    )
                table.bind((claim.id, r_index, s_index), column, claim.ref)
    return table


def _column(
    device_class: str,
    request_exprs: tuple[str, ...],
    class_selectors: Mapping[str, list[str]],
    devices: list[Device],
    inputs: list[DeviceInput],
    device_ids: list[int],
    cache: SelectorCache,
) -> dict[int, Selectable | tuple[str]]:
    class_exprs = list(enumerate(class_selectors.get(device_class, [])))
    requested = [(i, e) for i, e in enumerate(request_exprs) if e]
    out: dict[int, Selectable | tuple[str]] = {}
    # The column's verdict is a function of the values its selectors read (as each selector's own memo
    # assumes): devices that agree on all of them share it, decided once. Errors name their device,
    # so a device with one is decided on its own.
    reads = selector_reads([cache.get(e) for _, e in class_exprs + requested])
    verdicts: dict[tuple[Any, ...], Selectable] = {}
    for d in device_ids:
        device, cel = devices[d], inputs[d]
        key = None
        if reads is not None and device_problem(cel, cache.features) is None:
            key = tuple([input_at(cel, p) for p in reads])
            known = verdicts.get(key)
            if known is not None:
                out[d] = known
                continue
        result = _run(class_exprs, device, cel, cache)
        if isinstance(result, str):
            out[d] = f"class {device_class}: {result}"
            continue
        if result:
            result = _run(requested, device, cel, cache)
            if isinstance(result, str):
                out[d] = (result,)
                continue
        out[d] = result
        if key is not None:
            verdicts[key] = result
    return out


def selector_reads(selectors: list[Selector]) -> tuple[Path, ...] | None:
    """Every device path the selectors read, in one order; None when one may read the whole device or
    does not compile."""
    paths: set[Path] = set()
    for selector in selectors:
        if selector.error is not None or selector.ordered_reads is None:
            return None
        paths.update(selector.ordered_reads)
    return tuple(sorted(paths))


def attr_of(value: Any) -> AttrValue | None:
    """A CEL value as an attribute value, or None when it is not one (a map, a double, ...)."""

    def scalar(v: Any) -> tuple[str, Any] | None:
        if isinstance(v, bool):
            return "bool", v
        if isinstance(v, int):
            return "int", int(v)
        if isinstance(v, str):
            return "string", v
        if isinstance(v, Semver):
            return "version", str(v)
        return None

    if isinstance(value, list):
        items = [scalar(v) for v in value]
        kinds = {i[0] for i in items if i is not None}
        if any(i is None for i in items) or len(kinds) > 1:
            return None
        kind = kinds.pop() if kinds else None
        return AttrValue(kind, tuple(i[1] for i in items if i is not None), is_list=True)  # type: ignore[arg-type]
    one = scalar(value)
    return AttrValue(one[0], (one[1],)) if one is not None else None  # type: ignore[arg-type]


def derived_values(
    claims: Iterable[Claim],
    selectable: SelectableTable,
    devices: list[Device],
    inputs: list[DeviceInput],
    features: Features,
) -> dict[tuple[SlotKey, int, str], AttrValue | str]:
    """Derived attribute values per (slot, selectable device, name), or the error evaluating them."""
    out: dict[tuple[SlotKey, int, str], AttrValue | str] = {}
    for claim in claims:
        for r_index, request in enumerate(claim.requests):
            for s_index, slot in enumerate(request.slots):
                if not slot.derived:
                    continue
                key: SlotKey = (claim.id, r_index, s_index)
                for d, ok in selectable.of_slot(key):
                    if ok is not True:
                        continue
                    for derived in slot.derived:
                        where = (
                            f"claim {claim.ref}, request {slot.result_name}, derived attribute {derived.name}"
                        )
                        try:
                            value = evaluate_value(derived.expression, inputs[d], features)
                        except CelError as e:
                            out[(key, d, derived.name)] = (
                                f"{where} on device {devices[d].ref}: CEL runtime error: {e}"
                            )
                            continue
                        attr = attr_of(value)
                        out[(key, d, derived.name)] = (
                            attr
                            if attr is not None
                            else (f"{where} on device {devices[d].ref}: unsupported value {value!r}")
                        )
    return out
