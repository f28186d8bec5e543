"""`kubefit validate`: are these objects valid, as the API server checks them before accepting them
(schema, API validation, CEL)? A ValidationReport of every object and problem."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model.errors import MAX_PROBLEMS, InputError, Problem
from ..output import table
from .requests import EXIT_BAD_INPUT, EXIT_OK, Answer, Input, warn


@dataclass(frozen=True)
class ValidateRequest:
    input: Input
    fmt: str


def validate(request: ValidateRequest) -> Answer:
    from ..translate import disabled_fields
    from ..translate.loader import load
    from ..translate.validation.pool_slices import pool_slice_warnings
    from ..translate.validation.run import validate_objects

    source = request.input
    gates = source.gates
    objects: Any = []
    unchecked: set[str] = set()
    try:
        loaded = load(list(source.paths), strict=source.strict)
        gated, _ = disabled_fields.apply(loaded, gates, source.strict)
        objects = list(loaded)
        warnings = [*loaded.warnings, *gated, *pool_slice_warnings(objects)]
        problems = validate_objects(loaded, gates)
        if len(problems) > MAX_PROBLEMS:
            # Validation stopped at the object of the last problem: the objects after it are unchecked.
            last = max(i for i, o in enumerate(objects) if o.ref == problems[-1].obj)
            unchecked = {o.ref for o in objects[last + 1 :]}
            problems = InputError(problems).problems
    except InputError as e:
        warnings, problems = [], e.problems
    errors_by_object: dict[str, int] = {}
    for p in problems:
        errors_by_object[p.obj] = errors_by_object.get(p.obj, 0) + 1
    report = {
        "apiVersion": "kubefit.io/v1alpha1",
        "kind": "ValidationReport",
        "valid": not problems,
        "objects": [
            {
                "apiVersion": o.written_api_version,
                "kind": o.kind,
                "namespace": o.namespace or None,
                "name": o.name,
                "file": o.file,
                "line": o.line,
                # (an object validation did not reach, past MAX_PROBLEMS problems, is neither)
                "valid": None if o.ref in unchecked else o.ref not in errors_by_object,
                **({"checked": False} if o.ref in unchecked else {}),
            }
            for o in objects
        ],
        "problems": [
            {
                "severity": "warning" if p.warning else "error",
                "file": p.file,
                "line": p.line,
                "object": p.obj,
                "path": _path_text(p),
                "message": p.message,
            }
            for p in [*problems, *warnings]
        ],
    }
    for key in ("objects", "problems"):
        for item in report[key]:  # type: ignore[attr-defined]
            for k in [k for k, v in item.items() if v is None]:
                del item[k]
    warn(warnings)
    warn(problems)
    rows = [
        [
            o.kind,
            o.namespace,
            o.name,
            f"{o.file}:{o.line}",
            "invalid" if o.ref in errors_by_object else "unchecked" if o.ref in unchecked else "valid",
        ]
        for o in objects
    ]
    text = table(["KIND", "NAMESPACE", "NAME", "SOURCE", "STATUS"], rows) if rows else ""
    return Answer(report, text, EXIT_BAD_INPUT if problems else EXIT_OK, request.fmt)


def _path_text(p: Problem) -> str:
    from ..model.errors import format_path

    return format_path(p.path)
