"""The scheduler-style summary line: `0/12 nodes can run pod train/worker-0: 9 have no devices of class
gpu, 3 cannot satisfy constraint matchAttribute ...`. Each node is counted once, under the phrase of its
most telling reason (a constraint or counter it runs into says more than the request that needs it)."""

from __future__ import annotations

from collections.abc import Sequence

from .model import Kind, NodeExplanation, Reason, Verdict

_HEADLINE = (
    Kind.UNIT_ERROR,
    Kind.NODE_EXCLUDED,
    Kind.CLAIM_PLACEMENT,
    Kind.NODE_RESOURCES,
    Kind.ALLOCATION_ERROR,
    Kind.MATCH_ATTRIBUTE,
    Kind.DISTINCT_ATTRIBUTE,
    Kind.COUNTER,
    Kind.COMPATIBILITY,
    Kind.CAPACITY,
    Kind.CLAIM_LIMIT,
    Kind.DEVICE_TAINT,
    Kind.DEVICES_IN_USE,
    Kind.UNREACHABLE,
    Kind.DEVICE_REQUEST,
    Kind.MAPPED_RESOURCES,
    Kind.POD_GROUP,
    Kind.UNDECIDED,
)


def headline(reasons: Sequence[Reason]) -> Reason | None:
    return min(reasons, key=lambda r: _HEADLINE.index(r.kind), default=None)


def summary(name: str, nodes: Sequence[NodeExplanation]) -> str:
    counts: dict[str, int] = {}
    fitting = 0
    for node in nodes:
        if node.verdict == Verdict.FITS:
            fitting += 1
            continue
        top = headline(node.reasons)
        phrase = top.summary if top is not None else "cannot run it"
        counts[phrase] = counts.get(phrase, 0) + 1
    parts = ", ".join(
        f"{n} {_agreeing(phrase, n)}" for phrase, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    text = f"{fitting}/{len(nodes)} nodes can run {name}"
    return f"{text}: {parts}." if parts else f"{text}."


def _agreeing(phrase: str, count: int) -> str:
    """Phrases are written for many nodes ("have no devices ..."); one node "has" them."""
    return "has " + phrase[5:] if count == 1 and phrase.startswith("have ") else phrase
