"""YAML and JSON output: libyaml's emitter writes the same bytes as PyYAML's own (which writes where
libyaml is missing), every value reads back exactly, and what a terminal would act on is written with
the format's own escapes."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kubefit import output
from kubefit.output import to_json, to_yaml

# Characters where emitters and terminals differ: controls, line breaks of every kind, quotes and YAML
# indicators, spaces, non-ASCII letters, the bidirectional controls, a private-use and an astral one.
ALPHABET = st.sampled_from(
    [
        *"ab -:#'\"\\|>&*!%@`{}[],?\t\n\r\x00\x07\x1b\x7f\x85\x9b\xa0é€\u2028\u2029\u202e\u2066\ufeff\ue000",
        *["\U0001f600", "yes", "null", "0x1F", "1e3", "~"],
    ]
)
# What libyaml writes itself: YAML's indicators, spaces, line breaks, words and numbers.
ORDINARY = st.sampled_from(
    [*"ab -:#'\"\\|>&*!%@`{}[],?\n.0\xa0é€\ufeff\ue000", *["yes", "null", "0x1F", "1e3", "~", "word " * 20]]
)
TEXT = (
    st.lists(ORDINARY, max_size=12).map("".join)
    | st.lists(ALPHABET, max_size=12).map("".join)
    | st.text(max_size=30)
    | st.just("word " * 30)
)
SCALAR = TEXT | st.integers(-(2**70), 2**70) | st.booleans() | st.none() | st.floats(allow_nan=False)
DOCS = st.recursive(
    SCALAR,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None)
@given(DOCS)
def test_libyaml_writes_what_pyyaml_writes_and_every_value_reads_back(doc: Any) -> None:
    text = to_yaml(doc)
    assert text == to_yaml(doc, pure=True)
    assert yaml.safe_load(text) == doc


@settings(max_examples=200, deadline=None)
@given(DOCS)
def test_json_reads_back_exactly(doc: Any) -> None:
    assert json.loads(to_json(doc)) == doc


def test_libyaml_is_used_where_pyyaml_has_it() -> None:
    if yaml.__with_libyaml__:
        assert output._DUMPERS[0] is output._CDumper


def test_controls_a_terminal_acts_on_are_escaped_in_both_formats() -> None:
    doc = {"name": "a\u202eb\x85c\x9bd\u2028"}
    assert to_yaml(doc) == 'name: "a\\u202Eb\\Nc\\x9Bd\\L"\n'
    assert '"a\\u202eb\\u0085c\\u009bd\\u2028"' in to_json(doc)


def test_a_string_beyond_the_basic_plane_is_written_as_pyyaml_writes_it() -> None:
    assert to_yaml({"smile": "\U0001f600"}) == "smile: \U0001f600\n"


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(TEXT, DOCS, max_size=3), st.lists(DOCS, max_size=5))
def test_a_list_written_an_item_at_a_time_is_the_same_bytes(head: dict[str, Any], items: list[Any]) -> None:
    doc = {**{k: v for k, v in head.items() if k != "items"}, "items": items}
    stream = io.StringIO()
    output.write_json(stream, {**doc, "items": iter(items)})
    assert stream.getvalue() == to_json(doc)


def test_a_large_text_is_written_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    # A buffered stream given 2 GiB or more at once keeps 2 GiB less 4 KiB and drops the rest.
    class Counting(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.sizes: list[int] = []

        def write(self, s: str) -> int:
            self.sizes.append(len(s))
            return super().write(s)

    monkeypatch.setattr(output, "_CHUNK", 10)
    stream = Counting()
    output.write(stream, "x" * 35)
    assert stream.sizes == [10, 10, 10, 5]
    assert stream.getvalue() == "x" * 35
