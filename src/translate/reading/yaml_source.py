"""Reading YAML/JSON the way Kubernetes does, remembering where every value came from.

The data is what PyYAML's SafeLoader gives, except that timestamps stay strings (as
sigs.k8s.io/yaml leaves them) and duplicate keys are an error (as the API server's strict
decoding says). Three readers give it, the fastest that applies:

- JSON text (`kubectl get -o json`, or JSON documents between `---` lines) is read by `json`
  (`json_reader`), once the few things JSON and YAML read differently have been ruled out (else:
  the YAML path);
- YAML is built straight from libyaml's events (`yaml_events`), without PyYAML's node graph; a
  document that needs more (explicit tags, merge keys, or anything that is an error) is replayed
  through PyYAML's composer and constructor, so its data and its error are PyYAML's own;
- `reference_documents` (`yaml_reference`), PyYAML's composer and constructor building
  `LineDict`/`LineList` (a line for every key and item): the replay, the finder of lines, and what
  the others are tested against.

Lines: mappings become `LineDict` and sequences `LineList`, ordinary dicts and lists that know
the line of each key / item. The fast readers make them only where lines are always needed: each
document's top mapping and its keys, its top-level lists and their items. Everything below is
plain; the line of a deeper field is found when a problem asks for it (`line_of`), by reading the
object's own span of the text again with the reference reader.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...model.errors import Problem
from .documents import Document
from .json_reader import read_json
from .json_text import SourceText
from .yaml_events import yaml_documents


def read_documents(text: str, file: str, source: SourceText | None = None) -> Iterator[Document | Problem]:
    """Every non-empty document of a YAML (or JSON) stream, or the syntax problem that stopped it.
    `source`: the text as lines are looked up later (see SourceText), when the caller can read it
    again."""
    docs = read_json(text, file, source or SourceText(text))
    if docs is not None:
        yield from docs
    else:
        yield from yaml_documents(text, file)
