"""Reading YAML/JSON the way Kubernetes does, remembering where every value came from.

Mappings become `LineDict` and sequences `LineList`: ordinary dicts and lists
that also know the line of each key / item, so any field path can be traced back
to a line of the file. Timestamps stay strings (as sigs.k8s.io/yaml leaves them)
and duplicate keys are an error (as the API server's strict decoding says).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from ..errors import FieldPath, Problem


class LineDict(dict[Any, Any]):
    """A mapping that knows the line of itself and of each key."""

    line: int = 0
    key_lines: dict[Any, int]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.key_lines = {}


class LineList(list[Any]):
    """A sequence that knows the line of itself and of each item."""

    line: int = 0
    item_lines: list[int]

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.item_lines = []


class _DuplicateKey(yaml.MarkedYAMLError):
    pass


# libyaml's parser when PyYAML has it (several times faster on large slices); the objects are
# still constructed in Python, by the constructors below.
_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[valid-type,misc]
    """SafeLoader with line-aware containers; timestamps are left as strings."""


# Kubernetes decodes YAML into JSON first: a timestamp is just a string there.
_Loader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    result = LineDict()
    result.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, (list, dict)):
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a scalar", key_node.start_mark
            )
        if key in result:
            raise _DuplicateKey(None, None, f'duplicate key "{key}" in mapping', key_node.start_mark)
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = key_node.start_mark.line + 1
    return result


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode) -> LineList:
    result = LineList()
    result.line = node.start_mark.line + 1
    for child in node.value:
        result.append(loader.construct_object(child, deep=True))
        result.item_lines.append(child.start_mark.line + 1)
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


@dataclass
class Document:
    """One YAML document of a file: its data and where it starts."""

    data: Any
    file: str
    line: int


def read_documents(text: str, file: str) -> Iterator[Document | Problem]:
    """Every non-empty document of a YAML (or JSON) stream, or the syntax problem that stopped it."""
    loader = _Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            data = loader.construct_document(node)
            if data is None:
                continue
            yield Document(data, file, node.start_mark.line + 1)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark is not None else 0
        what = e.problem or e.context or "invalid YAML"
        yield Problem(f"invalid YAML: {what}", file=file, line=line)
    except yaml.YAMLError as e:
        yield Problem(f"invalid YAML: {e}", file=file)
    finally:
        loader.dispose()


def line_of(data: Any, path: FieldPath, default: int = 0) -> int:
    """The line of the deepest part of `path` that exists in `data`."""
    line = getattr(data, "line", 0) or default
    current = data
    for part in path:
        if isinstance(current, LineDict) and part in current:
            line = current.key_lines.get(part, line)
            current = current[part]
        elif isinstance(current, LineList) and isinstance(part, int) and 0 <= part < len(current):
            line = current.item_lines[part]
            current = current[part]
        else:
            break
    return line
