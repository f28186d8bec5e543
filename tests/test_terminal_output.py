"""Names that hold what a terminal acts on (ESC, BEL, NUL, CR, newlines, bidirectional controls) are
shown escaped wherever kubefit writes text for a terminal — tables, text answers, problem lines and
logs — as kubectl shows them (`^[`, `\\r`) or as Go's %q would; JSON and YAML keep them exact."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubefit.cli import main
from kubefit.model.terminal import UNSAFE, escape, escape_lines, lines_text

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
HOSTILE = "\x1b[31mX\x07\x00\u202e\r\nY\u2066\x9b"
NAME_KEYS = ("name", "namespace", "nodeName", "resourceClaimName", "pool", "device")


def test_escapes_are_kubectls_for_esc_and_cr_and_gos_for_the_rest() -> None:
    assert escape("a\x1b[31mb") == "a^[[31mb"
    assert escape("a\rb\nc\td") == "a\\rb\\nc\\td"
    assert escape("\x00\x07\x7f\x85\x9b") == "\\x00\\x07\\x7f\\x85\\x9b"
    assert escape("\u202e\u2066\u200f\u2028") == "\\u202e\\u2066\\u200f\\u2028"
    assert escape("plain ünïcode ✓") == "plain ünïcode ✓"
    assert escape_lines("a\x1b\nb\tc") == "a^[\nb\tc"
    assert lines_text(["one\ntwo", "three"]) == "one\\ntwo\nthree\n"


def _hostile(value: Any, names: set[str]) -> Any:
    if isinstance(value, dict):
        return {
            k: v + HOSTILE if k in NAME_KEYS and isinstance(v, str) and v in names else _hostile(v, names)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_hostile(v, names) for v in value]
    return value + HOSTILE if isinstance(value, str) and value in names else value


def _names(value: Any, out: set[str]) -> set[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            if k in ("name", "namespace", "nodeName") and isinstance(v, str) and v != "default":
                out.add(v)
            _names(v, out)
    elif isinstance(value, list):
        for v in value:
            _names(v, out)
    return out


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/gpu-mig, gpu-mig-taints and numa-node with every name ending in HOSTILE."""
    root = tmp_path_factory.mktemp("hostile")
    for example in ("gpu-mig", "gpu-mig-taints", "numa-node"):
        (root / example).mkdir()
        for path in sorted((EXAMPLES / example).glob("*.yaml")):
            docs = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
            names = _names(docs, set())
            (root / example / path.name).write_text(
                yaml.safe_dump_all(_hostile(docs, names)), encoding="utf-8"
            )
    return root


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


VERBS = {
    "validate": ("validate", "-f", "{root}/gpu-mig"),
    "devices": ("devices", "-f", "{root}/gpu-mig"),
    "allocate": ("allocate", "-f", "{root}/gpu-mig"),
    "allocate wide": ("allocate", "-f", "{root}/gpu-mig", "-o", "wide"),
    "explain": ("explain", "-f", "{root}/gpu-mig"),
    "pools": ("pools", "-f", "{root}/gpu-mig"),
    "taints": ("taints", "-f", "{root}/gpu-mig/cluster.yaml", "-f", "{root}/gpu-mig-taints"),
    "admit": ("admit", "-f", "{root}/numa-node", "--node", "numa-node-1\x1b[2J"),
    "plan": ("plan", "-f", "{root}/gpu-mig", "--time-limit", "5"),
}


@pytest.mark.parametrize("verb", VERBS)
def test_tables_text_and_problem_lines_show_names_escaped(hostile: Path, verb: str) -> None:
    args = [a.format(root=hostile) for a in VERBS[verb]]
    if "-o" not in args:
        args += ["-o", "table"]
    _, out, err = run(*args)
    assert not UNSAFE.search(out.replace("\n", "")), out
    assert not UNSAFE.search(err.replace("\n", "")), err
    for line in err.splitlines():  # no line forged by a newline in a name
        assert line.startswith((str(hostile), "kubefit: ", "--node")), line
    assert "^[[31mX\\x07\\x00\\u202e\\r\\nY" in out + err


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_json_and_yaml_keep_values_exact(tmp_path: Path, fmt: str) -> None:
    # Names that hold controls are refused by API validation (exit 2, the lines escaped, above); an
    # annotation's value may hold anything, and the answer carries it as it was.
    for path in sorted((EXAMPLES / "gpu-mig").glob("*.yaml")):
        docs = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
        for d in docs:
            if d["kind"] == "Pod":
                d["metadata"].setdefault("annotations", {})["note"] = "n" + HOSTILE
        (tmp_path / path.name).write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    code, out, err = run("allocate", "-f", str(tmp_path), "-o", fmt)
    assert code in (0, 1), err
    doc = json.loads(out) if fmt == "json" else yaml.safe_load(out)
    notes = [i["metadata"]["annotations"]["note"] for i in doc["items"] if i["kind"] == "Pod"]
    assert notes and all(n == "n" + HOSTILE for n in notes)
    assert "\x1b" not in out and "\u202e" not in out  # each format's own escapes
