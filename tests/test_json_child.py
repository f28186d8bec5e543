"""Large JSON files read by a forked child (json_child): the documents the loader has from the child are
those it reads itself, line for line, and where the child's reading does not stand for the process's
text (a file changed since, a failed child, a text read object by object or the YAML way) the process
reads the file itself. The child then validates what it read (background_validation.AfterReading),
and its problems are taken only for objects read from the very same texts."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from test_background_validation import BAD_SLICE, both
from test_json_reading import json_texts

from kubefit.model.errors import InputError
from kubefit.model.features import ALL_ON
from kubefit.runtime import background_validation, forking
from kubefit.translate.loader import loading as loader
from kubefit.translate.reading import json_child, json_reader, json_tail
from kubefit.translate.validation import run
from kubefit.translate.validation.run import validate_objects

ROOT = Path(__file__).resolve().parent.parent

# Texts that take each way: read as is, checked object by object, or read as YAML.
CASES = [
    '{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Namespace", "metadata": {"name": "a"}}]}',
    '{"items": [{"a": {"b": 1, "b": 2}}]}',  # a key twice: object by object, then the YAML way
    '{"items": [{"a": ":x"}]}',  # a string beginning with `:`: object by object
    '{"items": [{"' + "k" * 129 + '": 1}]}',  # a key too long for YAML
    '{"a" : 1}',  # a blank before a colon: nothing to count keys by
    '{"a": "\u2028"}',  # YAML counts a line there: the YAML way
    '{"a": [1, 2}',  # not JSON
    # Warnings of the loader (no apiVersion, a field the model lacks), then an item that is no object.
    '{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Namespace", "metadata": {"name": "a", "x": 1}},'
    ' {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "b"}}]}',
    '{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Namespace", "metadata": {"name": "a"}}, 7]}',
]
TAKEN = {0, 7, 8}  # the cases whose documents the process takes from the child


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(forking.ENV, "1")
    monkeypatch.setattr(forking.threading, "active_count", lambda: 1)
    yield
    json_child.finish()


def loaded(*paths: Path) -> Any:
    """What loading the files gives: each object (kind, name, file, line, data) and the warnings, or the
    problems that stopped it."""
    try:
        objects = loader.load([str(p) for p in paths])
    except InputError as e:
        return "refused", [str(p) for p in e.problems]
    made = [(o.kind, o.name, o.file, o.line, o.raw) for o in objects]
    return made, [str(p) for p in objects.warnings], objects.sources


def with_child(*paths: Path) -> Any:
    json_child.start([str(p) for p in paths])
    assert json_child._current is not None
    try:
        return loaded(*paths)
    finally:
        json_child.finish()


def own_readings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the process reads itself (a child's documents taken are not)."""
    calls: list[str] = []
    for name in ("read_documents",):
        read = getattr(loader, name)

        def counted(text: str, file: str, *rest: Any, read: Any = read) -> Any:
            calls.append(file)
            return read(text, file, *rest)

        monkeypatch.setattr(loader, name, counted)
    return calls


@pytest.mark.parametrize("number", range(len(CASES)))
def test_the_childs_documents_are_the_readers(
    number: int, tmp_path: Path, forks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "in.json"
    path.write_text(CASES[number])
    expected = loaded(path)
    own = own_readings(monkeypatch)
    assert with_child(path) == expected
    assert (own == []) == (number in TAKEN)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=json_texts())
def test_generated_texts_read_alike(text: str, tmp_path: Path, forks: None) -> None:
    try:
        data = text.encode()
    except UnicodeEncodeError:
        return  # a surrogate: no file holds that text
    path = tmp_path / "in.json"
    path.write_bytes(data)
    assert with_child(path) == loaded(path)


def namespaces_list(count: int) -> str:
    """A List as kubectl writes it, with warnings of the loader among its first and its last items."""
    items: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"n{i}"}} for i in range(count)
    ]
    for i in (1, count - 2):
        items[i]["metadata"]["x"] = 1  # a field the model lacks
        del items[i]["apiVersion"]
    root = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
    return json.dumps(root, indent=4) + "\n"


@pytest.mark.parametrize("void", [False, True])
def test_a_lists_last_items_are_made_first(
    void: bool, tmp_path: Path, forks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The child sends the List's last items first (json_tail); the process makes their objects first,
    # and keeps them in the file's order, or drops them when reading in order finds no tail there.
    path = tmp_path / "in.json"
    path.write_text(namespaces_list(60))
    expected = loaded(path)
    if void:  # forked with the child: the items read in order meet no item where the tail begins
        run = json_tail.item_run
        monkeypatch.setattr(
            json_tail,
            "item_run",
            lambda *a: run(*a[:-1], a[-1] + 1) if len(a) == 10 and a[-1] >= 0 else run(*a),
        )
    made: list[int] = []
    made_of = loader._made_of

    def counted(docs: list[Any], strict: bool) -> Any:
        made.append(len(docs[0].data["items"]))
        return made_of(docs, strict)

    monkeypatch.setattr(loader, "_made_of", counted)
    own = own_readings(monkeypatch)
    assert with_child(path) == expected
    assert own == [] and len(made) == 2 and made[0] < made[1]
    assert (sum(made) == 60) != void


def test_a_file_changed_since_the_child_read_it_is_read_again(
    tmp_path: Path, forks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "in.json"
    path.write_text(CASES[0])
    json_child.start([str(path)])
    assert json_child._current is not None
    json_child._current.take(json_child.AFTER)  # every record the child sends is in
    changed = CASES[0].replace('"a"', '"b"')  # as long
    path.write_text(changed)
    os.utime(path, ns=(1, 1))  # a time no read could have seen
    own = own_readings(monkeypatch)
    try:
        found = loaded(path)
    finally:
        json_child.finish()
    assert own == [str(path)] and found == loaded(path)


def test_a_child_that_fails_leaves_the_reading_to_the_process(
    tmp_path: Path, forks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object) -> None:
        raise RuntimeError("the child cannot read")

    path = tmp_path / "in.json"
    path.write_text(CASES[0])
    expected = loaded(path)
    original = json_reader.collected_documents
    monkeypatch.setattr(json_reader, "collected_documents", broken)  # the child's, forked with it
    json_child.start([str(path)])
    monkeypatch.setattr(json_reader, "collected_documents", original)
    try:
        assert loaded(path) == expected
    finally:
        json_child.finish()


def test_small_inputs_stdin_and_pipes_are_not_forked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(forking.ENV, raising=False)
    monkeypatch.setattr(forking.threading, "active_count", lambda: 1)
    path = tmp_path / "in.json"
    path.write_text(CASES[0])
    json_child.start([str(path), "-"])
    assert json_child._current is None
    monkeypatch.setenv(forking.ENV, "1")
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    json_child.start([str(pipe)])  # what a pipe holds is read once, by the process
    assert json_child._current is None


def test_a_file_the_child_does_not_read_is_not_waited_for(tmp_path: Path, forks: None) -> None:
    read, other = tmp_path / "in.json", tmp_path / "template.json"
    read.write_text(CASES[0])
    other.write_text(CASES[0])
    json_child.start([str(read)])
    assert json_child._current is not None
    loaded(other)
    assert not json_child._current.received  # nothing read from the child
    loaded(read)


def test_the_command_line_answers_alike(tmp_path: Path) -> None:
    folder = tmp_path / "input"
    folder.mkdir()
    for i, text in enumerate(CASES[:5]):
        (folder / f"{i}.json").write_text(
            text.replace('"kind": "Namespace"', '"apiVersion": "v1", "kind": "Namespace"')
        )
    _, _, err = both("validate", "-f", str(folder), "-o", "json")  # with the children and without, alike
    assert "5 file(s) are read in a child process" in err


def bad_cluster(tmp_path: Path, bad: str = "zz-bad.yaml") -> Path:
    """The example with a slice the API server refuses (last, or as `bad` sorts among the example's
    files), as one JSON List (as kubectl dumps a cluster)."""
    import yaml

    folder = tmp_path / "input"
    shutil.copytree(ROOT / "examples" / "gpu-mig", folder)
    (folder / bad).write_text(BAD_SLICE)
    items = [
        doc
        for path in sorted(folder.iterdir())
        if path.suffix in (".yaml", ".yml")
        for doc in yaml.safe_load_all(path.read_text())
        if doc
    ]
    dump = tmp_path / "cluster.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=4))
    return dump


def validated(
    tmp_path: Path, bad: str = "zz-bad.yaml"
) -> tuple[Path, Any, list[Any], background_validation.AfterReading]:
    """`bad_cluster`, its objects and their problems, and the validation its reading child would do."""
    dump = bad_cluster(tmp_path, bad)
    objects = loader.load([str(dump)])
    expected = validate_objects(objects, ALL_ON)
    assert expected
    return dump, objects, expected, background_validation.AfterReading((str(dump),), False, ALL_ON)


def test_the_reading_child_validates_what_it_read(tmp_path: Path) -> None:
    dump = bad_cluster(tmp_path)
    code, out, err = both("allocate", "-f", str(dump), "-o", "json")
    assert code == 0 and "GPU_1" in err and "(the one that read them)" in err
    code, out, err = both("devices", "-f", str(dump))
    assert code == 2 and out == "" and "GPU_1" in err


def test_the_childs_problems_are_taken_only_for_the_same_texts(
    tmp_path: Path, forks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    dump, objects, expected, then = validated(tmp_path)
    assert then.matches([str(dump)], False, ALL_ON) and not then.matches([str(dump)], True, ALL_ON)
    mine: list[Any] = ["validated by the process"]
    for sources, problems in ((objects.sources, expected), ([(str(dump), (0, 0, 0, 0))], mine)):
        json_child.start([str(dump)], then)
        child = json_child.after(then)
        assert child is not None
        # The child validates with what it was forked with; the process, if it must, with this.
        monkeypatch.setattr(run, "validate_objects", lambda *_: mine)
        objects.sources, kept = sources, objects.sources
        found: list[Any] = []
        background_validation.adopt(child, objects, ALL_ON, found.append)
        background_validation.settle()
        objects.sources = kept
        monkeypatch.setattr(run, "validate_objects", validate_objects)
        assert found == [problems]  # read from other texts, the child's problems are not taken
    json_child.start([str(dump)], then)
    assert json_child.after(None) is None and json_child._current is None  # stopped: another load


def test_the_process_validates_what_the_reading_child_has_not_reached(
    tmp_path: Path, forks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The refused slice first: the child meets it, and the process validates the others from the last back.
    dump, objects, expected, then = validated(tmp_path, "aa-bad.yaml")
    errors = run.object_errors

    def slowly(obj: Any, ctx: Any) -> Any:
        time.sleep(0.2)
        return errors(obj, ctx)

    monkeypatch.setattr(run, "object_errors", slowly)  # the child's, forked with it, and the process's
    json_child.start([str(dump)], then)
    child = json_child.after(then)
    assert child is not None
    found: list[Any] = []
    background_validation.adopt(child, objects, ALL_ON, found.append, then.progress)
    background_validation.settle()
    assert found == [expected]
    assert 0 < then.progress.claimed() < len(objects)  # each validated some
