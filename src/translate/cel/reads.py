"""Which parts of `device` an expression reads, found statically.

A selector's outcome depends only on the device values it reads, so it needs
evaluating once per distinct combination of them: 10,000 identical GPUs that
differ only in `uuid` cost one evaluation for `model == "A100"`. A path here is a
tuple under `device`: `("driver",)`, `("attributes", domain)`,
`("attributes", domain, id)`, `("capacity", domain, id)`. Reading a path means the
result may depend on anything below it; `None` means "the whole device".
"""

from __future__ import annotations

from . import ast

Path = tuple[str, ...]

# Looking these up cannot fail (a missing domain is an empty map), so a bound alias
# of them reads nothing until something below them is used.
_CONTAINER_DEPTH = 2


class _Reads:
    def __init__(self, var: str) -> None:
        self.var = var
        self.paths: set[Path] = set()
        self.whole = False

    def read(self, path: Path) -> None:
        if not path:
            self.whole = True
        else:
            self.paths.add(path)

    def walk(self, node: ast.Node, env: dict[str, Path | None]) -> Path | None:
        """The device path `node` evaluates to, if any; reads everything else it touches."""
        if isinstance(node, ast.Ident):
            name = node.name
            if name in env:
                return env[name]
            return () if name.lstrip(".") == self.var else None
        if isinstance(node, ast.Select):
            base = self.walk(node.operand, env)
            return self.extend(base, node.field)
        if isinstance(node, ast.Has):
            base = self.walk(node.select.operand, env)
            path = self.extend(base, node.select.field)
            if path is not None:
                self.read(path)
            return None
        if isinstance(node, ast.Index):
            base = self.walk(node.operand, env)
            if isinstance(node.index, ast.Literal) and isinstance(node.index.value, str):
                return self.extend(base, node.index.value)
            if base is not None:
                self.read(base)
            self.consume(node.index, env)
            return None
        if isinstance(node, ast.Bind):
            init = self.walk(node.init, env)
            if init is not None and len(init) > _CONTAINER_DEPTH:
                self.read(init)
            return self.walk(node.body, {**env, node.var: init})
        if isinstance(node, ast.Comprehension):
            self.consume(node.range, env)
            inner: dict[str, Path | None] = {**env, node.var: None}
            if node.var2 is not None:
                inner[node.var2] = None
            if node.predicate is not None:
                self.consume(node.predicate, inner)
            self.consume(node.body, inner)
            return None
        if (
            isinstance(node, ast.Call)
            and node.function == "@in"
            and len(node.args) == 2
            and isinstance(node.args[0], ast.Literal)
            and isinstance(node.args[0].value, str)
        ):
            container = self.walk(node.args[1], env)
            if container is not None:
                self.read((*container, node.args[0].value) if len(container) == 2 else container)
            return None
        for child in ast.children(node):
            self.consume(child, env)
        return None

    def extend(self, base: Path | None, part: str) -> Path | None:
        if base is None:
            return None
        if len(base) >= 3 or (len(base) == 1 and base[0] not in ("attributes", "capacity")):
            # Below an attribute value (or a scalar field) the value itself is what matters.
            self.read(base)
            return None
        return (*base, part)

    def consume(self, node: ast.Node, env: dict[str, Path | None]) -> None:
        path = self.walk(node, env)
        if path is not None:
            self.read(path)


def device_reads(node: ast.Node, var: str = "device") -> frozenset[Path] | None:
    """The device paths an expression reads, or None when it may read the whole device."""
    reads = _Reads(var)
    reads.consume(node, {})
    return None if reads.whole else frozenset(reads.paths)
