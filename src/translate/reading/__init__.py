"""Reading what kubefit is given: files and streams within bounds (`bounded_read`), the files a path
names (`source_files`), YAML and JSON documents with the line of every value (`yaml_source`,
`json_reader`, `json_tail`), what a document may cost (`yaml_limits`), and the child that reads a large
JSON file while the process starts (`json_child`)."""

from . import bounded_read, json_child
from .bounded_read import (
    Budget,
    JSONRefused,
    NotText,
    TooLarge,
    TooManyObjects,
    load_json,
    read_stream,
    read_text,
    refused,
)
from .documents import Document, LineDict, LineList, gc_paused, line_of
from .json_text import SourceText
from .slice_plain import forget, proven_once
from .source_files import rereader, walk
from .yaml_limits import MAX_DEPTH
from .yaml_source import read_documents

__all__ = [
    "MAX_DEPTH",
    "Budget",
    "Document",
    "JSONRefused",
    "LineDict",
    "LineList",
    "NotText",
    "SourceText",
    "TooLarge",
    "TooManyObjects",
    "bounded_read",
    "forget",
    "gc_paused",
    "json_child",
    "line_of",
    "load_json",
    "proven_once",
    "read_documents",
    "read_stream",
    "read_text",
    "refused",
    "rereader",
    "walk",
]
