"""Plugin args of a KubeSchedulerConfiguration, checked as kube-scheduler checks them
(pkg/scheduler/apis/config/validation/validation_pluginargs.go, and NodeAffinity's added
affinity as component-helpers' nodeaffinity parses it).

Each check takes the path of the args in the file and the args after v1 defaulting. Where
upstream's path leaves out a level of the file (`scoringStrategy.shape`, a preferred term's
`preference`), the path given here is the file's, so the line found is the right one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kubernetes.client.models import V1NodeSelectorRequirement, V1NodeSelectorTerm

from ...model.errors import FieldPath
from ..sched import config_model as m
from ..sched.go_duration import SECOND, format_duration, parse
from . import FieldError
from .field_errors import Raw, duplicate, forbidden, go_string_slice, invalid, not_supported, required
from .names import is_label_value, is_qualified_name, validate_label_name

Enabled = Callable[[str], bool]

MAX_CUSTOM_PRIORITY_SCORE = 10
SCORING_STRATEGIES = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")


def default_preemption(path: FieldPath, args: m.DefaultPreemptionArgs) -> list[FieldError]:
    errs: list[FieldError] = []
    percentage = args.min_candidate_nodes_percentage or 0
    absolute = args.min_candidate_nodes_absolute or 0
    percentage_path = (*path, "minCandidateNodesPercentage")
    absolute_path = (*path, "minCandidateNodesAbsolute")
    if not 0 <= percentage <= 100:
        errs.append(invalid(percentage_path, percentage, "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(invalid(absolute_path, absolute, "not in valid range [0, inf)"))
    if percentage == 0 and absolute == 0:
        errs.append(
            invalid(
                percentage_path, percentage, "cannot be zero at the same time as minCandidateNodesAbsolute"
            )
        )
        errs.append(
            invalid(absolute_path, absolute, "cannot be zero at the same time as minCandidateNodesPercentage")
        )
    return errs


def inter_pod_affinity(path: FieldPath, args: m.InterPodAffinityArgs) -> list[FieldError]:
    weight = args.hard_pod_affinity_weight or 0
    if not 0 <= weight <= 100:
        return [invalid((*path, "hardPodAffinityWeight"), weight, "not in valid range [0, 100]")]
    return []


def pod_topology_spread(path: FieldPath, args: m.PodTopologySpreadArgs) -> list[FieldError]:
    errs: list[FieldError] = []
    kind, constraints = args.defaulting_type, args.default_constraints
    if kind not in ("System", "List"):
        errs.append(not_supported((*path, "defaultingType"), kind, ("System", "List")))
    elif kind == "System" and constraints:
        errs.append(invalid((*path, "defaultingType"), kind, "when .defaultConstraints are not empty"))
    seen: set[tuple[str, str]] = set()
    for i, c in enumerate(constraints):
        p = (*path, "defaultConstraints", i)
        if c.max_skew <= 0:
            errs.append(invalid((*p, "maxSkew"), c.max_skew, "not in valid range (0, inf)"))
        if not c.topology_key:
            errs.append(required((*p, "topologyKey"), "can not be empty"))
        else:
            errs += validate_label_name(c.topology_key, (*p, "topologyKey"))
        if not c.when_unsatisfiable:
            errs.append(required((*p, "whenUnsatisfiable"), "can not be empty"))
        elif c.when_unsatisfiable not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(
                not_supported(
                    (*p, "whenUnsatisfiable"), c.when_unsatisfiable, ("DoNotSchedule", "ScheduleAnyway")
                )
            )
        if c.label_selector is not None:
            detail = "constraint must not define a selector, as they deduced for each pod"
            errs.append(forbidden((*p, "labelSelector"), detail))
        key = (c.topology_key, c.when_unsatisfiable)
        if key in seen:
            errs.append(duplicate(p, f"{{{key[0]}, {key[1]}}}"))
        seen.add(key)
    return errs


def _shape_literal(shape: Sequence[m.UtilizationShapePoint]) -> Raw:
    points = ", ".join(
        f"config.UtilizationShapePoint{{Utilization:{p.utilization}, Score:{p.score}}}" for p in shape
    )
    return Raw("[]config.UtilizationShapePoint{" + points + "}")


def function_shape(path: FieldPath, shape: Sequence[m.UtilizationShapePoint]) -> list[FieldError]:
    if not shape:
        return [required(path, "at least one point must be specified")]
    errs: list[FieldError] = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            detail = "values must be sorted in increasing order"
            errs.append(invalid((*path, i, "utilization"), shape[i].utilization, detail))
            break
    for i, point in enumerate(shape):
        if not 0 <= point.utilization <= 100:
            errs.append(invalid((*path, i, "utilization"), point.utilization, "not in valid range [0, 100]"))
        if not 0 <= point.score <= MAX_CUSTOM_PRIORITY_SCORE:
            detail = f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"
            errs.append(invalid((*path, i, "score"), point.score, detail))
    return errs


def balanced_allocation(path: FieldPath, args: m.NodeResourcesBalancedAllocationArgs) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, r in enumerate(args.resources):
        p = (*path, "resources", i)
        if r.name in seen:
            errs.append(duplicate((*p, "name"), r.name))
        seen.add(r.name)
        if r.weight != 1:
            errs.append(invalid((*p, "weight"), r.weight, "must be 1"))
    return errs


def node_resources_fit(path: FieldPath, args: m.NodeResourcesFitArgs) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, name in enumerate(args.ignored_resources):
        errs += validate_label_name(name, (*path, "ignoredResources", i))
    for i, group in enumerate(args.ignored_resource_groups):
        p = (*path, "ignoredResourceGroups", i)
        if "/" in group:
            errs.append(invalid(p, group, "resource group name can't contain '/'"))
        errs += validate_label_name(group, p)
    strategy = args.scoring_strategy
    if strategy is None:
        return errs
    p = (*path, "scoringStrategy")
    if strategy.type not in SCORING_STRATEGIES:
        errs.append(not_supported((*p, "type"), strategy.type, SCORING_STRATEGIES))
    for i, r in enumerate(strategy.resources):
        if not 0 < r.weight <= 100:
            detail = f"resource weight of {r.name} not in valid range (0, 100]"
            errs.append(invalid((*p, "resources", i, "weight"), r.weight, detail))
    ratio = strategy.requested_to_capacity_ratio
    if ratio is not None:
        errs += function_shape((*p, "requestedToCapacityRatio", "shape"), ratio.shape)
    elif strategy.type == "RequestedToCapacityRatio":
        # kube-scheduler has no shape to score with here and fails when it builds the plugin.
        errs.append(
            required((*p, "requestedToCapacityRatio", "shape"), "at least one point must be specified")
        )
    return errs


def volume_binding(path: FieldPath, args: m.VolumeBindingArgs, enabled: Enabled) -> list[FieldError]:
    errs: list[FieldError] = []
    timeout = args.bind_timeout_seconds or 0
    if timeout < 0:
        detail = "invalid BindTimeoutSeconds, should not be a negative value"
        errs.append(invalid((*path, "bindTimeoutSeconds"), timeout, detail))
    if enabled("StorageCapacityScoring"):
        errs += function_shape((*path, "shape"), args.shape)
    elif args.shape:
        detail = "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"
        errs.append(invalid((*path, "shape"), _shape_literal(args.shape), detail))
    return errs


def dynamic_resources(path: FieldPath, args: m.DynamicResourcesArgs, enabled: Enabled) -> list[FieldError]:
    errs: list[FieldError] = []
    filter_path, binding_path = (*path, "filterTimeout"), (*path, "bindingTimeout")
    if enabled("DRASchedulerFilterTimeout"):
        if args.filter_timeout is not None and parse(args.filter_timeout) < 0:
            shown = Raw(format_duration(parse(args.filter_timeout)))
            errs.append(invalid(filter_path, shown, "must be zero or positive"))
    elif args.filter_timeout is not None:
        errs.append(forbidden(filter_path, "DRASchedulingFilterTimeout feature gate is disabled"))
    if enabled("DRADeviceBindingConditions") and enabled("DRAResourceClaimDeviceStatus"):
        if args.binding_timeout is not None and parse(args.binding_timeout) < SECOND:
            shown = Raw(format_duration(parse(args.binding_timeout)))
            errs.append(invalid(binding_path, shown, "must be at least 1 second"))
    elif args.binding_timeout is not None:
        detail = "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"
        errs.append(forbidden(binding_path, detail))
    return errs


# --- NodeAffinity: addedAffinity, parsed as nodeaffinity.NewNodeSelector / NewPreferredSchedulingTerms ---

LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
FIELD_OPERATORS = ("In", "NotIn")


def _label_requirement(req: V1NodeSelectorRequirement, path: FieldPath) -> list[FieldError]:
    if req.operator not in LABEL_OPERATORS:
        return [not_supported((*path, "operator"), req.operator, LABEL_OPERATORS)]
    errs: list[FieldError] = []
    key_problems = is_qualified_name(req.key)
    if key_problems:
        errs.append(invalid((*path, "key"), req.key, "; ".join(key_problems)))
    values = req.values
    count = len(values or ())
    shown = go_string_slice(values)
    values_path = (*path, "values")
    if req.operator in ("In", "NotIn") and count == 0:
        errs.append(invalid(values_path, shown, "for 'in', 'notin' operators, values set can't be empty"))
    elif req.operator in ("Exists", "DoesNotExist") and count:
        errs.append(invalid(values_path, shown, "values set must be empty for exists and does not exist"))
    elif req.operator in ("Gt", "Lt"):
        if count != 1:
            errs.append(
                invalid(values_path, shown, "for 'Gt', 'Lt' operators, exactly one value is required")
            )
        for i, value in enumerate(values or ()):
            if not _is_int64(value):
                detail = "for 'Gt', 'Lt' operators, the value must be an integer"
                errs.append(invalid((*values_path, i), value, detail))
    for i, value in enumerate(values or ()):
        value_problems = is_label_value(value)
        if value_problems:
            errs.append(invalid((*values_path, i), value, "; ".join(value_problems)))
    return errs


def _is_int64(text: str) -> bool:
    digits = text[1:] if text[:1] in ("+", "-") else text
    return digits.isascii() and digits.isdigit() and -(2**63) <= int(text) < 2**63


def _field_requirement(req: V1NodeSelectorRequirement, path: FieldPath) -> list[FieldError]:
    if req.operator not in FIELD_OPERATORS:
        return [not_supported((*path, "operator"), req.operator, FIELD_OPERATORS)]
    if len(req.values or ()) != 1:
        return [invalid((*path, "values"), go_string_slice(req.values), "must have one element")]
    return []


def _term(term: V1NodeSelectorTerm, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    for j, req in enumerate(term.match_expressions or ()):
        errs += _label_requirement(req, (*path, "matchExpressions", j))
    for j, req in enumerate(term.match_fields or ()):
        errs += _field_requirement(req, (*path, "matchFields", j))
    return errs


def node_affinity(path: FieldPath, args: m.NodeAffinityArgs) -> list[FieldError]:
    affinity = args.added_affinity
    if affinity is None:
        return []
    errs: list[FieldError] = []
    p = (*path, "addedAffinity")
    selector = affinity.required_during_scheduling_ignored_during_execution
    if selector is not None:
        terms_path = (*p, "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
        for i, term in enumerate(selector.node_selector_terms or ()):
            errs += _term(term, (*terms_path, i))
    preferred_path = (*p, "preferredDuringSchedulingIgnoredDuringExecution")
    for i, preferred in enumerate(affinity.preferred_during_scheduling_ignored_during_execution or ()):
        # A term of weight 0 is never parsed, so never refused.
        if preferred.weight:
            errs += _term(preferred.preference, (*preferred_path, i, "preference"))
    return errs
