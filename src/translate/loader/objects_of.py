"""The objects of a document: a List's items or the object itself, each read by its kind's model
(`schema`), converted from an older API version, and named and namespaced as the API server would."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from ...model.errors import FieldPath, Problem, ProblemList
from ..kube import KubeObject, LazySlice, coerce_quantities, kinds
from ..reading import Document, LineList, line_of
from .schema import field_path_of, located_problem, strip_extras, validate
from .schema_messages import schema_message

# Kinds that exist only in the core group, so a missing apiVersion can only mean "v1".
_CORE_ONLY_KINDS = frozenset(
    {
        "Pod",
        "Node",
        "Namespace",
        "ConfigMap",
        "Secret",
        "Service",
        "ServiceAccount",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "ResourceQuota",
        "LimitRange",
    }
)


def _ref_of(data: Any) -> str:
    kind = data.get("kind") if isinstance(data, dict) else None
    meta = data.get("metadata") if isinstance(data, dict) else None
    name = meta.get("name") if isinstance(meta, dict) else None
    namespace = meta.get("namespace") if isinstance(meta, dict) else None
    parts = [str(kind or "<no kind>")]
    if isinstance(namespace, str) and namespace:
        parts.append(namespace)
    parts.append(str(name) if name else "<unnamed>")
    return "/".join(parts)


def objects_of(doc: Document, problems: ProblemList, strict: bool) -> list[KubeObject]:
    data = doc.data
    if not isinstance(data, dict):
        problems.add(Problem("a document must be a Kubernetes object (a mapping)", doc.file, doc.line))
        return []
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(data.get("items"), list):
        return _list_items(doc, data, problems, strict)
    obj = object_of(data, doc.file, doc.line, problems, strict)
    del api_version, kind
    return [obj] if obj is not None else []


def _list_items(doc: Document, data: dict[str, Any], problems: ProblemList, strict: bool) -> list[KubeObject]:
    """`kind: List` (items carry their kind) or a typed list such as `PodList` (they may not)."""
    list_kind = str(data["kind"])
    item_kind = list_kind[: -len("List")]
    items: list[Any] = data["items"]
    out: list[KubeObject] = []
    for i, item in enumerate(items):
        line = items.item_lines[i] if isinstance(items, LineList) else doc.line
        if not isinstance(item, dict):
            problems.add(Problem("a list item must be an object", doc.file, line, list_kind, ("items", i)))
            continue
        if item_kind and "kind" not in item:
            item["kind"] = item_kind
        if "apiVersion" not in item and item_kind and isinstance(data.get("apiVersion"), str):
            item["apiVersion"] = data["apiVersion"]
        obj = object_of(item, doc.file, line, problems, strict)
        if obj is not None:
            out.append(obj)
    return out


def object_of(
    data: dict[str, Any], file: str, line: int, problems: ProblemList, strict: bool
) -> KubeObject | None:
    ref = _ref_of(data)
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not api_version and isinstance(kind, str) and kind in _CORE_ONLY_KINDS:
        # kubectl refuses this, but the intent is unambiguous: read it, and say so.
        problems.add(
            Problem(
                f'apiVersion is missing; reading this {kind} as "v1" (kubectl would reject it)',
                file,
                line,
                ref,
                ("apiVersion",),
                warning=True,
            )
        )
        api_version = data["apiVersion"] = "v1"
    missing = [f for f, v in (("apiVersion", api_version), ("kind", kind)) if not isinstance(v, str) or not v]
    if missing:
        for f in missing:
            problems.add(
                Problem(
                    "Required value: every object needs apiVersion and kind",
                    file,
                    line_of(data, (f,), line),
                    ref,
                    (f,),
                )
            )
        return None
    assert isinstance(api_version, str) and isinstance(kind, str)
    info = kinds.lookup(api_version, kind)
    if info is None:
        known = kinds.known_versions(kind)
        hint = f" (kubefit reads {kind} as {', '.join(known)})" if known else ""
        problems.add(
            Problem(
                f'unknown kind "{kind}" in apiVersion "{api_version}"{hint}',
                file,
                line_of(data, ("kind",), line),
                ref,
                ("kind",),
            )
        )
        return None

    if not info.namespaced and _clear_namespace(data):
        ref = _ref_of(data)
    target = kinds.canonical(info)
    if info.kind == "ResourceSlice" and target is info:
        lazy = _lazy_slice(info, data, file, line, ref, strict, api_version)
        if lazy is not None:
            return lazy
    coerce_quantities(info.model, data)
    model, extras, ok = validate(info.model, data, file, line, ref, problems, strict)
    if not ok or model is None:
        return None
    if target is not info:
        converted = kinds.converted(info, strip_extras(data, list(extras)))
        coerce_quantities(target.model, converted)
        try:
            model = target.model.model_validate(converted)
        except ValidationError as e:
            for err in e.errors():
                path = field_path_of(data, err["loc"])
                message = f"cannot convert to {target.api_version}: {schema_message(err)}"
                problems.add(located_problem(message, file, data, line, ref, path, info.model))
            return None
    obj = KubeObject(
        target, model, data, file, line, api_version, extras, info if target is not info else None
    )
    _default_namespace(obj)
    if not obj.name and info.kind not in NAMELESS_KINDS:
        name_path: FieldPath = ("metadata", "name")
        message = "Required value: name is required (kubefit does not invent names)"
        problems.add(obj.problem(name_path, message))
        return None
    return obj


def remade(obj: KubeObject, data: dict[str, Any], strict: bool) -> tuple[KubeObject | None, list[Problem]]:
    """`obj` read again from `data`, a changed copy of what it was read from (same file and line)."""
    problems = ProblemList()
    made = object_of(data, obj.file, obj.line, problems, strict)
    return made, problems.items


def _lazy_slice(
    info: kinds.KindInfo, data: dict[str, Any], file: str, line: int, ref: str, strict: bool, api_version: str
) -> LazySlice | None:
    """A ResourceSlice whose devices are all plain, read without a model per device: the slice is
    validated without its devices (which the plain subset guarantees the model accepts as they are).
    None when anything needs the full path, which then reports exactly what it always has."""
    from ..reading import proven_once

    spec = data.get("spec")
    if not isinstance(spec, dict) or not spec.get("devices") or not proven_once(spec["devices"]):
        return None
    shell_data = {**data, "spec": {**spec, "devices": []}}
    local = ProblemList()
    coerce_quantities(info.model, shell_data)
    shell, extras, ok = validate(info.model, shell_data, file, line, ref, local, strict)
    if shell is None or not ok or local.items or not getattr(shell.metadata, "name", None):  # type: ignore[attr-defined]
        return None

    def materialize() -> BaseModel:
        found = ProblemList()
        coerce_quantities(info.model, data)
        model, _, accepted = validate(info.model, data, file, line, ref, found, strict)
        if model is None or not accepted or found.items:
            raise AssertionError(f"{ref}: plain devices the model refuses: {found.items}")
        return model

    return LazySlice(info, shell, data, file, line, api_version, extras, materialize)


# Configuration files that carry no name (a name, when given, only labels the object in messages).
NAMELESS_KINDS = frozenset({"KubeletConfiguration", "KubeSchedulerConfiguration"})


def _clear_namespace(data: dict[str, Any]) -> bool:
    """The API server clears the namespace of a cluster-scoped object it creates (kubectl sends it
    along unremarked): so does kubefit. True when there was one."""
    meta = data.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("namespace"), str):
        del meta["namespace"]
        return True
    return False


def _default_namespace(obj: KubeObject) -> None:
    # `kubectl apply` puts namespaced objects without a namespace into "default".
    meta = getattr(obj.model, "metadata", None)
    if obj.info.namespaced and meta is not None and not meta.namespace:
        meta.namespace = "default"
