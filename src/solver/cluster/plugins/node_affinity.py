"""NodeAffinity: a pod's nodeSelector and required node affinity filter nodes, its preferred node affinity
scores them; the plugin args add scheduler-enforced terms of both kinds
(pkg/scheduler/framework/plugins/nodeaffinity).

Terms are compiled once per pod (PreFilter / PreScore) with the semantics of component-helpers'
scheduling/corev1/nodeaffinity: an empty term selects nothing, and a term that does not parse (an
unknown operator, a label key or value that is not valid, In without values, Gt with a value that is
not an integer, a field requirement without exactly one value) never matches.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

from ....model.cluster import names
from ....model.cluster.args import NodeAffinityArgs
from ....model.cluster.facts import Node, Pod
from ....model.cluster.points import FILTER, SCORE
from ....model.terms import NodeSelectorTerm, PreferredNodeTerm
from ..framework import (
    SKIP,
    Code,
    CycleState,
    Handle,
    NodeInfo,
    Plugin,
    StateData,
    Status,
    default_normalize,
    error,
)

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"

PRE_FILTER_STATE_KEY = "PreFilter" + names.NODE_AFFINITY
PRE_SCORE_STATE_KEY = "PreScore" + names.NODE_AFFINITY

OBJECT_NAME_FIELD = "metadata.name"

# Labels do not change under preemption, hence unresolvable.
_POD_MISMATCH = Status(Code.UNRESOLVABLE, (ERR_REASON_POD,), names.NODE_AFFINITY)
_ENFORCED_MISMATCH = Status(Code.UNRESOLVABLE, (ERR_REASON_ENFORCED,), names.NODE_AFFINITY)
_CONFLICT = Status(Code.UNRESOLVABLE, (ERR_REASON_CONFLICT,), names.NODE_AFFINITY)

# --- term matching ------------------------------------------------------------------------------------

_IN, _NOT_IN, _EXISTS, _DOES_NOT_EXIST, _GT, _LT = range(6)
_LABEL_OPERATORS = {
    "In": _IN,
    "NotIn": _NOT_IN,
    "Exists": _EXISTS,
    "DoesNotExist": _DOES_NOT_EXIST,
    "Gt": _GT,
    "Lt": _LT,
}

_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_DECIMAL = re.compile(r"[+-]?[0-9]+")


class TermError(ValueError):
    """A node selector term that does not parse."""


def go_int(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64), None where it fails."""
    if _DECIMAL.fullmatch(text) is None:
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


def _label_key_valid(key: str) -> bool:
    """validation.IsQualifiedName: [prefix/]name, the prefix a DNS subdomain."""
    parts = key.split("/")
    if len(parts) > 2:
        return False
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix or len(prefix) > 253 or _DNS1123_SUBDOMAIN.fullmatch(prefix) is None:
            return False
    name = parts[-1]
    return 0 < len(name) <= 63 and _NAME.fullmatch(name) is not None


def _label_value_valid(value: str) -> bool:
    return len(value) <= 63 and _LABEL_VALUE.fullmatch(value) is not None


class CompiledTerm:
    """One parsed NodeSelectorTerm: label requirements (key, operator, values, Gt/Lt bound) and
    metadata.name field requirements (key, equal?, value), all ANDed."""

    __slots__ = ("expressions", "fields")

    def __init__(
        self,
        expressions: tuple[tuple[str, int, frozenset[str], int], ...],
        fields: tuple[tuple[str, bool, str], ...],
    ) -> None:
        self.expressions = expressions
        self.fields = fields

    def matches(self, name: str, labels: Mapping[str, str]) -> bool:
        for key, op, values, bound in self.expressions:
            value = labels.get(key)
            if op == _IN:
                if value is None or value not in values:
                    return False
            elif op == _NOT_IN:
                if value is not None and value in values:
                    return False
            elif op == _EXISTS:
                if value is None:
                    return False
            elif op == _DOES_NOT_EXIST:
                if value is not None:
                    return False
            else:
                number = None if value is None else go_int(value)
                if number is None or (number <= bound if op == _GT else number >= bound):
                    return False
        for key, equal, wanted in self.fields:
            # A node's only field is its name; any other field reads as "".
            have = name if key == OBJECT_NAME_FIELD else ""
            if (have == wanted) != equal:
                return False
        return True


def _label_requirement(
    key: str, operator: str, values: tuple[str, ...]
) -> tuple[str, int, frozenset[str], int]:
    """labels.NewRequirement's checks, raising TermError where it reports errors."""
    op = _LABEL_OPERATORS.get(operator)
    if op is None:
        raise TermError(f'operator: Unsupported value: "{operator}"')
    if not _label_key_valid(key):
        raise TermError(f"key: Invalid value: {key!r}: not a valid label key")
    bound = 0
    if op in (_IN, _NOT_IN) and not values:
        raise TermError("values: for 'in', 'notin' operators, values set can't be empty")
    if op in (_EXISTS, _DOES_NOT_EXIST) and values:
        raise TermError("values: for 'exists', 'doesnotexist' operators, values set can't be specified")
    if op in (_GT, _LT):
        if len(values) != 1:
            raise TermError("values: for 'Gt', 'Lt' operators, exactly one value is required")
        parsed = go_int(values[0])
        if parsed is None:
            raise TermError("values[0]: for 'Gt', 'Lt' operators, the value must be an integer")
        bound = parsed
    for value in values:
        if not _label_value_valid(value):
            raise TermError(f"values: Invalid value: {value!r}: not a valid label value")
    return key, op, frozenset(values), bound


def compile_term(term: NodeSelectorTerm) -> CompiledTerm:
    expressions = tuple(
        _label_requirement(r.key, r.operator, tuple(r.values)) for r in term.match_expressions
    )
    fields: list[tuple[str, bool, str]] = []
    for r in term.match_fields:
        if r.operator not in ("In", "NotIn"):
            raise TermError(f'operator: Unsupported value: "{r.operator}"')
        if len(r.values) != 1:
            raise TermError("values: must have one element")
        fields.append((r.key, r.operator == "In", r.values[0]))
    return CompiledTerm(expressions, tuple(fields))


def _empty(term: NodeSelectorTerm) -> bool:
    return not term.match_expressions and not term.match_fields


def compile_selector(terms: Iterable[NodeSelectorTerm]) -> tuple[CompiledTerm, ...]:
    """NewLazyErrorNodeSelector: the terms that can match (empty ones and ones that do not parse never
    do)."""
    out: list[CompiledTerm] = []
    for term in terms:
        if _empty(term):
            continue
        try:
            out.append(compile_term(term))
        except TermError:
            continue
    return tuple(out)


def compile_preferred(terms: Iterable[PreferredNodeTerm]) -> tuple[tuple[int, CompiledTerm], ...]:
    """NewPreferredSchedulingTerms: weighted terms, skipping weight 0 and empty ones; raises TermError
    when a term does not parse."""
    return tuple(
        (t.weight, compile_term(t.preference)) for t in terms if t.weight != 0 and not _empty(t.preference)
    )


def selector_matches(terms: Sequence[CompiledTerm], node: Node) -> bool:
    return any(term.matches(node.name, node.labels) for term in terms)


class RequiredNodeAffinity(StateData):
    """nodeaffinity.GetRequiredNodeAffinity: the pod's nodeSelector and its required node affinity
    (None when unset, so that every node matches it). Immutable, so clones share it."""

    __slots__ = ("selector", "terms")

    def __init__(self, pod: Pod) -> None:
        self.selector = tuple(pod.node_selector.items())
        required = pod.required_node_affinity
        self.terms = None if required is None else compile_selector(required)

    def matches(self, node: Node) -> bool:
        labels = node.labels
        for key, value in self.selector:
            if labels.get(key) != value:
                return False
        return self.terms is None or selector_matches(self.terms, node)


def _score(terms: Sequence[tuple[int, CompiledTerm]], node: Node) -> int:
    return sum(weight for weight, term in terms if term.matches(node.name, node.labels))


# --- the plugin ---------------------------------------------------------------------------------------


class PreScoreState(StateData):
    __slots__ = ("terms",)

    def __init__(self, terms: tuple[tuple[int, CompiledTerm], ...]) -> None:
        self.terms = terms


def _narrowed(required: Sequence[NodeSelectorTerm]) -> set[str] | None:
    """The node names the terms allow when every term names nodes with `metadata.name In` field
    requirements (ANDed within a term, ORed across terms); None when some term allows any node."""
    allowed: set[str] = set()
    for term in required:
        named: set[str] | None = None
        for r in term.match_fields:
            if r.key == OBJECT_NAME_FIELD and r.operator == "In":
                named = set(r.values) if named is None else named & set(r.values)
        if named is None:
            return None
        allowed |= named
    return allowed


class NodeAffinity(Plugin):
    name = names.NODE_AFFINITY
    points = names.POINTS_OF[names.NODE_AFFINITY]
    normalizes = True

    def __init__(self, handle: Handle, args: Any = None) -> None:
        super().__init__(handle, args)
        if args is None:
            args = NodeAffinityArgs()
        if not isinstance(args, NodeAffinityArgs):
            raise TypeError(f"args are not of type NodeAffinityArgs, got {type(args).__name__}")
        field = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        try:
            self.added_required = (
                None
                if args.added_required is None
                else tuple(compile_term(t) for t in args.added_required if not _empty(t))
            )
            field = "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"
            self.added_preferred = compile_preferred(args.added_preferred)
        except TermError as e:
            raise ValueError(f"parsing {field}: {e}") from e
        # Upstream scores whenever added preferred terms are configured, even all of weight 0.
        self.has_added_preferred = bool(args.added_preferred)

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[set[str] | None, Status | None]:
        required = pod.required_node_affinity
        if required is None and self.added_required is None and not pod.node_selector:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, RequiredNodeAffinity(pod))
        if not required:
            return None, None
        allowed = _narrowed(required)
        if allowed is not None and not allowed:
            return None, _CONFLICT
        return allowed, None

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        if self.added_required is not None and not selector_matches(self.added_required, node.node):
            return _ENFORCED_MISMATCH
        s = state.read(PRE_FILTER_STATE_KEY)
        if not isinstance(s, RequiredNodeAffinity):
            # PreFilter disabled in the profile: compute it here, as upstream does.
            s = RequiredNodeAffinity(pod)
        return None if s.matches(node.node) else _POD_MISMATCH

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        try:
            terms = compile_preferred(pod.preferred_node_affinity)
        except TermError as e:
            return error(str(e))
        if not pod.preferred_node_affinity and not self.has_added_preferred:
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(terms))
        return None

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        s = state.read(PRE_SCORE_STATE_KEY)
        # Without PreScore (disabled in the profile) the pod's terms are compiled here, as upstream
        # does; one that does not parse fails the Score as it fails PreScore.
        terms = s.terms if isinstance(s, PreScoreState) else compile_preferred(pod.preferred_node_affinity)
        return _score(self.added_preferred, node.node) + _score(terms, node.node)

    def normalize(self, state: CycleState, pod: Pod, scores: dict[str, int]) -> Status | None:
        default_normalize(scores)
        return None

    def memo_key(self, state: CycleState, pod: Pod, point: str) -> Hashable | None:
        # The scheduler-enforced terms are the plugin's own, the same in every cycle.
        if point == FILTER:
            return tuple(sorted(pod.node_selector.items())), pod.required_node_affinity
        return pod.preferred_node_affinity if point == SCORE else None
