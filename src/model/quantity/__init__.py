"""Kubernetes `resource.Quantity`: the exact value (`value`), its text (`text`) and the arithmetic under
both (`exact`)."""

from .exact import INT64_MAX, INT64_MIN, go_pow10
from .text import ERR_FORMAT_WRONG, ERR_NOT_INT64, ERR_NUMERIC, ERR_SUFFIX, Format, QuantityError
from .value import Quantity, parse_quantity

__all__ = [
    "ERR_FORMAT_WRONG",
    "ERR_NOT_INT64",
    "ERR_NUMERIC",
    "ERR_SUFFIX",
    "INT64_MAX",
    "INT64_MIN",
    "Format",
    "Quantity",
    "QuantityError",
    "go_pow10",
    "parse_quantity",
]
