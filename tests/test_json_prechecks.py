"""The JSON reader's checks made by a forked child (json_prechecks): reading a file with the child's
verdicts gives what reading it with the reader's own checks gives, and a verdict on another text (a file
changed since) or no verdict at all (a child that failed) leaves the checks to the reader."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from test_background_validation import both
from test_json_reading import json_texts, summary

from kubefit import forking
from kubefit.translate import json_prechecks, yaml_source
from kubefit.translate.json_text import SourceText

# Texts that take each way: read as is, checked object by object, or read as YAML.
CASES = [
    '{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Namespace", "metadata": {"name": "a"}}]}',
    '{"items": [{"a": {"b": 1, "b": 2}}]}',  # a key twice: object by object, then the YAML way
    '{"items": [{"a": ":x"}]}',  # a string beginning with `:`: object by object
    '{"items": [{"' + "k" * 129 + '": 1}]}',  # a key too long for YAML
    '{"a" : 1}',  # a blank before a colon: nothing to count keys by
    '{"a": "\u2028"}',  # YAML counts a line there: the YAML way
    '{"a": [1, 2}',  # not JSON
]


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(forking.ENV, "1")
    monkeypatch.setattr(forking.threading, "active_count", lambda: 1)
    yield
    json_prechecks.finish()


def read(path: Path, text: str) -> Any:
    return summary(yaml_source._json_documents(text, str(path), SourceText(text)))


def checked(path: Path) -> Any:
    """The file read with a child's verdicts (the child's own, not the reader's checks)."""
    text = path.read_text()
    json_prechecks.start([str(path)])
    assert json_prechecks._current is not None
    try:
        return read(path, text)
    finally:
        json_prechecks.finish()


@pytest.mark.parametrize("text", CASES)
def test_the_childs_verdicts_read_as_the_readers_checks(text: str, tmp_path: Path, forks: None) -> None:
    path = tmp_path / "in.json"
    path.write_text(text)
    assert checked(path) == read(path, text)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=json_texts())
def test_generated_texts_read_alike(text: str, tmp_path: Path, forks: None) -> None:
    try:
        data = text.encode()
    except UnicodeEncodeError:
        return  # a surrogate: no file holds that text
    path = tmp_path / "in.json"
    path.write_bytes(data)
    assert checked(path) == read(path, path.read_text())


def test_a_verdict_on_a_text_since_changed_is_not_taken(tmp_path: Path, forks: None) -> None:
    path = tmp_path / "in.json"
    path.write_text(CASES[1])  # a key twice
    json_prechecks.start([str(path)])
    assert json_prechecks._current is not None
    json_prechecks._current.take("proof", "nothing")  # every record the child sends is in
    changed = CASES[1].replace('"b": 1, "b": 2', '"b": 1, "c": 2')  # as long, no key twice
    path.write_text(changed)
    os.utime(path, ns=(1, 1))  # a time no read could have seen
    assert json_prechecks.lookup(str(path), changed) is None
    assert read(path, changed) == summary(yaml_source._json_documents(changed, "x", SourceText(changed)))


def test_a_child_that_fails_leaves_the_checks_to_the_reader(
    tmp_path: Path, forks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object) -> None:
        raise RuntimeError("the child cannot tell")

    path = tmp_path / "in.json"
    path.write_text(CASES[0])
    expected = read(path, CASES[0])
    monkeypatch.setattr(yaml_source, "collected_documents", broken)  # the child's proof, not the reader's
    json_prechecks.start([str(path)])
    found = json_prechecks.lookup(str(path), CASES[0])
    assert found is not None and found.facts is not None and not found.proven()
    json_prechecks.finish()
    json_prechecks.start([str(path)])
    assert read(path, CASES[0]) == expected


def test_small_inputs_and_stdin_are_not_forked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(forking.ENV, raising=False)
    monkeypatch.setattr(forking.threading, "active_count", lambda: 1)
    path = tmp_path / "in.json"
    path.write_text(CASES[0])
    json_prechecks.start([str(path), "-"])
    assert json_prechecks._current is None


def test_the_command_line_answers_alike(tmp_path: Path) -> None:
    folder = tmp_path / "input"
    folder.mkdir()
    for i, text in enumerate(CASES[:5]):
        (folder / f"{i}.json").write_text(
            text.replace('"kind": "Namespace"', '"apiVersion": "v1", "kind": "Namespace"')
        )
    _, _, err = both("validate", "-f", str(folder), "-o", "json")  # with the children and without, alike
    assert "the JSON reader's checks of 5 file(s) go on in a child process" in err


def test_a_file_the_child_does_not_check_is_not_waited_for(tmp_path: Path, forks: None) -> None:
    checked_file, other = tmp_path / "in.json", tmp_path / "template.json"
    checked_file.write_text(CASES[0])
    other.write_text(CASES[0])
    json_prechecks.start([str(checked_file)])
    assert json_prechecks.lookup(str(other), CASES[0]) is None
    assert json_prechecks._current is not None and not json_prechecks._current.received  # nothing read
    found = json_prechecks.lookup(str(checked_file), CASES[0])
    assert found is not None and found.proven()
