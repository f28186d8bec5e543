"""`kubefit compare -o html`: one self-contained page (inline CSS and SVG, no script, no network) showing
the summary of a comparison and, per node, every partitionable GPU's counters as each engine leaves them.

Input (JSON-like, built from the engines' solutions elsewhere): `title`, `comparison` (the Comparison
object of `-o json`), `engines` (column order) and `nodes`, each with `groups` (one per counter set:
`counters` with capacities, and per engine the allocations consuming them) and `devices` (devices outside
counter sets and which pod holds each, per engine). Capacity-1 counters (memory slices) are drawn as
cells coloured by the pod holding them; larger counters (multiprocessors) as bars filled by the sum
consumed. Allocations present before the plan (running pods) are drawn faded with a dashed outline; pods
only one engine places get a heavy outline in that engine's column. Every string is escaped; the page's
Content-Security-Policy forbids loading anything, so a stray reference cannot reach the network.
Counter amounts are numbers or Kubernetes quantity strings; anything else counts as 0.
"""

from __future__ import annotations

import colorsys
import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from html import escape as _html_escape
from typing import Any

from ..model.quantity import Quantity, QuantityError
from ..model.terminal import escape as _terminal_escape

CELL = 12  # cell side, px
PITCH = 14  # cell side plus the gap between cells and between rows
BAR = 112  # bar length, px
CHAR = 6.2  # average advance of an 11px sans-serif character, to size the SVG around its text


def escape(text: str) -> str:
    """Text on the page: HTML's escapes, and control characters shown as a terminal shows them (the page
    may be printed to one, and a browser would not show them either)."""
    return _html_escape(_terminal_escape(text))


# Nothing may load: no script, font, image or frame; only the inline style.
_POLICY = "default-src 'none'; style-src 'unsafe-inline'"
_STYLE = """
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fff}
h1{font-size:20px;margin:0 0 12px}h2{font-size:15px;margin:18px 0 6px}h2 small{font-weight:400;color:#555}
table{border-collapse:collapse;margin:6px 0 12px}th,td{border:1px solid #ccd;padding:2px 8px;text-align:left}
th{background:#eef1f6}td.n{text-align:right}td.best{font-weight:700;background:#e3f4e3}
.free{color:#888}.dif td{background:#fff6dd}
.grid{display:grid;gap:4px 16px;align-items:center}
.eh{font-weight:700;border-bottom:1px solid #ccd}.gl{font-family:monospace}
svg.g{display:block;overflow:visible}svg.g text{font-size:11px;fill:#333}
.f,.c{width:12px;height:12px}.j{width:14px}.f{fill:#eceef2;stroke:#c8ccd4}
.x .c{fill-opacity:.4;stroke:#333;stroke-dasharray:2 1}.o .c{stroke:#000;stroke-width:2}
.bg{fill:#eceef2;stroke:#c8ccd4}.bx{fill:#9aa3b2}.bp{fill:#3f7fd0}.ov{fill:#d33!important;stroke:#d33}
.sw{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}
.lg{display:flex;flex-wrap:wrap;gap:6px 18px;margin:8px 0}.lg span{white-space:nowrap}
.lg svg{vertical-align:middle}
body:has(#diff:checked) .same{display:none}
"""


def render_html(data: Mapping[str, Any]) -> str:
    """The whole page; the same data gives the same bytes."""
    engines = [str(e) for e in _seq(data.get("engines"))]
    comparison = _map(data.get("comparison"))
    only = _only_placed(comparison, engines)
    nodes = [_map(n) for n in _seq(data.get("nodes"))]
    anchors: dict[str, str] = {}
    for i, n in enumerate(nodes):
        anchors.setdefault(str(n.get("name", "")), f"n{i}")
    title = escape(str(data.get("title") or "kubefit compare"))
    parts = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">',
        f"<title>{title}</title><style>{_STYLE}",
        f".grid{{grid-template-columns:max-content repeat({max(len(engines), 1)},max-content)}}",
        f"</style></head><body><h1>{title}</h1>",
        _engines(engines),
        _summary(_map(comparison.get("engines")), engines),
        _only_tables(only, engines, anchors),
        _legend(),
        "<label><input type=checkbox id=diff> only the nodes where the engines differ</label>",
    ]
    parts.extend(_node(node, f"n{i}", engines, only) for i, node in enumerate(nodes))
    parts.append("</body></html>\n")
    return "".join(parts)


def pod_color(pod: str) -> str:
    """A colour stable across runs and engines, so a pod looks the same in every column."""
    digest = hashlib.sha256(pod.encode("utf-8")).digest()
    hue = int.from_bytes(digest[:2], "big") % 360 / 360
    lightness = (45 + digest[2] % 20) / 100
    saturation = (55 + digest[3] % 30) / 100
    r, g, b = colorsys.hls_to_rgb(hue, lightness, saturation)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def amount(value: Any) -> float:
    if isinstance(value, bool):
        return 0.0
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an int too large for a float: no picture can show it
            return 0.0
    elif isinstance(value, str):
        try:
            number = Quantity.parse(value).as_approximate_float()
        except (QuantityError, OverflowError):
            return 0.0
    else:
        return 0.0
    # SVG rejects negative or non-finite lengths with a console error; such amounts are bad input anyway.
    return number if math.isfinite(number) and number > 0 else 0.0


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _seq(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list | tuple) else ()


def _text(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return str(int(value)) if float(value).is_integer() else f"{value:.4g}"


def _ordered(keys: Sequence[str], engines: Sequence[str]) -> list[str]:
    """Engines in column order first, then any other names sorted, so nothing given is dropped."""
    return [e for e in engines if e in keys] + sorted(k for k in keys if k not in engines)


SUMMARY_ROWS = (
    ("placed", "pods placed"),
    ("pending", "pods left pending"),
    ("status", "status"),
    ("bound", "proven bound (most pods placeable)"),
    ("seconds", "seconds"),
    ("nodesTouched", "nodes touched"),
    ("devicesTouched", "devices touched"),
    ("partiallyUsedDevices", "partially used devices"),
    ("preempted", "running pods preempted"),
)
BEST = {"placed": max, "pending": min}


def _summary(stats: Mapping[str, Any], engines: Sequence[str]) -> str:
    columns = _ordered(list(stats), engines)
    rows = [(key, label) for key, label in SUMMARY_ROWS]
    known = {key for key, _ in SUMMARY_ROWS}
    extra = sorted({k for c in columns for k in _map(stats[c]) if k not in known})
    rows += [(key, key) for key in extra]
    out = ["<table class=sum><tr><th></th>", *(f"<th>{escape(c)}</th>" for c in columns), "</tr>"]
    for key, label in rows:
        values = [_map(stats[c]).get(key) for c in columns]
        numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
        best = BEST[key](numbers) if key in BEST and len(set(numbers)) > 1 else None
        out.append(f"<tr><th>{escape(label)}</th>")
        for v in values:
            cls = "n best" if best is not None and v == best else "n"
            out.append(f'<td class="{cls}">{escape(_text(v))}</td>')
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def _only_placed(comparison: Mapping[str, Any], engines: Sequence[str]) -> dict[str, list[Mapping[str, Any]]]:
    given = _map(comparison.get("onlyPlacedBy"))
    return {e: [_map(p) for p in _seq(given.get(e))] for e in _ordered([*given, *engines], engines)}


FIRST_ROWS = 20  # pods listed before the rest fold under "show all"


def _only_tables(
    only: Mapping[str, Sequence[Mapping[str, Any]]], engines: Sequence[str], anchors: Mapping[str, str]
) -> str:
    out: list[str] = []
    for engine, pods in only.items():
        heading = f"<h2>Placed only by {escape(engine)} ({len(pods)})</h2>"
        if not pods:
            out.append(heading)
            continue
        others = _ordered(sorted({k for p in pods for k in _map(p.get("reasons"))}), engines)
        out.append(heading)
        if len(pods) > FIRST_ROWS:
            out.append(_grouped(pods, others))
        out.append(_pod_rows(pods[:FIRST_ROWS], others, anchors))
        if len(pods) > FIRST_ROWS:
            out += [
                f"<details><summary>show all {len(pods)}</summary>",
                _pod_rows(pods[FIRST_ROWS:], others, anchors),
                "</details>",
            ]
    return "".join(out)


def _pod_rows(pods: Sequence[Mapping[str, Any]], others: Sequence[str], anchors: Mapping[str, str]) -> str:
    out = ["<table><tr><th>pod</th><th>node</th>"]
    out += [f"<th>why {escape(o)} left it pending</th>" for o in others]
    out.append("</tr>")
    for p in pods:
        node = str(p.get("node", ""))
        link = f'<a href="#{anchors[node]}">{escape(node)}</a>' if node in anchors else escape(node)
        reasons = _map(p.get("reasons"))
        out.append(f"<tr><td>{escape(str(p.get('pod', '')))}</td><td>{link}</td>")
        out += [f"<td>{escape(_text(reasons.get(o)))}</td>" for o in others]
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def _grouped(pods: Sequence[Mapping[str, Any]], others: Sequence[str]) -> str:
    """The pods by why the other engine left them pending (its own words, without what it put where)."""
    out = []
    for other in others:
        groups = why_groups(pods, other)
        out += [
            f"<table><tr><th>pods</th><th>why {escape(other)} left them pending</th><th>for example</th></tr>"
        ]
        for why, names in groups:
            example = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
            out.append(
                f'<tr><td class="n">{len(names)}</td><td>{escape(why)}</td><td>{escape(example)}</td></tr>'
            )
        out.append("</table>")
    return "".join(out)


def why_groups(pods: Sequence[Mapping[str, Any]], other: str) -> list[tuple[str, list[str]]]:
    """(why, pods) most pods first: a reason's own words up to what the other engine put on the node, a
    pod's own name read as `the pod`."""
    groups: dict[str, list[str]] = {}
    for p in pods:
        pod = str(p.get("pod", ""))
        why = _text(_map(p.get("reasons")).get(other))
        why = why.split(" On node ", 1)[0].replace(f"pod {pod}", "the pod")
        groups.setdefault(why, []).append(pod)
    return sorted(groups.items(), key=lambda t: (-len(t[1]), t[0]))


ENGINES = {
    "greedy": "kube-scheduler: one pod at a time in queue order (priority, then age), each to the "
    "best-scoring node that fits it at that moment",
    "cpsat": "the batch plan: every pending pod at once, the most pods placed (a higher priority first), "
    "proven where it says optimal",
}


def _engines(engines: Sequence[str]) -> str:
    items = "".join(f"<li><b>{escape(e)}</b>: {escape(ENGINES[e])}.</li>" for e in engines if e in ENGINES)
    return f"<ul>{items}</ul>" if items else ""


def _legend() -> str:
    def cell(cls: str, fill: str = "#3f7fd0") -> str:
        return f'<svg width=14 height=14><g class="{cls}" fill="{fill}"><rect class=c x=1 y=1 /></g></svg>'

    items = [
        (cell("a"), "planned allocation (colour: its pod)"),
        (cell("a x"), "allocation of a running pod (before the plan)"),
        (cell("a o"), "pod only this engine places"),
        ("<svg width=14 height=14><rect class=f x=1 y=1 /></svg>", "free memory slice"),
        (
            "<svg width=50 height=12><rect class=bg width=48 height=10 />"
            "<rect class=bx width=12 height=10 /><rect class=bp x=12 width=20 height=10 /></svg>",
            "counter pool: used by running pods, then planned, then free",
        ),
    ]
    return "<div class=lg>" + "".join(f"<span>{svg} {escape(text)}</span>" for svg, text in items) + "</div>"


_INDEXED = re.compile(r"^(.*?)(\d+)$")


def _cell_rows(counters: Sequence[Mapping[str, Any]]) -> tuple[list[list[str]], list[tuple[str, float]]]:
    """Capacity-1 counters by name stem (memory-slice-N), each row in numeric order; then the pools."""
    rows: dict[str, list[tuple[int, str]]] = {}
    pools: list[tuple[str, float]] = []
    for counter in counters:
        name, capacity = str(counter.get("name", "")), amount(counter.get("capacity"))
        if capacity == 1:
            m = _INDEXED.match(name)
            stem, index = (m.group(1), int(m.group(2))) if m else (name, 0)
            rows.setdefault(stem, []).append((index, name))
        else:
            pools.append((name, capacity))
    return [[name for _, name in sorted(row)] for row in rows.values()], pools


def _group_svg(
    counters: Sequence[Mapping[str, Any]], allocations: Sequence[Mapping[str, Any]], only: set[str]
) -> str:
    rows, pools = _cell_rows(counters)
    holders: dict[str, list[int]] = {}
    for i, a in enumerate(allocations):
        for name, used in _map(a.get("counters")).items():
            if amount(used) > 0:
                holders.setdefault(str(name), []).append(i)
    cells: dict[int, list[str]] = {}
    free: list[str] = []
    width = 0.0
    for r, row in enumerate(rows):
        owners = [holders.get(name, []) for name in row]
        for k, held in enumerate(owners):
            xy = f"x={k * PITCH} y={r * PITCH}"
            if not held:
                free.append(f"<rect class=f {xy} />")
                continue
            # A cell bridges the gap to its right neighbour of the same allocation: one device, one block.
            joined = " j" if k + 1 < len(owners) and owners[k + 1][:1] == held[:1] else ""
            over = " ov" if len(held) > 1 else ""
            cells.setdefault(held[0], []).append(f'<rect class="c{joined}{over}" {xy} />')
        width = max(width, len(row) * PITCH)
    out = [*free]
    for i, a in enumerate(allocations):
        pod = str(a.get("pod", ""))
        cls = "a" + (" x" if a.get("existing") is True else "") + (" o" if pod in only else "")
        used = ", ".join(f"{n}={_text(amount(v))}" for n, v in _map(a.get("counters")).items())
        state = "running" if a.get("existing") is True else "planned"
        tip = escape(f"{pod} on {a.get('device', '')} ({state}): {used}")
        out.append(
            f'<g class="{cls}" fill="{pod_color(pod)}"><title>{tip}</title>{"".join(cells.get(i, []))}</g>'
        )
    top = len(rows) * PITCH
    for p, (name, capacity) in enumerate(pools):
        y = top + p * PITCH
        existing = sum(
            amount(_map(a.get("counters")).get(name)) for a in allocations if a.get("existing") is True
        )
        total = sum(amount(_map(a.get("counters")).get(name)) for a in allocations)
        scale = BAR / capacity if capacity > 0 else 0.0
        wx, wt = min(existing * scale, BAR), min(total * scale, BAR)  # an overfull pool is capped and red
        label = f"{name} {_text(total)}/{_text(capacity)}"
        tip = f"{name}: {_text(total)} of {_text(capacity)} used ({_text(existing)} by running pods)"
        over = " class=ov" if total > capacity else ""
        out.append(
            f"<g><title>{escape(tip)}</title><rect class=bg y={y + 1} width={BAR} height=10 />"
            f"<rect class=bx y={y + 1} width={wx:.1f} height=10 />"
            f"<rect class=bp x={wx:.1f} y={y + 1} width={wt - wx:.1f} height=10 />"
            f"<text x={BAR + 6} y={y + 10}{over}>{escape(label)}</text></g>"
        )
        width = max(width, BAR + 6 + len(label) * CHAR)
    height = max((len(rows) + len(pools)) * PITCH, PITCH)
    return f'<svg class=g width="{width:.0f}" height="{height}">{"".join(out)}</svg>'


def _placements(group: Mapping[str, Any], engine: str) -> list[Mapping[str, Any]]:
    return [_map(a) for a in _seq(_map(group.get("engines")).get(engine))]


def _same(node: Mapping[str, Any], engines: Sequence[str]) -> bool:
    """Whether every engine leaves this node exactly alike (the page can hide such nodes)."""

    def view(engine: str) -> tuple[Any, ...]:
        groups = tuple(
            tuple(sorted((str(a.get("device")), str(a.get("pod"))) for a in _placements(_map(g), engine)))
            for g in _seq(node.get("groups"))
        )
        devices = tuple(str(_map(_map(d).get("engines")).get(engine)) for d in _seq(node.get("devices")))
        return groups, devices

    return len({view(e) for e in engines}) <= 1


def _node(
    node: Mapping[str, Any],
    anchor: str,
    engines: Sequence[str],
    only: Mapping[str, Sequence[Mapping[str, Any]]],
) -> str:
    name = str(node.get("name", ""))
    groups = [_map(g) for g in _seq(node.get("groups"))]
    devices = [_map(d) for d in _seq(node.get("devices"))]
    only_here = {e: {str(p.get("pod")) for p in only.get(e, ()) if p.get("node") == name} for e in engines}
    counts = []
    for e in engines:
        held = [a for g in groups for a in _placements(g, e)]
        pods = {str(a.get("pod")) for a in held}
        pods |= {str(h) for d in devices if (h := _map(d.get("engines")).get(e)) is not None}
        running = {str(a.get("pod")) for a in held if a.get("existing") is True}
        counts.append(f"{escape(e)}: {len(pods)} pods ({len(running)} running before the plan)")
    same = " same" if _same(node, engines) else ""
    heading = f"<h2>{escape(name)} <small>{' · '.join(counts)}</small></h2>"
    out = [f'<section class="node{same}" id="{anchor}">{heading}']
    if groups:
        out.append(
            "<div class=grid><div></div>" + "".join(f"<div class=eh>{escape(e)}</div>" for e in engines)
        )
        for g in groups:
            counters = [_map(c) for c in _seq(g.get("counters"))]
            label = escape(str(g.get("label") or g.get("name", "")))
            out.append(f'<div class=gl title="{escape(str(g.get("name", "")))}">{label}</div>')
            out += [_group_svg(counters, _placements(g, e), only_here[e]) for e in engines]
        out.append("</div>")
    if devices:
        out.append(
            "<table><tr><th>device</th><th>driver</th>" + "".join(f"<th>{escape(e)}</th>" for e in engines)
        )
        out.append("</tr>")
        for d in devices:
            holders = [_map(d.get("engines")).get(e) for e in engines]
            differ = " class=dif" if len({str(h) for h in holders}) > 1 else ""
            device, driver = escape(str(d.get("name", ""))), escape(str(d.get("driver", "")))
            out.append(f"<tr{differ}><td>{device}</td><td>{driver}</td>")
            for h in holders:
                if h is None:
                    out.append("<td class=free>free</td>")
                else:
                    out.append(
                        f'<td><i class=sw style="background:{pod_color(str(h))}"></i>{escape(str(h))}</td>'
                    )
            out.append("</tr>")
        out.append("</table>")
    out.append("</section>")
    return "".join(out)
