"""Reading a List's last items first (json_tail) changes nothing: the documents, their lines and the key
count are those of a reading in order, whether the tail holds or is void; the tail is sent only where
the List can have one, and its document is the List with its last items only."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_json_reading import summary

from kubefit.translate.reading import json_reader, json_tail
from kubefit.translate.reading.documents import LineDict
from kubefit.translate.reading.json_tail import TailFirst, head_documents
from kubefit.translate.reading.json_text import SourceText

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

KEYS = ["apiVersion", "kind", "metadata", "name", "spec", "a", "b", "items"]


def read(text: str, tail: TailFirst | None = None) -> tuple[Any, Any]:
    docs, keys = json_reader.collected_documents(text, "in.json", SourceText(text), tail)
    lines = None
    if docs:
        root = docs[0].data
        items = root.get("items") if isinstance(root, dict) else None
        lines = (getattr(root, "key_lines", None), getattr(items, "item_lines", None))
    return (summary(docs), keys, lines), docs


def tail_first(text: str) -> tuple[TailFirst, list[LineDict], Any, Any]:
    sent: list[LineDict] = []
    tail = TailFirst(sent.append)
    got, docs = read(text, tail)
    return tail, sent, got, docs


json_leaf = st.one_of(st.integers(-5, 5), st.booleans(), st.none(), st.text("ab: \u00e9", max_size=4))
json_data = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def lists(draw: Any) -> str:
    """A List as `kubectl -o json` and other writers lay it out, its kind before or after the items,
    sometimes something that stops the tail (a last item that is no object, a kind that is no List,
    another document after it, a key twice)."""
    items: list[Any] = draw(
        st.lists(st.dictionaries(st.sampled_from(KEYS), json_data, max_size=4), max_size=12)
    )
    if draw(st.integers(0, 5)) == 0:
        items.append(draw(json_leaf))
    kind = draw(st.sampled_from(["List", "List", "PodList", "Pod"]))
    entries = [("apiVersion", "v1"), ("items", items), ("kind", kind)]
    if draw(st.booleans()):
        entries.append(("metadata", {"resourceVersion": ""}))
    order = draw(st.permutations(entries))
    text = json.dumps(
        dict(order), indent=draw(st.sampled_from([1, 2, 4, "\t"])), ensure_ascii=draw(st.booleans())
    )
    if draw(st.integers(0, 6)) == 0:
        text = text[:-1] + ', "kind": "Again"}'  # a key twice: not JSON as YAML reads it
    ending = draw(st.sampled_from(["", "\n", "\n\n", '\n---\n{"a": 1}\n', "\r\n"]))
    return text + ending


@SETTINGS
@given(lists())
def test_reading_the_tail_first_reads_as_in_order(text: str) -> None:
    in_order, _ = read(text)
    tail, sent, got, docs = tail_first(text)
    assert got == in_order
    assert len(sent) == (1 if tail.sent else 0)
    if tail.head_items is None:
        return
    root = docs[0].data
    (early,) = sent
    # The List's entries in their order, with its last items only, on their own lines.
    assert list(early) == list(root)
    assert early["items"] == root["items"][tail.head_items :]
    assert early["items"].item_lines == root["items"].item_lines[tail.head_items :]
    assert {k: v for k, v in early.items() if k != "items"} == {k: v for k, v in root.items() if k != "items"}
    (head,) = head_documents(docs, tail.head_items)
    assert head.data["items"] == root["items"][: tail.head_items]
    assert list(head.data) == list(root)


def kubectl_list(count: int, kind_after: bool = True) -> str:
    items = [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "n"}, "spec": {}}
        for i in range(count)
    ]
    root = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
    if not kind_after:
        root = {"apiVersion": "v1", "kind": "List", "items": items}
    return json.dumps(root, indent=4) + "\n"


@pytest.mark.parametrize("kind_after", [True, False])
def test_a_dumps_last_sixth_is_read_first(kind_after: bool) -> None:
    text = kubectl_list(60, kind_after)
    tail, sent, got, _ = tail_first(text)
    assert got == read(text)[0]
    assert tail.head_items is not None and 60 - 60 // 6 - 1 <= tail.head_items < 60
    assert sent[0]["kind"] == "List" and sent[0]["items"][0]["metadata"]["name"] == f"p{tail.head_items}"


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"apiVersion": "v1", "kind": "List", "items": [{"a": i} for i in range(30)]}),  # one line
        kubectl_list(30).replace('"kind": "List"', '"kind": "Pod"'),  # not a List: one object
        kubectl_list(30) + '---\n{"a": 1}\n',  # another document follows
        kubectl_list(30).replace("\n    ]", ",\n        7\n    ]"),  # a last item that is no object
        kubectl_list(0),
    ],
)
def test_no_tail_where_the_list_cannot_have_one(text: str) -> None:
    tail, sent, got, _ = tail_first(text)
    assert got == read(text)[0]
    assert not sent and tail.head_items is None


def test_a_line_that_only_looks_like_an_item_is_no_tail() -> None:
    # Past the last sixth, objects nested in the last item open lines at the items' indentation.
    nested = ",\n".join(f'    {{"c": {i}}}' for i in range(30))
    text = '{"kind": "List", "items": [\n    {"a": 1},\n    {"b": [\n' + nested + "\n    ]}\n]}\n"
    tail, sent, got, _ = tail_first(text)
    assert got == read(text)[0]
    assert not sent and tail.head_items is None


def test_a_tail_the_items_in_order_do_not_meet_is_void(monkeypatch: pytest.MonkeyPatch) -> None:
    # Read in order, no item begins where the tail does: it was sent, and the reading is in order.
    run = json_tail.item_run
    monkeypatch.setattr(
        json_tail, "item_run", lambda *a: run(*a[:-1], a[-1] + 1) if len(a) == 10 and a[-1] >= 0 else run(*a)
    )
    text = kubectl_list(60)
    tail, sent, got, _ = tail_first(text)
    assert got == read(text)[0]
    assert len(sent) == 1 and tail.sent and tail.head_items is None


def test_a_tail_that_does_not_read_counts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # The guess falls inside an item: reading from it fails, and what it read is not counted.
    text = kubectl_list(60)
    monkeypatch.setattr(json_tail, "_tail_start", lambda text, at: text.rindex('"namespace"'))
    tail, sent, got, _ = tail_first(text)
    assert got == read(text)[0]
    assert not sent and tail.head_items is None
