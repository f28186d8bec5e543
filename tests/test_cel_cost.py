"""The runtime cost of a CEL evaluation: cel-go's cost model, the DRA limit and its error, and the guard on
work that cost does not see."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gate_support import EVERY_GATE

from kubefit.cli import main
from kubefit.model.errors import CelRuntimeError
from kubefit.translate.cel.budget import COST_LIMIT_MESSAGE, WORK_LIMIT, Activation, run, spend, spend_once
from kubefit.translate.cel.checker import check
from kubefit.translate.cel.environment import Features, dra_env
from kubefit.translate.cel.evaluator import compile_program
from kubefit.translate.cel.parser import parse
from kubefit.translate.cel.selector import COST_LIMIT, AttributeValue, DeviceInput, Selector, device_variable

DRIVER = "dra.example.com"
WORDS = tuple(f"word-{i:02d}" for i in range(64))


def gpu() -> DeviceInput:
    return DeviceInput(
        DRIVER,
        {
            "model": AttributeValue(string="H100-SXM5-80GB"),
            "index": AttributeValue(int=3),
            "s": AttributeValue(string="a" * 40),
            "words": AttributeValue(strings=WORDS),
        },
        {"memory": "80Gi"},
    )


def evaluate(expression: str, limit: int = 10**12) -> tuple[Any, int]:
    """The value of any expression on `gpu()` and what cel-go's tracker would charge for it."""
    node = parse(expression)
    check(node, dra_env(Features()), expression)
    activation = Activation(limit)
    value = run(compile_program(node), {"device": device_variable(gpu(), Features())}, activation)
    return value, activation.cost


# cel-go's own runtime cost tests (interpreter/runtimecost_test.go): expression, cost.
CEL_GO: list[tuple[str, int]] = [
    ('"Hello World!"', 0),
    ("[1, 2, 3]", 10),
    ('{"a": 1, "b": 2, "c": 3}', 30),
    ("[1, 2, 3].all(x, true)", 20),
    ("'123'.matches('[0-9]')", 2),
    ("false || false", 0),
    ("true && false", 0),
    ("true ? 1 : 2", 0),
    ("1 < 2", 1),
    ("1 == 2", 1),
    ("2 in [1, 2, 3]", 13),
    ('size("123")', 1),
    ("'12345678901234567890' == '123456789012345678901234567890'", 2),
    ("string(1)", 1),
    ("(1 > 2 ? 5 : 3) > 1", 2),
    ("(1 > 2 || 2 > 1) == true", 3),
    ("[{'k1': 1}, {'k2': 2}].all(x, true)", 77),
    ("[1,2,3,4,5].filter(x, x % 2 == 0)", 62),
    ("[1,2,3,4,5].map(x, x)", 86),
    ("[1,2,3,4,5].map(x, x).filter(x, x % 2 == 0)", 138),
    ("[1,2,3,4,5].map(x, x).exists(x, x == 5) == true", 118),
    ("[1,2,3,4,5].map(x, x).map(x, x)", 162),
    ("[1,2,3,4,5].map(x, [x, x]).filter(z, z.size() == 2)", 232),
    ("[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))", 171),
    ("[1,2,3,4,5].map(x, x).map(x, x) + [1]", 173),
    ("[1,2,3].all(i, i in [1,2,3].map(j, j + j))", 86),
    ("cel.bind(a, 'hello', a + '!')", 12),
    ("cel.bind(a, 'hello!', cel.bind(b, 'goodbye', a + ' and, ' + b))", 26),
    ("cel.bind(a, cel.bind(a, 'world', a + '!'), 'hello ' + a)", 25),
    ("cel.bind(a, [1, 2, 3], a[0])", 22),
    ("cel.bind(v, [1, 2, 3], v.all(x, true))", 31),
    ("[1, 2, 3].all(i, v, i < v)", 29),
    ("{'hello': 'world'}.all(k, v, k != v) == false", 38),
    ("[1, 2, 3].exists(i, v, i == 1 && v == 2)", 28),
    ('{"a": 1}.exists(k, v, k == "a" && v == 1)', 39),
    ("[1, 2, 3].transformList(i, v, i + v)", 66),
    ("[1, 2, 3].transformList(i, v, i % 2 == 0, i + v)", 60),
    ('{"a": 1, "b": 2}.transformList(k, v, k)', 67),
    ('{"a": 1, "b": 2}.transformMap(k, v, v + 1)', 71),
    ('{"a": 1, "b": 2}.transformMap(k, v, v > 1, v + 1)', 70),
    ('{"a": 1, "b": 2}.transformMapEntry(k, v, {v: k})', 129),
    ('{"a": 1, "b": 2}.transformMapEntry(k, v, v > 1, {v: k})', 99),
    ("[1, 2].all(i, v, [1, 2].all(j, w, i + j < v + w))", 79),
    ("cel.bind(l, [1, 2, 3], l.all(i, v, i < v))", 40),
    ('cel.bind(m, {"a": 1, "b": 2}, m.transformList(k, v, k))', 78),
]


@pytest.mark.parametrize(("expression", "cost"), CEL_GO)
def test_the_cost_of_an_evaluation_is_cel_gos(expression: str, cost: int) -> None:
    assert evaluate(expression)[1] == cost


# Selectors as DRA drivers and cluster admins write them: answer and cost.
NORMAL: list[tuple[str, bool, int]] = [
    (f'device.driver == "{DRIVER}"', True, 4),
    (f'device.attributes["{DRIVER}"].model == "H100-SXM5-80GB"', True, 4 + 2),
    (f'device.attributes["{DRIVER}"].index >= 2 && device.attributes["{DRIVER}"].index < 8', True, 10),
    (f'device.capacity["{DRIVER}"].memory.compareTo(quantity("40Gi")) >= 0', True, 7),
    # Reading the attribute costs 4; the regex ceil(0.1 * 41) * ceil(0.25 * 8).
    (f'device.attributes["{DRIVER}"].s.matches("^(a+)+$")', True, 14),
    # Four to read the list, then per word: condition 3, the word 1, `==` 1.
    (f'device.attributes["{DRIVER}"].words.exists(w, w == "word-63")', True, 4 + 64 * 6 + 1),
    (f'"word-07" in device.attributes["{DRIVER}"].words', True, 4 + 64 + 0),
]


@pytest.mark.parametrize(("expression", "matches", "cost"), NORMAL)
def test_everyday_selectors_cost_little_and_answer_as_before(
    expression: str, matches: bool, cost: int
) -> None:
    assert evaluate(expression) == (matches, cost)
    assert Selector(expression).evaluate(gpu()) is matches


def test_the_limit_is_the_first_cost_past_it() -> None:
    expression = f'device.attributes["{DRIVER}"].words.all(w, w.startsWith("word"))'
    cost = evaluate(expression)[1]
    assert Selector(expression, cost_limit=cost).evaluate(gpu()) is True
    with pytest.raises(CelRuntimeError) as info:
        Selector(expression, cost_limit=cost - 1).evaluate(gpu())
    assert str(info.value) == COST_LIMIT_MESSAGE


def doubled(start: str, step: str, times: int) -> str:
    """`start` with `.map(x, step)` applied `times` times."""
    return start + f".map(x, {step})" * times


WORDS_EXPR = f'device.attributes["{DRIVER}"].words'
# Shared elements: every level holds its previous level twice (2^40 leaves, forty lists).
TREE = doubled("[1]", "[x, x]", 40)

# Pathological selectors, each stopped by the DRA cost limit (cel-go's cost or the work guard).
RUNAWAY: list[tuple[str, str]] = [
    (
        "a comprehension over a list nested three deep",
        f"{WORDS_EXPR}.all(a, {WORDS_EXPR}.all(b, {WORDS_EXPR}.all(c, a + b + c != '')))",
    ),
    (
        "a comprehension over a large built list nested twice",
        f'cel.bind(big, {WORDS_EXPR}.map(a, {WORDS_EXPR}.join(",")).join(",").split(","), '
        "big.all(x, big.all(y, x.size() == y.size())))",
    ),
    ("a list doubled by concatenation", doubled(f"[{WORDS_EXPR}]", "x + x", 40) + ".size() > 0"),
    (
        "a string grown by replacing the empty string",
        '"ab"' + '.replace("", "xxxxxxxxxxxxxxxxxxxx")' * 4 + '.replace("", "' + "y" * 2000 + '").size() > 0',
    ),
    (
        "a string grown by formatting",
        doubled('["ab"]', '"%s%s%s%s%s%s%s%s".format([x,x,x,x,x,x,x,x])', 12) + ".size() > 0",
    ),
    ("a nested list written out", f'cel.bind(v, {TREE}, "%s".format([v]) != "")'),
    ("a nested list walked by indexOf", f"cel.bind(v, {TREE}, [v].indexOf(v) == 0)"),
    (
        "a long text matched by a Unicode class repeated a thousand times",
        '"é"' + '.replace("", "éééééééééééééééééééé")' * 4 + '.matches("^\\\\pL{1000}b")',
    ),
    (
        "a runaway left operand of ||, which || does not absorb",
        f"{WORDS_EXPR}.all(a, {WORDS_EXPR}.all(b, {WORDS_EXPR}.all(c, a != b + c))) || true",
    ),
]


@pytest.mark.parametrize("expression", [c[1] for c in RUNAWAY], ids=[c[0] for c in RUNAWAY])
def test_a_runaway_selector_stops_at_the_cost_limit(expression: str) -> None:
    selector = Selector(expression)
    assert selector.error is None
    with pytest.raises(CelRuntimeError) as info:
        selector.evaluate(gpu())
    assert str(info.value) == COST_LIMIT_MESSAGE


def test_nested_lists_that_share_elements_compare_by_value() -> None:
    assert Selector(f"cel.bind(v, {TREE}, v == v && [v] == [v] && [v].exists(e, e == v))").evaluate(gpu())
    # NaN is unequal to itself, however the lists holding it are shared.
    nan = doubled("[0.0 / 0.0]", "[x, x]", 30)
    assert Selector(f"cel.bind(v, {nan}, v != v)").evaluate(gpu())


def test_work_done_once_per_evaluation_is_counted_once() -> None:
    def program(activation: Activation, env: dict[str, Any]) -> int:
        for _ in range(3):
            spend_once("compiled", WORK_LIMIT // 2)
        spend(1)
        return activation.work

    assert run(program, {}, Activation(COST_LIMIT)) == WORK_LIMIT // 2 + 1
    # And again in the next evaluation: what was cached in between does not change the count.
    assert run(program, {}, Activation(COST_LIMIT)) == WORK_LIMIT // 2 + 1


def test_allocate_reports_the_limit_as_a_cel_runtime_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runaway = RUNAWAY[0][1].replace('"', '\\"')
    (tmp_path / "cluster.yaml").write_text(
        f"""
apiVersion: v1
kind: Node
metadata: {{name: node-1, labels: {{kubernetes.io/hostname: node-1}}}}
status:
  capacity: {{cpu: "8", memory: 32Gi, pods: "110"}}
  allocatable: {{cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: runaway}}
spec:
  selectors:
  - cel: {{expression: "{runaway}"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: node-1}}
spec:
  driver: {DRIVER}
  nodeName: node-1
  pool: {{name: node-1, generation: 1, resourceSliceCount: 1}}
  devices:
  - name: gpu-0
    attributes:
      words: {{strings: [{", ".join(WORDS)}]}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: claim, namespace: default}}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {{deviceClassName: runaway}}
---
apiVersion: v1
kind: Pod
metadata: {{name: pod, namespace: default}}
spec:
  containers:
  - name: c
    image: busybox
    resources: {{claims: [{{name: gpu}}]}}
  resourceClaims:
  - {{name: gpu, resourceClaimName: claim}}
"""
    )
    code = main(
        ["allocate", "-f", str(tmp_path / "cluster.yaml"), "-o", "table", *EVERY_GATE]
    )  # list attributes
    out = capsys.readouterr().out
    assert code == 1
    assert (
        f"class runaway: selector #0 on device {DRIVER}/node-1/gpu-0: CEL runtime error: {COST_LIMIT_MESSAGE}"
    ) in out
