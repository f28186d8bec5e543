"""Loaded Kubernetes objects and the set of them kubefit reasons about."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ...model.errors import FieldPath, Problem
from ..reading import line_of
from .kinds import KindInfo
from .paths import render_path


@dataclass
class KubeObject:
    """One object as read: its typed model (in the version kubefit uses) and where it came from."""

    info: KindInfo
    model: BaseModel
    raw: dict[str, Any]
    file: str
    line: int
    written_api_version: str
    # Fields the client's model does not know, by path: carried along, never silently dropped.
    extras: dict[FieldPath, Any] = field(default_factory=dict)
    # The version as written, when it differs from `info` (the raw document follows its schema).
    written: KindInfo | None = None

    @property
    def written_info(self) -> KindInfo:
        return self.written or self.info

    @property
    def kind(self) -> str:
        return self.info.kind

    @property
    def api_version(self) -> str:
        return self.info.api_version

    @property
    def name(self) -> str:
        meta = getattr(self.model, "metadata", None)
        return (getattr(meta, "name", None) or "") if meta is not None else ""

    @property
    def namespace(self) -> str:
        meta = getattr(self.model, "metadata", None)
        return (getattr(meta, "namespace", None) or "") if meta is not None else ""

    @property
    def written_namespace(self) -> str:
        """The namespace as the input wrote it ("" when it was left to default)."""
        meta = self.raw.get("metadata")
        namespace = meta.get("namespace") if isinstance(meta, dict) else None
        return namespace if isinstance(namespace, str) else ""

    @property
    def ref(self) -> str:
        """`Kind/namespace/name` (or `Kind/name` for cluster-scoped objects), as messages name it."""
        parts = [self.kind]
        if self.namespace:
            parts.append(self.namespace)
        parts.append(self.name or "<unnamed>")
        return "/".join(parts)

    def line_of(self, path: FieldPath) -> int:
        return line_of(self.raw, path, self.line)

    def problem(
        self, path: FieldPath, message: str, warning: bool = False, unstorable: bool = False
    ) -> Problem:
        text = render_path(self.written_info.model, path)
        return Problem(message, self.file, self.line_of(path), self.ref, path, warning, text, unstorable)

    def extra(self, path: FieldPath, default: Any = None) -> Any:
        """A field the client model lacks, read from the input as written."""
        return self.extras.get(path, default)


class LazySlice(KubeObject):
    """A ResourceSlice whose devices are all plain (see `slice_plain`): they stay as read, and the
    slice's full model (a model per device, attribute and quantity: seconds and hundreds of MB on a
    large cluster) is built only when something asks for `model`. `shell` is the model with no
    devices, for everything about the slice itself."""

    def __init__(
        self,
        info: KindInfo,
        shell: BaseModel,
        raw: dict[str, Any],
        file: str,
        line: int,
        written_api_version: str,
        extras: dict[FieldPath, Any],
        materialize: Callable[[], BaseModel],
    ) -> None:
        self._full: BaseModel | None = None
        self._materialize: Callable[[], BaseModel] | None = materialize
        super().__init__(info, shell, raw, file, line, written_api_version, extras)
        self.shell = shell

    @property
    def model(self) -> BaseModel:
        if self._full is None:
            assert self._materialize is not None
            self._full = self._materialize()
            self._materialize = None
        return self._full

    @model.setter
    def model(self, value: BaseModel) -> None:
        self.shell = value

    @property
    def built(self) -> bool:
        """Whether the full model exists (then it is the one to read)."""
        return self._full is not None

    @property
    def raw_devices(self) -> list[dict[str, Any]]:
        return self.raw["spec"]["devices"]  # type: ignore[no-any-return]

    @property
    def name(self) -> str:
        return str(self.shell.metadata.name or "")  # type: ignore[attr-defined]

    @property
    def namespace(self) -> str:
        return ""


def shell_of(obj: KubeObject) -> Any:
    """The object's model for what concerns the object itself (metadata, and a ResourceSlice's driver,
    pool, node selection and counter sets), without building the devices' models of a LazySlice: its
    `spec.devices` is then empty (read those with `raw_devices`, or `.model` to build them)."""
    return obj.shell if isinstance(obj, LazySlice) else obj.model


def slice_spec(obj: KubeObject) -> Any:
    """A ResourceSlice's spec, as `shell_of` gives it."""
    return shell_of(obj).spec


@dataclass
class ObjectSet:
    """All objects of one run, in input order, with lookups by kind and name."""

    objects: list[KubeObject] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    # The files read, in order, each with what identified its text then (device, inode, size and
    # modification time; None for stdin): two sets read alike from the same texts are equal.
    sources: list[tuple[str, tuple[int, ...] | None]] = field(default_factory=list)

    def __iter__(self) -> Iterator[KubeObject]:
        return iter(self.objects)

    def __len__(self) -> int:
        return len(self.objects)

    # `info.kind` rather than `kind`: a build asks for each kind of thousands of objects.
    def of_kind(self, kind: str) -> list[KubeObject]:
        return [o for o in self.objects if o.info.kind == kind]

    def models(self, kind: str) -> list[Any]:
        return [o.model for o in self.objects if o.info.kind == kind]

    def get(self, kind: str, name: str, namespace: str = "") -> KubeObject | None:
        for o in self.objects:
            if o.info.kind == kind and o.name == name and (not namespace or o.namespace == namespace):
                return o
        return None
