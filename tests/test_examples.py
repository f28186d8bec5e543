"""The bundled examples after `pip install`: `kubefit examples` lists them with the summary their
README row gives, and `-f example:NAME[/FILE]` (and `--node-template`) reads them from any directory,
the same files `-f examples/NAME` reads from the clone."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kubefit.app.examples import ExamplesRequest, examples, list_examples, resolve
from kubefit.cli import main
from kubefit.cli.parser import build_parser

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def same_as_clone(installed: Path, cloned: Path) -> bool:
    """The installed example holds what the clone's does: the same file, or the same files with the same
    bytes (an editable install reads the clone's own files; a wheel's copy lives in site-packages)."""
    if cloned.is_file():
        return installed.is_file() and installed.read_bytes() == cloned.read_bytes()

    def files(root: Path) -> dict[str, bytes]:
        return {
            f.relative_to(root).as_posix(): f.read_bytes()
            for f in root.rglob("*")
            if f.is_file() and "__pycache__" not in f.parts
        }

    return installed.is_dir() and files(installed) == files(cloned)


DIRECTORIES = sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir() and not p.name.startswith("_"))


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_listing_names_every_example_directory_with_its_readme_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(["examples"], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "DESCRIPTION"]
    listed = [line.split()[0] for line in lines[1 : 1 + len(DIRECTORIES)]]
    assert listed == DIRECTORIES
    assert "kubefit allocate -f example:gpu-mig" in out
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    for example in examples():
        # The summary is the first sentence of the example's row: short, a sentence, said once.
        row = re.search(rf"^\| `{re.escape(example.name)}/` \| (.+) \|$", readme, re.M)
        assert row is not None, f"examples/README.md has no row for {example.name}/"
        assert row[1].replace("`", "").startswith(example.summary)
        assert example.summary.endswith(".") and 10 < len(example.summary) <= 80, example.summary
        assert f"{example.name}   " in out and example.summary in out


def test_the_listing_as_json_yaml_and_wide(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["examples", "-o", "json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert [e["name"] for e in doc["examples"]] == DIRECTORIES
    gpu_mig = doc["examples"][0]
    assert gpu_mig["reference"] == "example:gpu-mig"
    assert gpu_mig["files"] == ["cluster.yaml", "workloads.yaml"]
    assert same_as_clone(Path(gpu_mig["path"]), EXAMPLES / "gpu-mig")
    assert gpu_mig["description"].startswith(gpu_mig["summary"] + " ")
    code, out, _ = run(["examples", "-o", "yaml"], capsys)
    assert code == 0 and yaml.safe_load(out) == doc
    code, out, _ = run(["examples", "-o", "wide"], capsys)
    assert code == 0 and out.splitlines()[0].split() == ["NAME", "DESCRIPTION", "FILES"]
    assert "running.yaml,taint-rules.yaml" in out
    # The library gives the same document.
    assert list_examples(ExamplesRequest("json")).document == doc


@pytest.mark.parametrize(
    ("verb", "bundled", "cloned"),
    [
        (["allocate"], ["example:gpu-mig"], ["examples/gpu-mig"]),
        (["validate"], ["example:numa-node/pods.yaml"], ["examples/numa-node/pods.yaml"]),
        (
            ["taints"],
            ["example:gpu-mig/cluster.yaml", "example:gpu-mig-taints"],
            ["examples/gpu-mig/cluster.yaml", "examples/gpu-mig-taints"],
        ),
    ],
)
def test_an_example_reads_as_the_clones_directory_does(
    verb: list[str],
    bundled: list[str],
    cloned: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    flags = [a for path in cloned for a in ("-f", path)]
    expected = run([*verb, *flags, "-o", "json"], capsys)
    flags = [a for path in bundled for a in ("-f", path)]
    got = run([*verb, *flags, "-o", "json"], capsys)
    assert got[0] == expected[0] and got[2] == expected[2]
    if verb == ["validate"]:  # its report names each object's file: the same file, spelt otherwise
        got_doc, expected_doc = json.loads(got[1]), json.loads(expected[1])
        # The same file, spelt otherwise (and, from a wheel, a copy in site-packages): its place in the example.
        for o in (*got_doc["objects"], *expected_doc["objects"]):
            o["file"] = "/".join(Path(o["file"]).resolve().parts[-2:])
        assert got_doc == expected_doc
    else:
        assert got[1] == expected[1]


def test_an_example_is_read_from_any_directory(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-m", "kubefit", "allocate", "-f", "example:gpu-mig", "-o", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    pods = [o for o in json.loads(done.stdout)["items"] if o["kind"] == "Pod"]
    assert pods and all(p["spec"].get("nodeName") for p in pods)


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        (
            "example:gpu-mgi",
            "kubefit allocate: argument -f/--filename: unknown example 'gpu-mgi' in 'example:gpu-mgi'; the "
            "examples are: gpu-mig, gpu-mig-taints, gpu-nic-pair, mig-batch, numa-node, preemption, templates",
        ),
        (
            "example:",
            "kubefit allocate: argument -f/--filename: unknown example '' in 'example:'; the examples are: "
            "gpu-mig, gpu-mig-taints, gpu-nic-pair, mig-batch, numa-node, preemption, templates",
        ),
        (
            "example:gpu-mig/cluster.yml",
            "kubefit allocate: argument -f/--filename: example 'gpu-mig' has no file 'cluster.yml'; its files "
            "are: cluster.yaml, workloads.yaml",
        ),
    ],
)
def test_an_unknown_example_is_one_line_of_bad_input(
    reference: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["allocate", "-f", reference], capsys)
    assert (code, out) == (2, "")
    assert err.splitlines() == [message]


def test_a_node_template_can_be_an_example() -> None:
    args = build_parser().parse_args(
        ["plan", "-f", "example:mig-batch", "--node-template", "example:templates/a100-node.yaml"]
    )
    assert same_as_clone(Path(args.filename[0]), EXAMPLES / "mig-batch")
    assert same_as_clone(Path(args.node_template), EXAMPLES / "templates" / "a100-node.yaml")


def test_other_paths_are_read_as_they_are() -> None:
    for path in ("-", "examples/gpu-mig", "./example:gpu-mig", "/dev/stdin", "my-example:x"):
        assert resolve(path) == path
