"""Kubernetes objects as kubefit reads them: which model reads which kind (`kinds`), the objects loaded
and the set of them (`objects`), field paths as the API server prints them (`paths`), what the client's
models say of a field (`model_fields`, `quantity_fields`)."""

from . import kinds
from .kinds import lookup
from .model_fields import any_below, integer_shape, models_in, unversioned, wire_name
from .objects import KubeObject, LazySlice, ObjectSet, shell_of, slice_spec
from .paths import render_path
from .quantity_fields import coerce_quantities, quantity_values

__all__ = [
    "KubeObject",
    "LazySlice",
    "ObjectSet",
    "any_below",
    "coerce_quantities",
    "integer_shape",
    "kinds",
    "lookup",
    "models_in",
    "quantity_values",
    "render_path",
    "shell_of",
    "slice_spec",
    "unversioned",
    "wire_name",
]
