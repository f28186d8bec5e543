"""The fast readers (JSON through `json`, YAML from libyaml's events) read every text exactly as the
reference reader (PyYAML's composer and constructor) does: the same data, the same document lines,
the same line for every field path, the same error at the same line."""

from __future__ import annotations

import gc
import json
import math
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from yaml.nodes import ScalarNode

from kubefit.model.errors import InputError
from kubefit.translate.loader import load_text
from kubefit.translate.reading import documents, json_reader, yaml_events
from kubefit.translate.reading.documents import LineDict, LineList, line_of
from kubefit.translate.reading.json_text import SourceText
from kubefit.translate.reading.yaml_reference import reference_documents
from kubefit.translate.reading.yaml_source import read_documents

SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def shape(value: Any) -> Any:
    """A value with its types spelled out (True is not 1, NaN is NaN), containers as the kind they are."""
    if isinstance(value, dict):
        return ("map", [(shape(k), shape(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("seq", [shape(v) for v in value])
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else repr(value))
    return (type(value).__name__, value)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every field path in `value`, and one step past each (a field that is not there)."""
    yield prefix
    yield (*prefix, "no-such-field")
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from paths(item, (*prefix, i))
        yield (*prefix, len(value))


def outcome(reader: Any, text: str) -> list[Any]:
    """What a reader makes of `text`: documents (shape, line, line of every path) and problems, or
    the exception that is not a YAML error (PyYAML lets a few through; so must the fast path)."""
    out: list[Any] = []
    try:
        for doc in reader(text, "in.yaml"):
            if isinstance(doc, documents.Document):
                lines = {p: line_of(doc.data, p, doc.line) for p in paths(doc.data)}
                out.append((shape(doc.data), doc.line, lines))
            else:
                out.append(str(doc))
    except Exception as e:
        out.append((type(e).__name__, str(e)))
    return out


def assert_same_reading(text: str) -> None:
    assert outcome(read_documents, text) == outcome(reference_documents, text), text


# ---- scalars ----------------------------------------------------------------------------------

SPECIAL_SCALARS = [
    *[
        "yes",
        "Yes",
        "YES",
        "no",
        "No",
        "NO",
        "true",
        "True",
        "TRUE",
        "false",
        "False",
        "FALSE",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "y",
        "n",
    ],
    *["null", "Null", "NULL", "~", ".inf", ".Inf", "-.INF", "+.inf", ".nan", ".NaN", ".NAN"],
    *[
        "0",
        "-0",
        "+7",
        "017",
        "0o17",
        "0x1F",
        "0b101",
        "0b_",
        "0x_",
        "0_",
        "1_000",
        "1:30",
        "-1:30",
        "190:20:30",
        "1:30.5",
        "1.5",
        "-1.",
        ".5",
        "1e5",
        "1.5e3",
    ],
    *[
        "1.5e+3",
        "1.0E-5",
        "6.8523015e+5",
        "685_230.15",
        "2001-12-14",
        "2001-12-14t21:59:43.10-05:00",
        "<<",
        "=",
        "!",
        "&",
        "*",
        "~x",
    ],
    "",
]
scalar_texts = st.one_of(
    st.sampled_from(SPECIAL_SCALARS),
    st.text(alphabet="0123456789+-._:eEbxoXOaAfFnNlLtTrRuUyYsS~<=", max_size=10),
)


def reference_scalar(text: str) -> Any:
    """What yaml.SafeLoader makes of a plain scalar, except that a timestamp stays a string."""
    loader = yaml.SafeLoader("")
    tag = loader.resolve(ScalarNode, text, (True, False))
    if tag == "tag:yaml.org,2002:timestamp":
        return text
    return loader.construct_object(ScalarNode(tag, text))


@SETTINGS
@given(scalar_texts)
def test_plain_scalars_resolve_as_safe_loader_resolves_them_except_timestamps(text: str) -> None:
    try:
        expected = ("value", shape(reference_scalar(text)))
    except Exception:
        expected = ("PyYAML's own business", None)
    try:
        got = ("value", shape(yaml_events._resolve(text, {})))
    except yaml_events._Unusual:
        got = ("PyYAML's own business", None)
    assert got == expected


# ---- YAML documents ----------------------------------------------------------------------------

KEYS = [
    "a",
    "b",
    "name",
    "kind",
    "1",
    "true",
    "~",
    "'a'",
    '"b"',
    "<<",
    "=",
    "*k",
    "&k key",
    "!!str k",
    "? c",
    "*c",
]
VALUES = [*SPECIAL_SCALARS[:40], "x", "'quoted'", '"dq\\tx"', "*s", "&s shared", "!!int '7'", "!!str 1", "*c"]
VALUES += [
    "[1, two, {c: 3}]",
    "{}",
    "[]",
    "{a: 1, a: 2}",
    "2001-12-14",
    "|\n  block\n  text",
    "[*s]",
    "*nope",
]


@st.composite
def block(draw: Any, indent: int = 0, depth: int = 0) -> str:
    """A block mapping or sequence built from tokens that are often plain, sometimes special and
    sometimes wrong (duplicate keys, undefined aliases, merges): both readers must agree on all."""
    pad = " " * indent
    is_map = draw(st.booleans()) if depth else draw(st.sampled_from([True, True, False]))
    out = []
    for _ in range(draw(st.integers(1 if depth == 0 else 0, 4))):
        head = f"{pad}{draw(st.sampled_from(KEYS))}:" if is_map else f"{pad}-"
        anchor = draw(st.sampled_from(["", "", "", " &c"]))
        if depth < 3 and draw(st.integers(0, 3)) == 0:
            out.append(f"{head}{anchor}\n{draw(block(indent + 2, depth + 1))}")
        else:
            out.append(f"{head} {draw(st.sampled_from(VALUES))}\n")
    return "".join(out) or f"{pad}{{}}\n"


@st.composite
def yaml_streams(draw: Any) -> str:
    docs = [draw(block()) for _ in range(draw(st.integers(1, 3)))]
    separators = [draw(st.sampled_from(["---\n", "--- # c\n", "...\n---\n", "\n---\n"])) for _ in docs]
    text = "".join(sep + doc for sep, doc in zip(separators, docs, strict=True))
    return text if draw(st.booleans()) else text.removeprefix("---\n")


@SETTINGS
@given(yaml_streams())
def test_generated_yaml_streams_read_the_same_as_the_reference(text: str) -> None:
    assert_same_reading(text)


@st.composite
def plain_data(draw: Any) -> Any:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=True),
        st.text(max_size=8),
        st.sampled_from(SPECIAL_SCALARS),
    )
    return draw(
        st.recursive(
            scalars,
            lambda inner: (
                st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
            ),
            max_leaves=20,
        )
    )


@SETTINGS
@given(
    st.lists(
        st.dictionaries(st.sampled_from(["kind", "items", "spec", "x"]), plain_data(), min_size=1), min_size=1
    ),
    st.sampled_from([None, False, True]),
    st.sampled_from([20, 80]),
)
def test_what_pyyaml_dumps_reads_the_same_as_the_reference(docs: list[Any], flow: Any, width: int) -> None:
    text = yaml.safe_dump_all(docs, default_flow_style=flow, width=width, allow_unicode=True, sort_keys=False)
    assert_same_reading(text)


def test_anchors_aliases_and_merge_keys_read_as_pyyaml_reads_them() -> None:
    text = textwrap.dedent(
        """\
        base: &base {cpu: 1, memory: 2Gi}
        items:
        - &first
          name: a
          resources: *base
        - <<: *base
          name: b
        - *first
        shared: [&s x, *s]
        """
    )
    assert_same_reading(text)
    (doc,) = read_documents(text, "in.yaml")
    assert isinstance(doc, documents.Document)
    assert doc.data["items"][0]["resources"] is doc.data["base"]


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\nb:\n  c: 1\n  c: 2\n",  # a duplicate key, deep down
        "a: {b: 1, b: 2}\nc: [\n",  # a duplicate key, then a syntax error: the syntax error wins
        "a: &x 1\nb: &x 2\n",  # a duplicate anchor
        "a: *x\n",  # an undefined alias
        "a: &x [*x]\n",  # a recursive alias
        "a: =\n",  # the value tag, which SafeLoader cannot construct
        "<<: 1\n",  # a merge of a scalar
        "a: 0b_\n",  # a ValueError PyYAML lets through
        "? [1]\n: 2\n",  # a collection as a key
        "a: &c {x: 1}\nb:\n  *c : 2\n",  # an alias to a collection as a key
        "a: !!timestamp 2001-12-14\nb: !!binary aGk=\nc: !!set {x}\n",  # explicit tags
        "x: 1\n---\ny: [\n",  # a good document, then a broken one
    ],
)
def test_unusual_yaml_reads_as_the_reference_reads_it(text: str) -> None:
    assert_same_reading(text)


def test_timestamps_stay_strings_on_every_path() -> None:
    for text in ["t: 2001-12-14t21:59:43.10-05:00\n", '{"t": "2001-12-14"}', "t: 2001-12-14\n"]:
        (doc,) = read_documents(text, "in.yaml")
        assert isinstance(doc, documents.Document) and isinstance(doc.data["t"], str)


# ---- JSON ----------------------------------------------------------------------------------------

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["\x7f", "\x85", "\u2028", "\U0001f600", "a\tb", "\ufeff", "1e5"]),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=25,
)


@st.composite
def json_streams(draw: Any) -> str:
    docs = draw(
        st.lists(
            st.one_of(
                st.dictionaries(st.sampled_from(["apiVersion", "kind", "items", "spec"]), json_values),
                st.lists(json_values, max_size=3),
            ),
            min_size=1,
            max_size=3,
        )
    )
    indent = draw(st.sampled_from([None, 0, 1, 2, "\t"]))
    ascii_only = draw(st.booleans())
    separators = draw(st.sampled_from([None, (",", ":"), (" ,", " : ")]))
    texts = [json.dumps(d, indent=indent, ensure_ascii=ascii_only, separators=separators) for d in docs]
    if len(texts) == 1 and draw(st.booleans()):
        return texts[0] + draw(st.sampled_from(["", "\n", "\n\n", "\t"]))
    line_end = draw(st.sampled_from(["\n", "\r\n"]))
    return "".join(f"---{line_end}{t}{line_end}" for t in texts).replace("\n", line_end)


@SETTINGS
@given(json_streams())
def test_generated_json_reads_the_same_as_the_reference(text: str) -> None:
    assert_same_reading(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',  # a duplicate key: YAML's error, at YAML's line
        '{"items": [{"a": {"b": 1, "b": 2}}]}',
        '{"a": 1e5, "b": 1.5e3, "c": 1.5e+3, "d": NaN, "e": -Infinity, "f": -0.0}',  # YAML's numbers
        '{"a": "\\ud83d\\ude00"}',  # an escaped surrogate pair: YAML refuses it
        '{"a"\n: 1}',  # a key whose colon is on the next line: YAML refuses it
        '{"%s": 1}' % ("k" * 1100),  # a key longer than YAML's 1024 characters
        '\t{"a": 1}',  # a tab where YAML's block context begins
        '{"a": 1}\n{"b": 2}',  # two values without a document start between them
        '[{"a": 1}, 2]',
    ],
)
def test_json_that_yaml_reads_differently_or_refuses_reads_as_the_reference(text: str) -> None:
    assert_same_reading(text)


LIST_JSON = """\
{
 "apiVersion": "v1",
 "kind": "List",
 "items": [
  {
   "apiVersion": "resource.k8s.io/v1",
   "kind": "ResourceSlice",
   "metadata": {"name": "s1"},
   "spec": {
    "driver": "gpu.example.com",
    "nodeName": "node-1",
    "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": "one"},
    "devices": [{"name": "gpu-0", "futureField": 1}]
   }
  }
 ]
}
"""


def test_a_json_list_reports_each_problem_at_its_own_line() -> None:
    with pytest.raises(InputError) as info:
        load_text(LIST_JSON, "in.json")
    assert [str(p) for p in info.value.problems] == [
        "in.json:12: ResourceSlice/s1: spec.pool.resourceSliceCount: json: cannot unmarshal string into Go "
        "struct field ResourcePool.spec.pool.resourceSliceCount of type int64"
    ]
    objects = load_text(LIST_JSON.replace('"one"', "1"), "in.json")
    assert [str(w) for w in objects.warnings] == [
        'in.json:13: ResourceSlice/s1: spec.devices[0].futureField: warning: unknown field "futureField"'
    ]
    assert objects.objects[0].line == 5


def test_a_json_duplicate_key_is_yamls_error_at_its_line() -> None:
    with pytest.raises(InputError) as info:
        load_text('{\n "apiVersion": "v1",\n "kind": "Node",\n "kind": "Node"\n}\n', "in.json")
    (problem,) = info.value.problems
    assert str(problem) == 'in.json:4: invalid YAML: duplicate key "kind" in mapping'


def test_an_alias_to_an_anchor_outside_an_item_still_finds_the_line() -> None:
    text = textwrap.dedent(
        """\
        apiVersion: v1
        kind: List
        shared: &labels {app: x}
        items:
        - apiVersion: v1
          kind: Node
          metadata:
            name: n
            labels: *labels
            futureField: 1
        """
    )
    objects = load_text(text, "in.yaml")
    assert [w.line for w in objects.warnings] == [10]


# ---- the fast paths are taken, and leave the garbage collector as they found it -------------


def test_kubectl_style_json_and_yaml_take_the_fast_paths() -> None:
    doc = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "labels": {"a": "b"}}}
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [doc, doc]}, indent=1)
    assert json_reader.read_json(text, "in.json", SourceText(text)) is not None
    (read,) = read_documents(yaml.safe_dump(doc), "in.yaml")
    assert isinstance(read, documents.Document)
    # No replay: below the object root, the containers are plain (their lines are found on demand).
    assert isinstance(read.data, LineDict) and type(read.data["metadata"]) is dict
    (listed,) = read_documents(text, "in.json")
    assert isinstance(listed, documents.Document) and isinstance(listed.data["items"], LineList)


@pytest.mark.parametrize("enabled", [True, False])
def test_reading_leaves_the_garbage_collector_as_it_was(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        list(read_documents("a: 1\n---\nb: 2\n", "in.yaml"))
        list(read_documents('{"a": 1}', "in.json"))
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
