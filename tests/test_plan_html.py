"""`kubefit compare -o html`: the page's markup follows the data (every node, GPU, engine column, occupied and
free memory slice, running and planned allocation), escapes what users wrote, and renders in headless
Chromium (Debian's `chromium`) with no console error, no network request, and a screenshot that is not blank.

The Chromium tests skip when chromium is missing, unless KUBEFIT_REQUIRE_CHROMIUM=1 (as in CI): then they fail.
"""

from __future__ import annotations

import base64
import copy
import fcntl
import json
import os
import random
import re
import select
import shutil
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from kubefit.app.plan_html import pod_color, render_html

ENGINES = ["greedy", "cpsat"]
NASTY = "ml/<script>alert('x')</script>&\"mig\""
# A100 MIG profiles: name, memory slices, multiprocessors, placement starts.
PROFILES = (
    ("1g.10gb", 1, 14, (0, 1, 2, 3, 4, 5, 6)),
    ("2g.20gb", 2, 28, (0, 2, 4)),
    ("3g.40gb", 4, 42, (0, 4)),
    ("4g.40gb", 4, 56, (0,)),
    ("7g.80gb", 8, 98, (0,)),
)


def counters() -> list[dict[str, Any]]:
    return [{"name": "multiprocessors", "capacity": 98}] + [
        {"name": f"memory-slice-{k}", "capacity": 1} for k in range(8)
    ]


def mig(gpu: str, profile: int, start: int, pod: str, existing: bool = False) -> dict[str, Any]:
    name, size, sms, _ = PROFILES[profile]
    used: dict[str, Any] = {f"memory-slice-{k}": 1 for k in range(start, start + size)}
    return {
        "device": f"{gpu}-mig-{name}-{start}",
        "pod": pod,
        "existing": existing,
        "counters": {**used, "multiprocessors": sms},
    }


def fill(rng: random.Random, gpu: str, taken: set[int], prefix: str) -> list[dict[str, Any]]:
    """Random MIG devices placed first-fit at their valid starts, as an engine might leave a GPU."""
    out = []
    for k in range(rng.randint(0, 7)):
        profile = rng.randrange(len(PROFILES))
        _, size, _, starts = PROFILES[profile]
        start = next((s for s in starts if not taken & set(range(s, s + size))), None)
        if start is not None:
            taken |= set(range(start, start + size))
            out.append(mig(gpu, profile, start, f"{prefix}-{k}"))
    return out


def synthetic(nodes: int, gpus: int, seed: int = 1) -> dict[str, Any]:
    """Nodes of A100s, some MIG devices running before the plan; every fifth node planned alike by both engines."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for n in range(nodes):
        name = f"gpu-node-{n:03d}"
        groups = []
        for g in range(gpus):
            gpu = f"gpu-{g}"
            running = [mig(gpu, 0, 6, f"ml/running-{n}-{g}", existing=True)] if rng.random() < 0.3 else []
            fixed = {6} if running else set()
            seeds = {e: rng.random() if n % 5 else n * 100 + g for e in ENGINES}
            plans = {
                e: running + fill(random.Random(seeds[e]), gpu, set(fixed), f"ml/mig-{n}-{g}")
                for e in ENGINES
            }
            groups.append(
                {
                    "name": f"gpu.nvidia.com/{name}/{gpu}-counter-set",
                    "label": gpu,
                    "counters": counters(),
                    "engines": plans,
                }
            )
        devices = [
            {
                "name": f"nic-{k}",
                "driver": "dranet",
                "engines": {
                    e: rng.choice([None, f"ml/p{n}-{k}"]) if n % 5 else f"ml/p{n}-{k}" for e in ENGINES
                },
            }
            for k in range(2)
        ]
        out.append({"name": name, "groups": groups, "devices": devices})
    placed = {
        e: len({a["pod"] for node in out for g in node["groups"] for a in g["engines"][e]}) for e in ENGINES
    }
    stats = {e: {"placed": placed[e], "pending": 10_000 - placed[e], "status": "heuristic"} for e in ENGINES}
    comparison = {
        "apiVersion": "kubefit.io/v1alpha1",
        "kind": "Comparison",
        "engines": stats,
        "onlyPlacedBy": {},
    }
    return {
        "title": "kubefit compare: greedy vs cpsat",
        "comparison": comparison,
        "engines": ENGINES,
        "nodes": out,
    }


def small() -> dict[str, Any]:
    """One node, two GPUs; greedy fragments gpu-0 and leaves NASTY pending, cpsat packs and places it."""
    greedy0 = [
        mig("gpu-0", 0, 6, "ml/running", existing=True),
        mig("gpu-0", 0, 0, "ml/a"),
        mig("gpu-0", 1, 2, "ml/b"),
    ]
    cpsat0 = [
        mig("gpu-0", 0, 6, "ml/running", existing=True),
        mig("gpu-0", 2, 0, NASTY),
        mig("gpu-0", 1, 4, "ml/b"),
    ]
    gpu1 = [mig("gpu-1", 3, 0, "ml/a")]
    comparison = {
        "apiVersion": "kubefit.io/v1alpha1",
        "kind": "Comparison",
        "engines": {
            "greedy": {"placed": 2, "pending": 1, "status": "heuristic", "seconds": 0.4, "nodesTouched": 1},
            "cpsat": {
                "placed": 3,
                "pending": 0,
                "status": "optimal",
                "seconds": 3.14159,
                "nodesTouched": 1,
                "bound": 3,
            },
        },
        "onlyPlacedBy": {
            "cpsat": [
                {"pod": NASTY, "node": "gpu-node-001", "reasons": {"greedy": "ml/a took <memory-slice-0>"}}
            ],
            "greedy": [],
        },
    }
    node = {
        "name": "gpu-node-001",
        "groups": [
            {
                "name": "gpu.nvidia.com/gpu-node-001/gpu-0-counter-set",
                "label": "gpu-0",
                "counters": counters(),
                "engines": {"greedy": greedy0, "cpsat": cpsat0},
            },
            {
                "name": "gpu.nvidia.com/gpu-node-001/gpu-1-counter-set",
                "label": "gpu-1",
                "counters": counters(),
                "engines": {"greedy": [], "cpsat": gpu1},
            },
        ],
        "devices": [{"name": "nic-0", "driver": "dranet", "engines": {"greedy": "ml/p1", "cpsat": None}}],
    }
    return {
        "title": "compare <greedy> & cpsat",
        "comparison": comparison,
        "engines": ENGINES,
        "nodes": [node],
    }


def group_svgs(page: str) -> list[str]:
    return re.findall(r"<svg class=g .*?</svg>", page)


def expected_svgs(data: dict[str, Any]) -> Iterator[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """(cell counters, allocations) of every GPU picture, in page order: node, GPU, engine."""
    for node in data["nodes"]:
        for group in node["groups"]:
            cells = [c for c in group["counters"] if c["capacity"] == 1]
            for engine in data["engines"]:
                yield cells, group["engines"][engine]


class Balance(HTMLParser):
    """Every element the page opens is closed in order (void elements and `/>` aside)."""

    VOID = frozenset({"meta", "input", "br", "img"})

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-3:]}"
        self.open.pop()


def test_the_markup_nests_and_is_one_document_without_scripts_or_links() -> None:
    page = render_html(small())
    parser = Balance()
    parser.feed(page)
    assert parser.open == []
    assert page.startswith("<!DOCTYPE html>") and page.count("<html") == 1
    assert not re.search(r"<script|<link|src=|url\(|@import|https?:", page)


def test_every_user_string_is_escaped() -> None:
    page = render_html(small())
    assert NASTY not in page and "<script" not in page and "<memory-slice-0>" not in page
    assert "ml/&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&amp;&quot;mig&quot;" in page
    assert "ml/a took &lt;memory-slice-0&gt;" in page
    assert "<title>compare &lt;greedy&gt; &amp; cpsat</title>" in page


SHAPES = {
    "1 node of 1 GPU": (1, 1, ENGINES),
    "3 nodes of 2 GPUs": (3, 2, ENGINES),
    "12 nodes of 8 GPUs": (12, 8, ENGINES),
    "3 nodes of 2 GPUs with the engines' columns swapped": (3, 2, ENGINES[::-1]),
}


@pytest.mark.parametrize("nodes, gpus, engines", SHAPES.values(), ids=SHAPES.keys())
def test_every_node_and_gpu_has_one_picture_per_engine_in_column_order(
    nodes: int, gpus: int, engines: list[str]
) -> None:
    data = {**synthetic(nodes, gpus), "engines": engines}
    page = render_html(data)
    for node in data["nodes"]:
        assert f"<h2>{node['name']} " in page
        for group in node["groups"]:
            assert f'<div class=gl title="{group["name"]}">{group["label"]}</div>' in page
    assert page.count("<section ") == nodes
    assert page.count("".join(f"<div class=eh>{e}</div>" for e in engines)) == nodes
    assert page.count(f"<tr><th></th>{''.join(f'<th>{e}</th>' for e in engines)}</tr>") == 1
    svgs = group_svgs(page)
    assert len(svgs) == nodes * gpus * len(engines)
    for svg, (_, allocations) in zip(svgs, expected_svgs(data), strict=True):
        assert sorted(re.findall(r"<title>(.*?) on ", svg)) == sorted(a["pod"] for a in allocations)


@pytest.mark.parametrize(
    "data", [small(), synthetic(6, 8, seed=3)], ids=["the hand-made node", "six random nodes"]
)
def test_occupied_and_free_cells_and_running_allocations_are_as_in_the_data(data: dict[str, Any]) -> None:
    for svg, (cells, allocations) in zip(group_svgs(render_html(data)), expected_svgs(data), strict=True):
        used = {name for a in allocations for name, v in a["counters"].items() if v > 0}
        occupied = sum(1 for c in cells if c["name"] in used)
        assert svg.count('<rect class="c') == occupied
        assert svg.count("<rect class=f ") == len(cells) - occupied
        assert svg.count('<g class="a x') == sum(1 for a in allocations if a["existing"])
        assert svg.count("<g class=") == len(allocations)


def test_the_hand_made_node_shows_fragmentation_and_the_pools() -> None:
    svgs = group_svgs(render_html(small()))
    greedy0, cpsat0, greedy1, cpsat1 = svgs
    # greedy: 1g at 0, 2g at 2-3, running 1g at 6: 4 slices taken, 14+28+14 multiprocessors.
    assert (greedy0.count('<rect class="c'), greedy0.count("<rect class=f ")) == (4, 4)
    assert ">multiprocessors 56/98</text>" in greedy0
    assert (cpsat0.count('<rect class="c'), cpsat0.count("<rect class=f ")) == (7, 1)
    assert ">multiprocessors 84/98</text>" in cpsat0
    assert (greedy1.count("<rect class=f "), cpsat1.count("<rect class=f ")) == (8, 4)
    assert f'<g class="a o" fill="{pod_color(NASTY)}">' in cpsat0  # only cpsat places it
    assert '<g class="a x" fill=' in greedy0 and '<g class="a x" fill=' in cpsat0
    # A device's cells are one block: each bridges the gap to the next (2g: 1 bridge, 3g: 3).
    assert (greedy0.count('<rect class="c j'), cpsat0.count('<rect class="c j')) == (1, 4)


def test_an_overcommitted_gpu_is_drawn_red() -> None:
    data = small()
    data["nodes"][0]["groups"][0]["engines"]["greedy"].append(mig("gpu-0", 4, 0, "ml/too-much"))
    greedy0 = group_svgs(render_html(data))[0]
    assert greedy0.count('<rect class="c ov') + greedy0.count('<rect class="c j ov') == 4
    assert "<text x=118 y=24 class=ov>multiprocessors 154/98</text>" in greedy0


def test_the_summary_puts_the_engines_side_by_side_with_the_bound_and_the_pods_only_one_places() -> None:
    page = render_html(small())
    assert "<tr><th></th><th>greedy</th><th>cpsat</th></tr>" in page
    assert '<tr><th>pods placed</th><td class="n">2</td><td class="n best">3</td></tr>' in page
    assert (
        '<tr><th>proven bound (most pods placeable)</th><td class="n">—</td><td class="n">3</td></tr>' in page
    )
    assert '<td class="n">0.4</td><td class="n">3.142</td>' in page
    assert "<h2>Placed only by cpsat (1)</h2>" in page and "<h2>Placed only by greedy (0)</h2>" in page
    assert "<th>why greedy left it pending</th>" in page and '<a href="#n0">gpu-node-001</a>' in page


def test_devices_outside_counter_sets_list_their_holder_per_engine() -> None:
    page = render_html(small())
    expected = f'<tr class=dif><td>nic-0</td><td>dranet</td><td><i class=sw style="background:{pod_color("ml/p1")}"></i>ml/p1</td><td class=free>free</td></tr>'
    assert expected in page


def test_nodes_both_engines_leave_alike_can_be_hidden() -> None:
    data = synthetic(10, 2)
    page = render_html(data)
    assert page.count('<section class="node same"') == 2  # nodes 0 and 5: every fifth is planned alike
    assert "body:has(#diff:checked) .same{display:none}" in page


def test_a_pod_keeps_its_colour_across_engines_and_runs() -> None:
    assert pod_color("ml/a") == pod_color("ml/a") != pod_color("ml/b")
    assert re.fullmatch(r"#[0-9a-f]{6}", pod_color(NASTY))


def test_the_same_data_gives_the_same_bytes() -> None:
    data = synthetic(5, 4)
    assert render_html(data) == render_html(copy.deepcopy(data))


@pytest.mark.parametrize(
    "counter_value",
    [None, -3, float("nan"), float("inf"), "7", "98Mi", "not a quantity", True, [1]],
    ids=lambda v: f"a counter amount of {v!r}",
)
def test_odd_amounts_never_crash_nor_draw_a_negative_or_infinite_length(counter_value: Any) -> None:
    data = small()
    data["nodes"][0]["groups"][0]["engines"]["greedy"][1]["counters"]["multiprocessors"] = counter_value
    data["nodes"][0]["groups"][1]["counters"][0]["capacity"] = counter_value
    page = render_html(data)
    assert not re.search(r'(width|x|y)="?(-|nan|inf)', page)


def test_missing_parts_render_an_empty_page() -> None:
    page = render_html({"nodes": [{"groups": [{}], "devices": [{}]}, "junk"]})
    assert page.count("<section ") == 2 and "<title>kubefit compare</title>" in page


def test_a_cluster_of_100_nodes_of_8_gpus_stays_a_few_megabytes() -> None:
    page = render_html(synthetic(100, 8))
    assert len(group_svgs(page)) == 1600
    assert len(page.encode("utf-8")) < 4_000_000


# -- headless Chromium, driven over the DevTools protocol on a pipe --


@dataclass
class Rendered:
    png: bytes
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    seconds: float = 0.0


class Chromium:
    """Chromium reads commands on fd 3 and writes replies on fd 4, NUL-separated JSON."""

    def __init__(self, binary: str, profile: Path) -> None:
        commands, self._to = os.pipe()
        self._from, replies = os.pipe()
        # Numbers above 9, so that putting one end at 3 or 4 cannot overwrite the other.
        child_in, child_out = (
            fcntl.fcntl(commands, fcntl.F_DUPFD, 10),
            fcntl.fcntl(replies, fcntl.F_DUPFD, 10),
        )
        os.close(commands)
        os.close(replies)
        flags = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--remote-debugging-pipe",
            "--no-first-run",
            "--hide-scrollbars",
            "--force-color-profile=srgb",
            f"--user-data-dir={profile}",
            "about:blank",
        ]
        self._log = (profile / "stderr.log").open("wb")
        # A trampoline puts the two ends at 3 and 4 and becomes chromium (no shell: dash takes fds 0-9 only).
        trampoline = "import os,sys;os.dup2(int(sys.argv[1]),3);os.dup2(int(sys.argv[2]),4);os.execv(sys.argv[3],sys.argv[3:])"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", trampoline, str(child_in), str(child_out), binary, *flags],
            pass_fds=(child_in, child_out),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
        )
        os.close(child_in)
        os.close(child_out)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._from], [], [], max(deadline - time.monotonic(), 0))
            chunk = os.read(self._from, 1 << 20) if ready else b""
            assert chunk, f"chromium did not answer (exit code {self.proc.poll()})"
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        decoded: dict[str, Any] = json.loads(message)
        return decoded

    def call(self, method: str, params: dict[str, Any], session: str | None = None, wait: float = 60) -> Any:
        self._next += 1
        message = {
            "id": self._next,
            "method": method,
            "params": params,
            **({"sessionId": session} if session else {}),
        }
        os.write(self._to, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + wait
        while (reply := self._receive(deadline)).get("id") != self._next:
            self.events.append(reply)
        assert "error" not in reply, f"{method}: {reply['error']}"
        return reply["result"]

    def wait_for(self, method: str, wait: float = 60) -> None:
        deadline = time.monotonic() + wait
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self._receive(deadline))

    def render(self, page: Path, width: int, height: int, scale: float) -> Rendered:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", {}, session)
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        self.call("Emulation.setDeviceMetricsOverride", metrics, session)
        self.events.clear()
        start = time.perf_counter()
        self.call("Page.navigate", {"url": page.as_uri()}, session)
        self.wait_for("Page.loadEventFired")
        clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": scale}
        shot = self.call("Page.captureScreenshot", {"format": "png", "clip": clip}, session)
        rendered = Rendered(base64.b64decode(shot["data"]), seconds=time.perf_counter() - start)
        for event in self.events:
            rendered.errors += page_errors(event)
            if event.get("method") == "Network.requestWillBeSent":
                url = event["params"]["request"]["url"]
                if url != page.as_uri():
                    rendered.requests.append(url)
        self.call("Target.closeTarget", {"targetId": target})
        return rendered

    def close(self) -> None:
        try:
            self.call("Browser.close", {}, wait=10)
        finally:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            os.close(self._to)
            os.close(self._from)
            self._log.close()


def page_errors(event: dict[str, Any]) -> list[str]:
    """What a page's console would show as an error: console.error/assert, uncaught exceptions, failed loads."""
    method, params = event.get("method"), event.get("params", {})
    if method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
        return [" ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])]
    if method == "Runtime.exceptionThrown":
        details = params["exceptionDetails"]
        return [details.get("exception", {}).get("description", details["text"])]
    if method == "Log.entryAdded" and params["entry"]["level"] == "error":
        return [params["entry"]["text"]]
    return []


@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    binary = shutil.which("chromium") or shutil.which("chromium", path="/usr/bin")
    if binary is None:
        message = "chromium is not installed (apt-get install chromium)"
        if os.environ.get("KUBEFIT_REQUIRE_CHROMIUM") == "1":
            pytest.fail(f"{message}, and KUBEFIT_REQUIRE_CHROMIUM=1")
        pytest.skip(message)
    browser = Chromium(binary, tmp_path_factory.mktemp("chromium"))
    yield browser
    browser.close()


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the RGB of every pixel of an 8-bit, non-interlaced RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, [], b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body, pos = data[pos + 8 : pos + 8 + length], pos + 12 + length
        header = body if kind == b"IHDR" else header
        idat += [body] if kind == b"IDAT" else []
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert (depth, interlace) == (8, 0) and color in (2, 6), (depth, color, interlace)
    bpp = 4 if color == 6 else 3
    raw, stride = zlib.decompress(b"".join(idat)), width * bpp
    prev, pixels = bytearray(stride), []
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, corner = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        pixels += [bytes(line[i : i + 3]) for i in range(0, stride, bpp)]
        prev = line
    return width, height, pixels


def looks_blank(pixels: list[bytes]) -> bool:
    """Fewer than 16 colours, or under 2% of the pixels not white: nothing worth looking at was drawn."""
    inked = sum(1 for p in pixels if p != b"\xff\xff\xff")
    return len(set(pixels)) < 16 or inked < len(pixels) * 0.02


def render(chromium: Chromium, tmp_path: Path, page: str, size: tuple[int, int] = (1280, 1600)) -> Rendered:
    path = tmp_path / "page.html"
    path.write_text(page, encoding="utf-8")
    return chromium.render(path, *size, scale=0.5)


def test_chromium_renders_the_page_without_errors_or_requests_and_not_blank(
    chromium: Chromium, tmp_path: Path
) -> None:
    data = small()
    done = render(chromium, tmp_path, render_html(data))
    assert (done.errors, done.requests) == ([], [])
    width, height, pixels = decode_png(done.png)
    assert (width, height) == (640, 800)
    assert not looks_blank(pixels)
    colours = set(pixels)
    planned = {
        a["pod"]
        for g in data["nodes"][0]["groups"]
        for e in ENGINES
        for a in g["engines"][e]
        if not a["existing"]
    }
    assert {
        bytes.fromhex(pod_color(p)[1:]) for p in planned
    } <= colours  # every planned pod's cells are painted


def test_chromium_renders_100_nodes_of_8_gpus_without_errors(chromium: Chromium, tmp_path: Path) -> None:
    done = render(chromium, tmp_path, render_html(synthetic(100, 8)))
    assert (done.errors, done.requests) == ([], [])
    assert not looks_blank(decode_png(done.png)[2])


BROKEN = {
    "a console.error call": ("<p>x</p><script>console.error('boom')</script>", "boom"),
    "an uncaught exception": (
        "<p>x</p><script>undefinedFunction()</script>",
        "undefinedFunction is not defined",
    ),
    "an image that cannot load": ('<img src="missing.png">', "ERR_FILE_NOT_FOUND"),
    "an SVG with a negative width": ('<svg><rect width="-4" height="2"/></svg>', "negative value"),
}


@pytest.mark.parametrize("body, expected", BROKEN.values(), ids=BROKEN.keys())
def test_console_errors_of_a_broken_page_are_caught(
    chromium: Chromium, tmp_path: Path, body: str, expected: str
) -> None:
    done = render(chromium, tmp_path, f"<!DOCTYPE html><html><body>{body}</body></html>")
    assert any(expected in e for e in done.errors), done.errors


def test_the_page_policy_blocks_and_reports_anything_from_the_network(
    chromium: Chromium, tmp_path: Path
) -> None:
    page = render_html(small()).replace("<body>", '<body><img src="https://example.invalid/x.png">')
    done = render(chromium, tmp_path, page)
    assert any("Content Security Policy" in e for e in done.errors), done.errors
    assert done.requests == ["https://example.invalid/x.png"]  # attempted, then refused by the policy


def test_a_blank_page_is_judged_blank(chromium: Chromium, tmp_path: Path) -> None:
    done = render(chromium, tmp_path, "<!DOCTYPE html><html><body></body></html>")
    assert done.errors == []
    assert looks_blank(decode_png(done.png)[2])
