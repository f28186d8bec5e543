"""A worst-case cost estimate of a checked expression, in the spirit of cel-go's estimator.

The API server refuses a DRA selector whose worst case exceeds the per-expression
limit, so `kubefit validate` needs an estimate too. It charges about one unit per
step, multiplies loop bodies by the largest size their range can have, and takes
sizes from the DRA limits (32 attributes per device, 64-character values).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import ast

# Upper bounds from the resource.k8s.io API (types.go).
MAX_ATTRIBUTES = 32
MAX_ATTRIBUTE_VALUE_SIZE = 64
MAX_DRIVER_LENGTH = 63
UNKNOWN_SIZE = 2**20


@dataclass(frozen=True)
class Estimate:
    cost: int
    size: int  # largest length of the value (string, list or map)


def _device_size(path: tuple[str, ...]) -> int:
    if path == ("driver",):
        return MAX_DRIVER_LENGTH
    if path in (("attributes",), ("capacity",)) or len(path) == 2:
        return MAX_ATTRIBUTES
    if len(path) == 3:
        return MAX_ATTRIBUTE_VALUE_SIZE
    return 1


class Estimator:
    def __init__(self, device_var: str = "device") -> None:
        self.device_var = device_var

    def estimate(self, node: ast.Node, scope: dict[str, Estimate] | None = None) -> Estimate:
        return self._estimate(node, scope or {})

    def device_path(self, node: ast.Node, scope: dict[str, Estimate]) -> tuple[str, ...] | None:
        if isinstance(node, ast.Ident):
            return () if node.name.lstrip(".") == self.device_var and node.name not in scope else None
        if isinstance(node, ast.Select):
            base = self.device_path(node.operand, scope)
            return (*base, node.field) if base is not None else None
        if isinstance(node, ast.Index) and isinstance(node.index, ast.Literal):
            base = self.device_path(node.operand, scope)
            return (*base, str(node.index.value)) if base is not None else None
        return None

    def _estimate(self, node: ast.Node, scope: dict[str, Estimate]) -> Estimate:
        path = self.device_path(node, scope)
        if path is not None and path:
            inner = sum(
                self._estimate(c, scope).cost
                for c in ast.children(node)
                if self.device_path(c, scope) is None
            )
            return Estimate(len(path) + 1 + inner, _device_size(path))
        if isinstance(node, ast.Literal):
            size = len(node.value) if isinstance(node.value, (str, bytes)) else 1
            return Estimate(0, size)
        if isinstance(node, ast.Ident):
            bound = scope.get(node.name)
            return Estimate(1, bound.size if bound is not None else UNKNOWN_SIZE)
        if isinstance(node, ast.ListLit):
            parts = [self._estimate(e, scope) for e in node.elements]
            return Estimate(10 + sum(p.cost for p in parts), max(len(parts), 1))
        if isinstance(node, ast.MapLit):
            parts = [self._estimate(x, scope) for e in node.entries for x in (e.key, e.value)]
            return Estimate(30 + sum(p.cost for p in parts), max(len(node.entries), 1))
        if isinstance(node, ast.Bind):
            init = self._estimate(node.init, scope)
            body = self._estimate(node.body, {**scope, node.var: init})
            return Estimate(init.cost + body.cost, body.size)
        if isinstance(node, ast.Comprehension):
            rng = self._estimate(node.range, scope)
            element = Estimate(
                0, MAX_ATTRIBUTE_VALUE_SIZE if rng.size <= MAX_ATTRIBUTE_VALUE_SIZE else UNKNOWN_SIZE
            )
            loop_scope = {**scope, node.var: element}
            if node.var2 is not None:
                loop_scope[node.var2] = element
            body = self._estimate(node.body, loop_scope)
            predicate = self._estimate(node.predicate, loop_scope).cost if node.predicate is not None else 0
            per_item = body.cost + predicate + 3
            return Estimate(rng.cost + rng.size * per_item, rng.size)
        if isinstance(node, ast.Call):
            kids = ast.children(node)
            parts = [self._estimate(c, scope) for c in kids]
            own = 1
            if node.function in _SIZED:
                # Only values that have a length cost in proportion to it (cel-go's rule).
                sized = [p.size for c, p in zip(kids, parts, strict=True) if _has_length(c)]
                own += max(sized, default=0) // 10
            if node.function == "@in" and len(parts) == 2:
                own = 1 + parts[1].size
            size = max((p.size for p in parts), default=1)
            if node.function in ("_&&_", "_||_"):
                return Estimate(1 + sum(p.cost for p in parts), 1)
            return Estimate(own + sum(p.cost for p in parts), size)
        return Estimate(1 + sum(self._estimate(c, scope).cost for c in ast.children(node)), 1)


_SIZED = {
    "_+_",
    "_==_",
    "_!=_",
    "matches",
    "contains",
    "startsWith",
    "endsWith",
    "split",
    "find",
    "findAll",
    "replace",
    "join",
}


def _has_length(node: ast.Node) -> bool:
    ty = node.type
    return ty is not None and ty.name in ("string", "bytes", "list", "map", "any")


def estimate_cost(node: ast.Node, device_var: str = "device") -> int:
    return Estimator(device_var).estimate(node).cost
