"""Reading JSON fast changes nothing: the text checks decide as the patterns they stand for, counting
keys finds every duplicate that checking each object finds, the documents and their lines are the
reference reader's, and a line below what the reader tracked is found without reading a span again."""

from __future__ import annotations

import gc
import json
import re
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_loader_speed_paths import paths, shape

from kubefit.translate.reading import documents, json_reader, json_text, json_walk, yaml_reference
from kubefit.translate.reading.documents import Document, LineDict, line_of
from kubefit.translate.reading.json_text import JsonLines, SourceText
from kubefit.translate.reading.yaml_limits import MAX_DEPTH, too_deep
from kubefit.translate.reading.yaml_reference import reference_documents
from kubefit.translate.reading.yaml_source import read_documents

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---- what the fast checks stand for: the patterns, searched over the whole text -------------------

NOT_YAML_TEXT = re.compile("[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
FAR_COLON = re.compile(r'"(?:[ \t\r]*\n[ \t\r\n]*|[ \t\r]{64,}):')


def yaml_reads_as_json(text: str) -> bool:
    return not (
        ("\x7f" in text if text.isascii() else NOT_YAML_TEXT.search(text))
        or SURROGATE_ESCAPE.search(text)
        or text.count("\r") != text.count("\r\n")
        or FAR_COLON.search(text)
    )


def separated_values(text: str) -> list[tuple[int, int]]:
    """(begin, end) of the text between lines that are exactly `---`, found before reading any."""
    chunks = []
    begin = pos = 4 if text.startswith("---\n") else 5 if text.startswith("---\r\n") else 0
    while (found := text.find("\n---", pos)) >= 0:
        after = found + 4
        if text.startswith("\n", after) or after == len(text):
            chunks.append((begin, found + 1))
            begin = after + 1
        elif text.startswith("\r\n", after):
            chunks.append((begin, found + 1))
            begin = after + 2
        pos = after
    chunks.append((begin, len(text)))
    return chunks


def checked_reading(text: str) -> list[Document] | None:
    """The JSON reading that checks each object's keys as it is made, on the text split at its
    separator lines first, after the patterns above."""
    if json_reader._JSON_START.match(text) is None or not yaml_reads_as_json(text):
        return None
    lines = json_walk.Lines(text)
    docs = []

    def blank(start: int, end: int) -> int:
        found = json_walk.BLANK.match(text, start, end)
        return found.end() if found is not None else start

    try:
        for begin, end in separated_values(text):
            i = blank(begin, end)
            if i == end:
                continue
            if text[i] not in "{[":
                return None
            line = lines(i)
            read = json_walk.json_root if text[i] == "{" else json_walk.json_items
            data, i = read(text, i, lines, json_text.checked_scan, SourceText(text), lambda item: None)
            if i > end or blank(i, end) != end:
                return None
            docs.append(Document(data, "in.json", line))
    except (ValueError, StopIteration, IndexError, RecursionError):
        return None
    return docs


# ---- JSON texts with everything the checks look at ------------------------------------------------

BLANKS = [*["", "", " ", "\n", "\n  ", "\r\n"] * 8, "\t", " " * 70, "\t" * 64, "\r", "\n\n", " \n ", "\x0c"]
BEFORE_COLON = [*[""] * 12, " ", "\n", "\t", " " * 64, "\r\n"]
KEYS = ["a", "a", "a", "b", "kind", "", ":", ":a", "a:", 'q"', "\\", "k" * 129, "k" * 128, "é"]
STRINGS = [
    *[*KEYS, "x:y", ":", '":', '\\":', "\\\\", "\U0001f600", " " * 64 + ":", "a\\"] * 6,
    *["\x7f", "\x85", "\ud800", "\u2028"],
]
NUMBERS = [
    "0",
    "-1",
    "1.5",
    "1e5",
    "1.5e3",
    "1.5E+3",
    "-0.0",
    "1.0e-5",
    "NaN",
    "-Infinity",
    "12345678901234567890",
]


@st.composite
def json_string(draw: Any) -> str:
    """A JSON string as some writer may spell it: escapes where they are optional too."""
    value = draw(st.one_of(st.sampled_from(STRINGS), st.text(alphabet='ab:"\\ \u00e9', max_size=6)))
    out = json.dumps(value, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):
        out = out.replace("b", "\\u0062").replace(":", "\\u003A")
    return out


@st.composite
def json_value(draw: Any, depth: int = 0) -> str:
    kind = draw(st.integers(3 if depth == 0 else 0, 5 if depth < 3 else 2))
    if kind == 0:
        return draw(json_string())
    if kind == 1:
        return draw(st.sampled_from([*NUMBERS, "true", "false", "null"]))
    if kind == 2:
        return "[]" if draw(st.booleans()) else "{}"
    ws = st.sampled_from(BLANKS)
    if kind == 3:
        items = [draw(ws) + draw(json_value(depth + 1)) + draw(ws) for _ in range(draw(st.integers(1, 3)))]
        return "[" + ",".join(items) + "]"
    members = []
    for _ in range(draw(st.integers(1, 4))):
        key = json.dumps(draw(st.sampled_from(KEYS))) if draw(st.integers(0, 3)) else draw(json_string())
        before = draw(st.sampled_from(BEFORE_COLON))
        members.append(f"{draw(ws)}{key}{before}:{draw(ws)}{draw(json_value(depth + 1))}{draw(ws)}")
    return "{" + ",".join(members) + "}"


@st.composite
def json_texts(draw: Any) -> str:
    """One value or several between `---` lines, often shaped as kubectl lists its objects."""
    values = []
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            items = ", ".join(draw(json_value(1)) for _ in range(draw(st.integers(0, 3))))
            values.append('{"apiVersion": "v1", "kind": "List", "items": [' + items + "]}")
        else:
            values.append(draw(json_value()))
    separator = draw(
        st.sampled_from(["\n---\n", "\n---\r\n", "\n---", "\n\n---\n\n"] * 3 + ["\n----\n", "\n"])
    )
    text = separator.join(values)
    return (
        draw(st.sampled_from(["", "---\n", "\n---\n", "---\r\n"])) + text + draw(st.sampled_from(["", "\n"]))
    )


def summary(docs: Any) -> Any:
    if docs is None:
        return None
    out = []
    for doc in docs:
        if isinstance(doc, Document):
            out.append(
                (shape(doc.data), doc.line, {p: line_of(doc.data, p, doc.line) for p in paths(doc.data)})
            )
        else:
            out.append(str(doc))
    return out


@SETTINGS
@given(json_texts())
def test_the_quick_checks_decide_as_the_patterns_they_stand_for(text: str) -> None:
    assert (json_text.json_text(text) is not None) == yaml_reads_as_json(text)


@SETTINGS
@given(json_texts())
def test_counting_keys_reads_what_checking_each_object_reads(text: str) -> None:
    assert summary(json_reader.read_json(text, "in.json", SourceText(text))) == summary(checked_reading(text))


@SETTINGS
@given(json_texts())
def test_json_reads_as_the_reference_reads_it(text: str) -> None:
    def outcome(reader: Any) -> Any:
        try:
            return summary(list(reader(text, "in.json")))
        except Exception as e:  # PyYAML lets a few through; so must the fast path
            return (type(e).__name__, str(e))

    assert outcome(read_documents) == outcome(reference_documents)


def keys_and_colon_strings(text: str) -> tuple[int, int]:
    """The keys of every object in a JSON value, and its strings (keys too) that begin with `:`."""
    keys = colon_strings = 0

    def values(found: list[tuple[str, Any]]) -> list[Any]:
        nonlocal keys, colon_strings
        keys += len(found)
        colon_strings += sum(k.startswith(":") for k, _ in found)
        return [v for _, v in found]

    stack = [json.loads(text, object_pairs_hook=values, parse_constant=str)]
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str):
            colon_strings += value.startswith(":")
    return keys, colon_strings


@SETTINGS
@given(json_value())
def test_the_key_bound_counts_every_key_and_strings_that_begin_with_a_colon(text: str) -> None:
    facts = json_text.json_text(text)
    if facts is None or facts.key_bound is None:
        return
    try:
        keys, colon_strings = keys_and_colon_strings(text)
    except ValueError:
        return  # not JSON: nothing read, nothing bounded
    assert keys <= facts.key_bound <= keys + colon_strings


@pytest.mark.parametrize(
    ("text", "agrees", "key_bound"),
    [
        ('{"a": 1, "b": {"c": "x:y"}}', True, 3),
        ('{"a" : 1}', True, None),  # a blank before a `:`: keys are not counted
        ('{"a"\n: 1}', False, None),  # a key whose `:` is on the next line
        ('{"a"' + " " * 64 + ": 1}", False, None),
        ('{"a": "' + " " * 64 + ':"}', False, None),  # the pattern sees a far colon in a string too
        ('{"a": ":b"}', True, 2),  # a string that begins with `:`
        ('{"a": "\\":"}', True, 1),  # an escaped quote before `:`
        ('{"a\\\\": 1}', True, 1),  # an escaped backslash before the closing quote
        ('{"a": "\\ud83d\\ude00"}', False, None),  # escaped surrogates
        ('{"a": "\\\\ud83d"}', False, None),  # not an escape, but the pattern's match
        ('{"a": "\x7f"}', False, None),
        ('{"a": "\x85é"}', False, None),
        ('{"a": "\u2028"}', False, None),
        ('{"a": 1}\r', False, None),  # a lone CR
        ('{"a": 1}\r\n', True, 1),
        ('{"a": "' + '\\"x' * 5000 + '"}', True, None),  # too many escapes to count in Python
        ('{"a": "' + '\\"x' * 5000 + '\\uDC00"}', False, None),
    ],
)
def test_the_checks_on_texts_that_show_each_case(text: str, agrees: bool, key_bound: int | None) -> None:
    facts = json_text.json_text(text)
    assert (facts is not None) == agrees == yaml_reads_as_json(text)
    assert (facts.key_bound if facts is not None else None) == key_bound


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',
        '{"items": [{"a": {"b": 1, "b": 2}}]}',
        '{"items": [{"a": {"b": ":1", "b": 2}}]}',  # a string beginning with `:` and a duplicate
        '{"items": [{"' + "k" * 129 + '": 1}]}',
        '{"items": [{"a": ":x"}]}',  # a string beginning with `:`: counted keys fall short, no duplicate
    ],
)
def test_duplicate_and_long_keys_go_the_yaml_way_as_before(text: str) -> None:
    assert summary(json_reader.read_json(text, "in.json", SourceText(text))) == summary(checked_reading(text))
    assert summary(list(read_documents(text, "in.json"))) == summary(
        list(reference_documents(text, "in.json"))
    )


# ---- lines below what the reader tracked ---------------------------------------------------------


def kubectl_list(items: list[Any]) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=4)


SLICE = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceSlice",
    "metadata": {"name": "s"},
    "spec": {
        "driver": "d",
        "devices": [{"name": f"gpu-{i}", "attributes": {"i": {"int": i}}} for i in range(5)],
    },
}


def test_lines_in_a_list_are_found_without_reading_any_span_again(monkeypatch: pytest.MonkeyPatch) -> None:
    text = kubectl_list([SLICE, SLICE])
    ((doc, expected),) = [
        (d, r) for d, r in zip(read_documents(text, "f"), reference_documents(text, "f"), strict=True)
    ]
    assert isinstance(doc, Document) and isinstance(expected, Document)
    wanted = {p: line_of(expected.data, p) for p in paths(expected.data)}

    def refused(*args: Any) -> Any:
        raise AssertionError("a span read again")

    monkeypatch.setattr(yaml_reference, "reference_documents", refused)
    assert {p: line_of(doc.data, p) for p in paths(doc.data)} == wanted


def test_a_walk_keeps_what_it_has_seen_of_each_object_and_array() -> None:
    text = json.dumps(SLICE, indent=1)
    lines = JsonLines(text, 0, 1)
    first = lines.line_of(("spec", "devices", 4, "attributes", "i"))
    assert first == text[: text.index('"i"', text.index('"gpu-4"'))].count("\n") + 1
    assert lines.line_of(("spec", "devices", 2, "name")) == text[: text.index('"gpu-2"')].count("\n") + 1
    assert lines.line_of(("spec", "devices", 9)) == text[: text.index('"devices"')].count("\n") + 1
    assert lines.line_of(("metadata", 0)) == text[: text.index('"metadata"')].count("\n") + 1


def nested(depth: int) -> Any:
    value: Any = "x"
    for i in range(depth):
        value = {"n": value} if i % 2 else [value]
    return value


@pytest.mark.parametrize(
    "depth", [1, 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, MAX_DEPTH + 2, 3 * MAX_DEPTH]
)
def test_nesting_is_too_deep_where_the_reference_reader_says_so(depth: int) -> None:
    for data in (nested(depth), [nested(depth - 1), []], {"a": 1, "b": nested(depth - 1)}):
        events = yaml.parse(json.dumps(data), Loader=yaml.SafeLoader)
        assert json_text.too_deep(data) == (too_deep(events) is not None), depth


def test_a_field_in_an_item_nested_too_deep_is_at_the_items_line_as_before() -> None:
    text = kubectl_list([{"kind": "Node", "metadata": {"name": "n", "deep": nested(MAX_DEPTH + 5)}}])
    (doc,) = read_documents(text, "f")
    assert isinstance(doc, Document)
    item_line = doc.data["items"].item_lines[0]
    assert line_of(doc.data, ("items", 0, "metadata", "name")) == item_line
    shallow = kubectl_list([{"kind": "Node", "metadata": {"name": "n", "deep": nested(MAX_DEPTH - 5)}}])
    (doc,) = read_documents(shallow, "f")
    assert isinstance(doc, Document)
    assert (
        line_of(doc.data, ("items", 0, "metadata", "name"))
        == shallow.splitlines().index('                "name": "n",') + 1
    )


def test_the_root_keeps_where_its_values_start() -> None:
    text = '{"kind": "List", "items": [' + ", ".join(["{}"] * 3) + '],\n "metadata": {\n  "name": "x"}}'
    (doc,) = read_documents(text, "f")
    assert isinstance(doc, Document) and isinstance(doc.data, LineDict)
    assert line_of(doc.data, ("metadata", "name")) == 3


# ---- the collector after a large reading ---------------------------------------------------------


def test_a_large_reading_is_frozen_so_that_no_collection_scans_it_again() -> None:
    was_enabled, frozen = gc.isenabled(), gc.get_freeze_count()
    try:
        gc.enable()
        text = kubectl_list(
            [{"kind": "Node", "metadata": {"labels": {str(i): {"v": [i]}}}} for i in range(60_000)]
        )
        with documents.gc_paused():
            docs = list(read_documents(text, "f"))
        assert gc.isenabled() and gc.get_count()[0] < 1000
        assert gc.get_freeze_count() > frozen + 100_000
        gc.unfreeze()
        with documents.gc_paused():
            list(read_documents('{"a": 1}', "f"))
        assert gc.get_freeze_count() == 0  # a small reading is left to the collector
        assert isinstance(docs[0], Document)
    finally:
        gc.unfreeze()
        (gc.enable if was_enabled else gc.disable)()
