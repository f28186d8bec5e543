"""The `kubefit` command line.

Results go to stdout, logs and problems to stderr. Exit codes: 0 everything fits
(or is valid), 1 something does not fit or an expression failed at run time (the
answer is still printed), 2 bad input (one line per problem, nothing else),
3 an internal error (a bug in kubefit; rerun with -v for the traceback).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import importlib
import logging
import math
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from . import background_validation, gate_options
from .model.errors import MAX_PROBLEMS, InputError, KubefitError, Problem, one_line, too_many
from .model.features import FeatureGates
from .model.terminal import escape, lines_text
from .output import FORMATS, default_format, emit, table, write
from .translate.reading import bounded_read, json_child

log = logging.getLogger("kubefit")

EXIT_OK, EXIT_NO_FIT, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as bad input (exit 2) in one line."""

    def error(self, message: str) -> Any:
        raise InputError(f"{self.prog}: {message}")


def _common(
    parser: argparse.ArgumentParser,
    formats: Sequence[str] = FORMATS,
    wide: str = "the table and, per pod, the nodes ranked with every plugin's score",
) -> None:
    parser.add_argument(
        "-f",
        "--filename",
        action="append",
        required=True,
        metavar="PATH",
        help="file, directory (recursive) or - for stdin; repeatable",
    )
    parser.add_argument(
        "-o",
        "--output",
        choices=formats,
        help="output format (table on a terminal, else yaml)"
        + (f"; wide: {wide}" if "wide" in formats else ""),
    )
    gate_options.add_options(parser)
    parser.add_argument("--strict", action="store_true", help="unknown fields are errors, not warnings")
    _input_limits(parser)


def _input_limits(parser: argparse.ArgumentParser, objects: bool = True) -> None:
    parser.add_argument(
        "--max-input-bytes",
        type=_byte_count,
        default=None,
        metavar="N",
        help="the most bytes kubefit reads from one input, and from all the -f inputs together (default "
        "1Gi; suffixes Ki, Mi, Gi, Ti, k, M, G, T)",
    )
    if objects:
        parser.add_argument(
            "--max-objects",
            type=_object_count,
            default=None,
            metavar="N",
            help="the most objects (documents and List items) kubefit reads in all (default 200000)",
        )


def _object_count(text: str) -> int:
    if not (text.isascii() and text.isdigit() and 0 < len(text) < 10 and int(text) > 0):
        raise argparse.ArgumentTypeError(f"{text}: a number of objects, at least 1")
    return int(text)


_SIZE_SUFFIXES = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_SIZE_SUFFIXES.update({"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40})


def _byte_count(text: str) -> int:
    digits = text.rstrip("KMGTikmgt")
    unit = _SIZE_SUFFIXES.get(text[len(digits) :])
    if unit is None or not digits.isascii() or not digits.isdigit() or len(digits) > 15 or int(digits) < 1:
        raise argparse.ArgumentTypeError(
            f"{text}: a number of bytes, at least 1 (suffixes Ki, Mi, Gi, Ti, k, M, G, T)"
        )
    return int(digits) * unit


def _seconds(text: str) -> float:
    """A --time-limit: a finite number of seconds, at least 0 (0: answer at once; NaN or infinity would
    reach the solvers' budgets)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"{text}: a number of seconds, at least 0")
    return value


def _positive_seconds(text: str) -> float:
    """A planner's --time-limit: the plan needs some search (kube-scheduler's placement it starts from takes
    time too), so more than 0 seconds."""
    try:
        value = _seconds(text)
    except argparse.ArgumentTypeError:
        value = 0.0
    if value == 0:
        raise argparse.ArgumentTypeError(f"{text}: a positive number of seconds")
    return value


def _timestamp(text: str) -> float:
    """--now: an RFC 3339 time (as Kubernetes writes timestamps), in seconds since the epoch."""
    import datetime as dt

    try:
        value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: an RFC 3339 time, e.g. 2026-01-02T15:04:05Z") from None
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text}: an RFC 3339 time with its zone, e.g. 2026-01-02T15:04:05Z")
    return value.timestamp()


def _scheduler_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scheduler-name",
        metavar="NAME",
        help="schedule every pending pod with this profile of the KubeSchedulerConfiguration (default: the "
        "profile each pod's spec.schedulerName names)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="pick among equally scored nodes at random as kube-scheduler does, reproducibly (default: the "
        "first of them in the order the scheduler evaluated the nodes)",
    )
    parser.add_argument(
        "--now",
        type=_timestamp,
        metavar="TIME",
        help="judge the binding timeouts of allocated claims at this RFC 3339 time, e.g. the time the "
        "objects were dumped (default: the clock's)",
    )


def _plan_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--objective",
        default="pack",
        choices=("pack", "spread", "scheduler"),
        help="after the most pods: pack (fewest GPUs and nodes touched, default), spread, or scheduler "
        "(kube-scheduler's scores)",
    )
    parser.add_argument(
        "--time-limit",
        type=_positive_seconds,
        default=60.0,
        metavar="SECONDS",
        help="one budget for everything after reading, more than 0 seconds (default 60): kube-scheduler's "
        "pass first, then the model, checking and explanations; when it runs out the answer is the better of "
        "the two placements so far, feasible with the proven bound",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="CP-SAT workers, 1 to 256 (1: deterministic; default 1)"
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress on stderr (default: when stderr is a terminal)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="kubefit",
        description="Exact answers, with reasons, to Kubernetes resource-allocation questions.",
    )
    parser.add_argument(
        "--version", action=gate_options.VersionAction, nargs=0, help="print the version and exit"
    )
    gate_options.add_options(parser, top_level=True)
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log to stderr (-vv for debug)")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)

    p = verbs.add_parser(
        "validate",
        help="are these objects valid (schema, API validation, CEL)?",
        description="Check objects as the API server would before accepting them.",
    )
    _common(p)
    p.set_defaults(run=cmd_validate)

    p = verbs.add_parser(
        "devices",
        help="which devices exist, and which does a class / selector select?",
        description="List the devices of the ResourceSlices; with --class and/or --selector, "
        "evaluate them on every device as the allocator does.",
    )
    _common(p)
    p.add_argument("--node", help="only devices this node can use")
    p.add_argument("--class", dest="device_class", metavar="NAME", help="a DeviceClass whose selectors apply")
    p.add_argument(
        "--selector",
        action="append",
        default=[],
        metavar="CEL",
        help="a request selector (CEL); repeatable, all must match",
    )
    p.set_defaults(run=cmd_devices)

    p = verbs.add_parser(
        "allocate",
        help="schedule pending pods and allocate their claims, as kube-scheduler would",
        description="Schedule each pending pod as kube-scheduler does (or allocate the named claims "
        "together, or the unallocated claims together) and print the pods with spec.nodeName and the "
        "scheduler's decision in kubefit.io/* annotations, and the claims with status.allocation. Pods "
        "go one at a time in queue order: priority, then creation (pods without a creationTimestamp "
        "count as created now, in input order); each goes to the best-scored node among those its "
        "profile's filters accept (ties: the first the cycle evaluated, or at random with --seed), "
        "and may preempt lower-priority pods when none does. Exit 0 when everything was placed, 1 when "
        "something was not (or could not be decided within --steps/--time-limit: the answer then says "
        "'undecided', never that it does not fit).",
    )
    _common(p, (*FORMATS, "wide"))
    p.add_argument("--node", help="allocate on this node only (default: every node, as kube-scheduler)")
    p.add_argument(
        "--claims", help="comma-separated claims ([namespace/]name) to allocate together, in order"
    )
    p.add_argument(
        "--engine",
        default="greedy",
        help="greedy (what Kubernetes does), cpsat (exact, proves its answers) or asp (clingo over rules/)",
    )
    p.add_argument(
        "--objective",
        choices=["first-fit", "pack", "spread", "prefer-lower-alternatives"],
        help="cpsat: which allocation to prefer (default first-fit, the one Kubernetes picks)",
    )
    p.add_argument(
        "--dump-model",
        metavar="FILE",
        help="cpsat: write the CP-SAT model (text when FILE ends in .txt; further nodes numbered beside it)",
    )
    p.add_argument(
        "--steps",
        type=int,
        default=1_000_000,
        metavar="N",
        help="search steps per node before answering unknown (default 1000000)",
    )
    p.add_argument(
        "--time-limit",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="wall-clock budget for the whole run before answering unknown",
    )
    _scheduler_options(p)
    p.add_argument(
        "--explain",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="after the scheduler's own message, FailedScheduling events carry explain's summary of the "
        "reasons per node (default; --no-explain skips the search for minimal reasons on every node)",
    )
    p.set_defaults(run=cmd_allocate)

    p = verbs.add_parser(
        "explain",
        help="why a pod or claims cannot be placed: per node, minimal reasons",
        description="For every pending pod (or the named claims) that cannot be placed, and every node "
        "the scheduler considers, a minimal set of reasons: removing any one of them makes the rest "
        "satisfiable. Pods that fit say where, with their allocation. With --node N whose NodeTopology is in "
        "the input, the pods bound to N are explained as its kubelet admits them: the kubelet's reason and a "
        "minimal set of reasons in its terms. Exit 1 when something does not fit.",
    )
    _common(p)
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--pod", metavar="[NAMESPACE/]NAME", help="explain this pod only (pending, or bound to --node)"
    )
    who.add_argument(
        "--claims", help="comma-separated claims ([namespace/]name) allocated together, in order"
    )
    p.add_argument("--node", help="consider this node only")
    p.add_argument("--engine", default="greedy", help="the engine that places the pods before them")
    _scheduler_options(p)
    p.add_argument(
        "--time-limit",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="budget for the reasons; where it stops them early they are reported with minimal: false",
    )
    p.add_argument("--steps", type=int, default=1_000_000, metavar="N", help="search steps per node (greedy)")
    p.add_argument(
        "--cpu-manager-state",
        metavar="FILE",
        help="with --node N and its NodeTopology: the kubelet's cpu_manager_state, for the pods bound to N",
    )
    p.add_argument(
        "--memory-manager-state", metavar="FILE", help="likewise, the kubelet's memory_manager_state"
    )
    p.set_defaults(run=cmd_explain)

    p = verbs.add_parser(
        "admit",
        help="would the kubelet admit this pod, with which CPUs / NUMA nodes / memory?",
        description="Admit pods on one node as the kubelet's CPU, memory and topology managers do "
        "(without --pod: every pod bound to the node, in order).",
    )
    _common(p)
    p.add_argument("--node", required=True, help="the node (its NodeTopology and KubeletConfiguration)")
    p.add_argument("--pod", metavar="[NAMESPACE/]NAME", help="the pod to admit (default: the node's pods)")
    p.add_argument("--cpu-manager-state", metavar="FILE", help="the kubelet's cpu_manager_state checkpoint")
    p.add_argument("--memory-manager-state", metavar="FILE", help="the kubelet's memory_manager_state file")
    p.add_argument(
        "--engine",
        default="greedy",
        help="greedy (what the kubelet does), cpsat (the kubelet's rules, each pod placed by its criteria) "
        "or asp (the kubelet's rules in rules/node, solved by clingo: the kubelet's verdicts, each admitted "
        "pod placed by the same criteria)",
    )
    p.add_argument(
        "--time-limit",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="cpsat, asp: wall-clock budget for the whole run (default 60); a pod still undecided then is "
        "reported as Unknown, never as not fitting",
    )
    p.add_argument("--write-state", metavar="DIR", help="write the checkpoint files after admission into DIR")
    p.set_defaults(run=cmd_admit)

    p = verbs.add_parser(
        "topology",
        help="print the NodeTopology of a machine (Linux sysfs or cAdvisor machine info)",
        description="Read a machine's CPU, NUMA, cache and memory layout and print it as a NodeTopology.",
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--from-sysfs", nargs="?", const="/", metavar="ROOT", help="read ROOT/sys/devices/system (default /)"
    )
    source.add_argument("--from-cadvisor", metavar="FILE", help="the kubelet's /spec machine info (JSON)")
    p.add_argument("--name", help="metadata.name of the NodeTopology (default: the host name)")
    _input_limits(p, objects=False)
    p.add_argument("-o", "--output", choices=FORMATS, help="output format (yaml unless json)")
    gate_options.add_options(p)  # accepted as on every verb: a machine's topology has no gates
    p.set_defaults(run=cmd_topology)

    p = verbs.add_parser(
        "plan",
        help="place a whole batch of pending pods at once; how many nodes to add",
        description="Plan every pending pod at once: the most pods placed (a higher priority first), then "
        "the objective. --engine greedy is kube-scheduler's own placement, one pod at a time. With "
        "--node-template: the fewest copies of that node to add so every pod fits (proven), or with "
        "--max-new-nodes the most pods that many copies place. Exit 1 when some pod stays pending.",
    )
    _common(p, (*FORMATS, "wide"), "the summary, then every pod with its node and devices or why it waits")
    _plan_options(p)
    p.add_argument("--engine", default="cpsat", choices=("greedy", "cpsat"), help="default cpsat")
    p.add_argument("--node-template", metavar="FILE", help="a Node with its ResourceSlices, to add copies of")
    p.add_argument(
        "--max-new-nodes", type=int, metavar="N", help="at most N copies of the template (0 to 256)"
    )
    p.add_argument(
        "--min-priority", type=int, metavar="P", help="capacity planning: only pods of priority >= P must fit"
    )
    p.set_defaults(run=cmd_plan)

    p = verbs.add_parser(
        "compare",
        help="kube-scheduler's placement beside the batch plan (table, JSON, HTML picture)",
        description="Place the pending pods with two engines (greedy: kube-scheduler; cpsat: the batch "
        "planner) and compare: pods placed, nodes and devices touched, fragmentation, the pods only one "
        "places and why the other left each pending. -o html: one self-contained page with every GPU.",
    )
    _common(p, (*FORMATS, "html"))
    _plan_options(p)
    p.add_argument("--engines", default="greedy,cpsat", help="two of greedy, cpsat (default greedy,cpsat)")
    p.set_defaults(run=cmd_compare)

    p = verbs.add_parser(
        "taints",
        help="DeviceTaintRule status and pod eviction, as the device taint eviction controller decides",
        description="Every DeviceTaintRule with the EvictionInProgress condition kube-controller-manager "
        "writes (effect None: the dry run's counts), and every pod evicted by a NoExecute taint of a rule "
        "or a ResourceSlice, with when (timeAdded plus tolerationSeconds) and why. Exit 1 when pods are "
        "pending eviction.",
    )
    _common(p)
    p.add_argument("--rule", metavar="NAME", help="this DeviceTaintRule only, and the pods it evicts")
    p.set_defaults(run=cmd_taints)

    p = verbs.add_parser(
        "pools",
        help="what is left in each resource pool (ResourcePoolStatusRequest status), with exact allocatable",
        description="Per pool, the status kube-controller-manager writes for a ResourcePoolStatusRequest: "
        "total, allocated, available and unavailable devices (with why), the shareable capacity, and per "
        "partition type how many more devices can be allocated at the same time, solved exactly from the "
        "counters left, compatibility groups and taints (not estimated). -o json/yaml prints a List with one "
        "ResourcePoolStatusRequest per pool.",
    )
    _common(p)
    p.add_argument("--driver", metavar="D", help="pools of this driver only (default: every driver)")
    p.add_argument("--pool", metavar="P", help="this pool only")
    p.add_argument("--limit", type=int, metavar="N", help="at most N pools (default 100, at most 1000)")
    p.add_argument(
        "--default-partition-type-attribute",
        metavar="ATTR",
        help="group partitions by this attribute (domain/name) where their slice declares no "
        "partitionTypeAttribute",
    )
    p.set_defaults(run=cmd_pools)

    gate_options.add_verb(verbs)
    return parser


# --- shared steps ---------------------------------------------------------------------------------------


def _gates(args: argparse.Namespace) -> FeatureGates:
    return gate_options.gates_of(args)


def _format(args: argparse.Namespace) -> str:
    return args.output or default_format()


def _warn(problems: Sequence[Problem]) -> None:
    for p in problems:
        print(str(p), file=sys.stderr)


_CONFIG_KINDS = ("KubeSchedulerConfiguration/", "KubeletConfiguration/", "NodeTopology/")


_KEPT: list[Any] = []


def _keep(*values: Any) -> None:
    """In a process of its own, what a verb built (the objects, the problem, the solution) is left for
    the process's end (`run` ends it without freeing anything) instead of being freed object by
    object as the verb returns: a twentieth of a second on a 500-node cluster."""
    if _OWN_PROCESS:
        _KEPT.extend(values)


def _collect_no_more() -> None:
    """In a process of its own, a verb that answers once and ends (allocate, explain) makes what lives
    until the end (the problem, its facts, the search's states), without cycles to speak of: the cyclic
    collector's scans of it (a twentieth of a second on a 500-node cluster) would free nothing. The
    memory a 1,000-pod run of the scheduler peaks at is the same with it off."""
    if _OWN_PROCESS:
        gc.disable()


def _scheduling_imports() -> Iterator[None]:
    """What scheduling imports on its way (the scheduler's plugins, preemption, CEL's libraries), a
    module at a time: done while the input's reading child is waited for, if it is."""
    from .solver.cluster.plugins import REGISTRY, plugin_class
    from .translate.cel.environment import base_libraries

    for name in REGISTRY:
        plugin_class(name)
        yield
    importlib.import_module(f"{__package__}.solver.cluster.preemption")
    yield
    base_libraries()
    yield


def load_valid(
    args: argparse.Namespace,
    gates: FeatureGates,
    api_problems_are_errors: bool = True,
    meanwhile: Iterable[object] = (),
) -> Any:
    """Load and validate the input. Schema problems are always bad input; what only API validation
    refuses is too, unless the verb answers as the scheduler would for objects already stored (then
    it is a warning, and --strict makes it an error). In a process of its own, a large input is
    validated in a child while the verb goes on: the verb calls `background_validation.settle`
    before it shows anything."""
    from .translate import disabled_fields
    from .translate.loader import load

    try:
        objects = load(args.filename, strict=args.strict, meanwhile=meanwhile)
    except BaseException:
        json_child.finish()
        raise
    gated, dropped = disabled_fields.apply(objects, gates, args.strict)
    objects.warnings += gated
    # The files are read: the child that read them goes on only to validate these very objects (not
    # when some were read again without fields their gates drop: they are validated here).
    then = _after_reading if not dropped else None
    reading = json_child.after(then if then and then.matches(args.filename, args.strict, gates) else None)
    if _OWN_PROCESS:
        gc.freeze()  # what was loaded lives until the end: keep the collector from scanning it again
    _keep(objects)
    _warn(objects.warnings)

    def finish(problems: list[Problem]) -> None:
        _api_problems(problems, args, api_problems_are_errors)

    if reading is not None:
        assert then is not None
        background_validation.adopt(reading, objects, gates, finish, then.progress)
        return objects
    forked = _OWN_PROCESS and background_validation.wanted(len(objects))
    if not (forked and background_validation.start(objects, gates, finish)):
        from .translate.validation.run import validate_objects

        finish(validate_objects(objects, gates))
    return objects


def _api_problems(problems: list[Problem], args: argparse.Namespace, api_problems_are_errors: bool) -> None:
    if problems and (api_problems_are_errors or args.strict):
        raise InputError(problems)
    # Configurations are not stored objects: a component refuses to start with one it does not accept;
    # nor is a machine's topology, and no kubelet runs on one that cannot be (a CPU listed twice). No
    # stored object has what no API server ever accepted (a negative request, a fractional pod count):
    # an answer computed from it would be one no cluster gives.
    refused = [p for p in problems if p.unstorable or p.obj.startswith(_CONFIG_KINDS)]
    if refused:
        raise InputError(refused)
    if problems:
        more = [too_many("warnings", warning=True)] if len(problems) > MAX_PROBLEMS else []
        _warn([*(dataclasses.replace(p, warning=True) for p in problems[:MAX_PROBLEMS]), *more])
        log.warning(
            "the API server would refuse the objects above; answering as the scheduler would if they "
            "were stored (--strict stops here instead)"
        )


# --- verbs ----------------------------------------------------------------------------------------------


def cmd_validate(args: argparse.Namespace) -> int:
    from .translate import disabled_fields
    from .translate.loader import load
    from .translate.validation.pool_slices import pool_slice_warnings
    from .translate.validation.run import validate_objects

    gates = _gates(args)
    fmt = _format(args)
    objects: Any = []
    unchecked: set[str] = set()
    try:
        loaded = load(args.filename, strict=args.strict)
        gated, _ = disabled_fields.apply(loaded, gates, args.strict)
        objects = list(loaded)
        warnings = [*loaded.warnings, *gated, *pool_slice_warnings(objects)]
        problems = validate_objects(loaded, gates)
        if len(problems) > MAX_PROBLEMS:
            # Validation stopped at the object of the last problem: the objects after it are unchecked.
            last = max(i for i, o in enumerate(objects) if o.ref == problems[-1].obj)
            unchecked = {o.ref for o in objects[last + 1 :]}
            problems = InputError(problems).problems
    except InputError as e:
        warnings, problems = [], e.problems
    errors_by_object: dict[str, int] = {}
    for p in problems:
        errors_by_object[p.obj] = errors_by_object.get(p.obj, 0) + 1
    report = {
        "apiVersion": "kubefit.io/v1alpha1",
        "kind": "ValidationReport",
        "valid": not problems,
        "objects": [
            {
                "apiVersion": o.written_api_version,
                "kind": o.kind,
                "namespace": o.namespace or None,
                "name": o.name,
                "file": o.file,
                "line": o.line,
                # (an object validation did not reach, past MAX_PROBLEMS problems, is neither)
                "valid": None if o.ref in unchecked else o.ref not in errors_by_object,
                **({"checked": False} if o.ref in unchecked else {}),
            }
            for o in objects
        ],
        "problems": [
            {
                "severity": "warning" if p.warning else "error",
                "file": p.file,
                "line": p.line,
                "object": p.obj,
                "path": _path_text(p),
                "message": p.message,
            }
            for p in [*problems, *warnings]
        ],
    }
    for key in ("objects", "problems"):
        for item in report[key]:  # type: ignore[attr-defined]
            for k in [k for k, v in item.items() if v is None]:
                del item[k]
    _warn(warnings)
    _warn(problems)
    rows = [
        [
            o.kind,
            o.namespace,
            o.name,
            f"{o.file}:{o.line}",
            "invalid" if o.ref in errors_by_object else "unchecked" if o.ref in unchecked else "valid",
        ]
        for o in objects
    ]
    text = table(["KIND", "NAMESPACE", "NAME", "SOURCE", "STATUS"], rows) if rows else ""
    emit(report, fmt, text)
    return EXIT_BAD_INPUT if problems else EXIT_OK


def _path_text(p: Problem) -> str:
    from .model.errors import format_path

    return format_path(p.path)


def _short(mapping: dict[str, str], limit: int = 70) -> str:
    text = ",".join(f"{k}={v}" for k, v in mapping.items())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _attribute_text(attr: Any) -> str:
    for name in ("string", "int", "bool", "version"):
        value = getattr(attr, name, None)
        if value is not None:
            return str(value).lower() if isinstance(value, bool) else str(value)
    for name in ("strings", "ints", "bools", "versions"):
        value = getattr(attr, name, None)
        if value is not None:
            return "[" + ";".join(str(v) for v in value) + "]"
    return "?"


def cmd_devices(args: argparse.Namespace) -> int:
    from .translate import inventory
    from .translate.cel.selector import NEW
    from .translate.selection import SelectorSource, class_selectors, select
    from .translate.validation.run import cel_features

    gates = _gates(args)
    objects = load_valid(args, gates)
    if args.node is not None and objects.get("Node", args.node) is None:
        log.warning("node %s is not in the input: node selectors are matched against no labels", args.node)
    sources = []
    if args.device_class:
        device_class = objects.get("DeviceClass", args.device_class)
        if device_class is None:
            raise InputError(
                f"--class: could not retrieve device class {args.device_class} (not in the input)"
            )
        sources += class_selectors(device_class.model)
    sources += [SelectorSource(expr, f"--selector #{i}", NEW) for i, expr in enumerate(args.selector)]
    entries = inventory.devices(objects, args.node)
    selections = select(entries, sources, cel_features(gates), gates)
    _keep(entries, selections)
    filtering = bool(sources)
    items = []
    rows = []
    for s in selections:
        e = s.entry
        attributes = {k: _attribute_text(v) for k, v in (e.device.attributes or {}).items()}
        capacity = {k: v.value for k, v in (e.device.capacity or {}).items()}
        item: dict[str, Any] = {
            "driver": e.driver,
            "pool": e.pool,
            "device": e.name,
            "nodeName": e.node_name,
            "selected": s.selected,
            "error": s.error,
            "slice": e.slice.name,
            "attributes": attributes,
            "capacity": capacity,
        }
        if s.reason:
            item["reason"] = s.reason
        items.append(item)
        row = [e.driver, e.pool, e.name, e.placement(), _short(attributes), _short(capacity, 40)]
        if filtering:
            row.append("error" if s.error else ("yes" if s.selected else "no"))
        rows.append(row)
    headers = ["DRIVER", "POOL", "DEVICE", "NODE", "ATTRIBUTES", "CAPACITY"] + (
        ["SELECTED"] if filtering else []
    )
    text = table(headers, rows) if rows else "No devices.\n"
    errors = [s.error for s in selections if s.error]
    if filtering and _format(args) == "table":
        chosen = sum(s.selected for s in selections)
        text += f"\n{chosen} of {len(selections)} devices selected\n"
    background_validation.settle()
    emit({"apiVersion": "kubefit.io/v1alpha1", "kind": "DeviceList", "items": items}, _format(args), text)
    for message in errors:
        print(escape(message), file=sys.stderr)
    return EXIT_NO_FIT if errors else EXIT_OK


def cmd_allocate(args: argparse.Namespace) -> int:
    from .app.render import render_list
    from .model.solution import Status
    from .solver import engines
    from .translate.dra.build import build

    gates = _gates(args)
    objects = load_valid(args, gates, api_problems_are_errors=False, meanwhile=_scheduling_imports())
    _collect_no_more()
    claims = [c.strip() for c in args.claims.split(",") if c.strip()] if args.claims else None
    built = build(objects, gates, args.node, claims, args.seed, args.scheduler_name, args.now)
    options = {"objective": args.objective, "dump_model": args.dump_model}
    engine = engines.get(args.engine, **{k: v for k, v in options.items() if v})
    engines.check_supported(engine, built.problem)
    solution = engine.solve(built.problem, engines.Budget(args.steps, args.time_limit))
    _keep(built, solution)
    messages = None
    if args.explain:
        # Only units proven not to fit: an allocator error already says exactly what stopped it, and
        # a unit the budget left undecided would only spend the budget again.
        failed = frozenset(o.unit for o in solution.units if o.status == Status.UNSATISFIABLE)
        if failed:
            from .solver.explain import Options, explain

            why = Options(args.time_limit, args.steps, failed)
            messages = {u.unit: u.summary for u in explain(built, solution, why) if not u.fits}
    doc = render_list(built, solution, messages, lazy=True)  # made as it is written, if it is
    fmt = _format(args)
    text = allocation_table(built, solution, messages)
    if fmt == "wide":
        from .solver.cluster.report import scores_text

        text += scores_text(built.problem, solution)
    background_validation.settle()
    emit(doc, "table" if fmt == "wide" else fmt, text)
    for unit in solution.units:
        if unit.status != Status.ALLOCATED:
            log.info("%s: %s", built.problem.units[unit.unit].name, unit.message)
    return EXIT_OK if solution.status == Status.ALLOCATED else EXIT_NO_FIT


def cmd_explain(args: argparse.Namespace) -> int:
    from .solver import engines
    from .solver.explain import Options, document, explain, text
    from .translate.dra.build import build

    gates = _gates(args)
    objects = load_valid(args, gates, api_problems_are_errors=False, meanwhile=_scheduling_imports())
    _collect_no_more()
    bound = _bound_pods(args, objects, gates)
    if bound is not None:
        # The kubelet's side (and CP-SAT with it) is imported only for a node whose kubelet is described.
        from .solver.explain.admission_render import items as admission_items
        from .solver.explain.admission_render import text as admission_text
    if bound is not None and args.pod:
        node_doc = {
            "apiVersion": "kubefit.io/v1alpha1",
            "kind": "Explanation",
            "items": admission_items(bound),
        }
        background_validation.settle()
        emit(node_doc, _format(args), admission_text(bound))
        return EXIT_OK if all(p.admitted for p in bound) else EXIT_NO_FIT
    claims = [c.strip() for c in args.claims.split(",") if c.strip()] if args.claims else None
    built = build(objects, gates, args.node, claims, args.seed, args.scheduler_name, args.now)
    problem = built.problem
    wanted = None
    if args.pod:
        wanted = frozenset(u.id for u in problem.units if args.pod in (u.pod, u.pod.partition("/")[2]))
        if not wanted:
            raise InputError(f"--pod {args.pod}: no pending pod of that name")
    engine = engines.get(args.engine)
    engines.check_supported(engine, problem)
    solution = engine.solve(problem, engines.Budget(args.steps))
    units = explain(built, solution, Options(args.time_limit, args.steps, wanted))
    _keep(built, solution, units)
    doc = document(problem, units)
    out = text(problem, units)
    fits = all(u.fits for u in units)
    if bound is not None:
        # The node's pods as its kubelet admits them, then the pending pods as the scheduler places them.
        doc["items"] = [*admission_items(bound), *doc["items"]]
        out = admission_text(bound) + ("\n" + out if units else "")
        fits = fits and all(p.admitted for p in bound)
    background_validation.settle()
    emit(doc, _format(args), out)
    return EXIT_OK if fits else EXIT_NO_FIT


def _bound_pods(args: argparse.Namespace, objects: Any, gates: FeatureGates) -> list[Any] | None:
    """With --node N whose kubelet the input describes (its NodeTopology, as for `admit`): the pods bound
    to N (or --pod, when it is bound to N) explained as the kubelet admits them; None otherwise."""
    from .app.explain_bound import bound_to, has_kubelet

    if not args.node or args.claims or not has_kubelet(objects, args.node):
        return None
    if args.pod and not bound_to(objects, args.node, args.pod):
        return None
    from .app.explain_node import explain_admissions
    from .translate.node.build import StateFiles

    files = StateFiles(args.cpu_manager_state, args.memory_manager_state)
    return explain_admissions(objects, gates, args.node, args.pod, files, args.time_limit)


def allocation_table(built: Any, solution: Any, summaries: dict[int, str] | None = None) -> str:
    from .app.render import with_summary
    from .solver.cluster.report import evictions

    problem = built.problem
    rows = []
    # A pod placed and preempted later in the run is listed with the other pods preempted.
    gone = {e.victim.key for e in solution.evictions}
    for outcome in solution.units:
        unit = problem.units[outcome.unit]
        if unit.pod and unit.pod in gone:
            continue
        if not outcome.allocations:
            rows.append([unit.name, str(outcome.status), outcome.node or "-", "-", "-", "-"])
        for allocation in outcome.allocations:
            claim = problem.claims[allocation.claim]
            for r in allocation.results or ():
                device = problem.devices[r.device]
                rows.append(
                    [
                        unit.name,
                        str(outcome.status),
                        outcome.node,
                        claim.ref,
                        r.request,
                        f"{device.driver}/{device.pool}/{device.name}",
                    ]
                )
    evicted, lines = evictions(solution)
    text = table(["UNIT", "STATUS", "NODE", "CLAIM", "REQUEST", "DEVICE"], rows + evicted)
    messages = [
        f"{problem.units[o.unit].name}: {with_summary(o.message, (summaries or {}).get(o.unit))}"
        for o in solution.units
        if o.message and problem.units[o.unit].pod not in gone
    ]
    messages += lines
    # Where greedy gave up and another engine settled it, say who decided (as the YAML annotates).
    messages += [
        f"{problem.units[o.unit].name}: decided by {o.decided_by}" + (f": {o.note}" if o.note else "")
        for o in solution.units
        if o.decided_by
    ]
    return text + ("\n" + lines_text(messages) if messages else "")


def cmd_admit(args: argparse.Namespace) -> int:
    from .app.admit import admission_table, render, write_state
    from .solver.node import engines as node_engines
    from .translate.node.build import StateFiles, build

    gates = _gates(args)
    # A kubelet refuses to start with a configuration (or on a machine) it does not accept; the pods it
    # admits come from the API server, so, as for the scheduler's verbs, what only API validation
    # refuses is a warning (the kubelet's own tests name containers `fakeContainer3`) unless it is
    # unstorable (a negative request): see _api_problems.
    objects = load_valid(args, gates, api_problems_are_errors=False)
    options = (
        {"time_limit": args.time_limit}
        if args.engine in ("cpsat", "asp") and args.time_limit is not None
        else {}
    )
    engine = node_engines.get(args.engine, **options)
    files = StateFiles(args.cpu_manager_state, args.memory_manager_state)
    problem = build(objects, gates, args.node, args.pod, files)
    solution = engine.admit(problem)
    background_validation.settle()
    # Before the answer: a state that cannot be written is bad input, and then nothing is shown.
    if args.write_state:
        for path in write_state(args.write_state, solution):
            log.info("wrote %s", path)
    emit(render(args.node, solution, single=args.pod is not None), _format(args), admission_table(solution))
    return EXIT_OK if all(a.admitted for a in solution.reported) else EXIT_NO_FIT


def cmd_topology(args: argparse.Namespace) -> int:
    from .translate.node.sources import from_cadvisor, from_sysfs

    if args.from_cadvisor:
        doc = from_cadvisor(args.from_cadvisor, args.name)
    else:
        doc = from_sysfs(args.from_sysfs, args.name)
    emit(doc, "json" if args.output == "json" else "yaml")
    return EXIT_OK


def _plan_builder(args: argparse.Namespace) -> Any:
    from .translate.dra.build import build

    gates = _gates(args)

    def make(paths: list[str]) -> Any:
        objects = load_valid(argparse.Namespace(**{**vars(args), "filename": paths}), gates, False)
        built = build(objects, gates, None, None, None, None)
        _keep(built)
        background_validation.settle()  # the planner shows its progress from here on
        return built

    return make


def cmd_plan(args: argparse.Namespace) -> int:
    from .app.plan import run_plan

    fmt = _format(args)
    doc, text, placed = run_plan(args, _plan_builder(args), with_document=fmt in ("json", "yaml"))
    emit(doc, "table" if fmt == "wide" else fmt, text)
    return EXIT_OK if placed else EXIT_NO_FIT


def cmd_compare(args: argparse.Namespace) -> int:
    from .app.plan import run_compare

    doc, text, html = run_compare(args, _plan_builder(args))
    if _format(args) == "html":
        write(sys.stdout, html)
    else:
        emit(doc, _format(args), text)
    return EXIT_OK


def cmd_taints(args: argparse.Namespace) -> int:
    from .app import taints as render
    from .solver.taints import report
    from .translate.dra.taint_eviction import eviction_facts

    gates = _gates(args)
    # The controller works on stored objects: what only API validation refuses is a warning (--strict: error).
    objects = load_valid(args, gates, api_problems_are_errors=False)
    answer = report(eviction_facts(objects, gates), args.rule)
    background_validation.settle()
    emit(render.document(answer, objects), _format(args), render.text(answer))
    return EXIT_NO_FIT if answer.evictions else EXIT_OK


def cmd_pools(args: argparse.Namespace) -> int:
    from .app.pools import pool_request, report

    gates = _gates(args)
    request = pool_request(args.driver, args.pool, args.limit, args.default_partition_type_attribute)
    # The controller reads stored objects: what only API validation refuses is a warning (--strict: error).
    objects = load_valid(args, gates, api_problems_are_errors=False)
    doc, text = report(objects, gates, request)
    background_validation.settle()
    emit(doc, _format(args), text)
    return EXIT_OK


# --- entry point ----------------------------------------------------------------------------------------


def _tune_gc() -> None:
    """Objects of a large cluster are millions of small, long-lived, acyclic containers: with the
    default thresholds the cyclic collector rescans them again and again (4x the loading time of a
    500-node dump), so collect rarely. A run is one short-lived process."""
    gen0, _, _ = gc.get_threshold()
    if gen0 < 100_000:
        gc.set_threshold(100_000, 50, 100)


# The command line's process, not a caller's library use: the loaded objects are frozen (they live
# until the end) and large inputs are validated in a child.
_OWN_PROCESS = False
# What the child reading the input does next (see load_valid), if it reads it.
_after_reading: background_validation.AfterReading | None = None
# The verbs whose input is read and validated by load_valid (the validation is then the reading child's).
_LOADING_VERBS = frozenset(
    {cmd_devices, cmd_allocate, cmd_explain, cmd_admit, cmd_taints, cmd_pools, cmd_plan, cmd_compare}
)


def main(argv: Sequence[str] | None = None) -> int:
    global _OWN_PROCESS, _after_reading
    parser = build_parser()
    verbose = 0
    try:
        args = parser.parse_args(argv)
        verbose = args.verbose
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_EscapingFormatter("kubefit: %(levelname)s: %(message)s"))
        logging.basicConfig(level=logging.WARNING - 10 * min(verbose, 2), handlers=[handler])
        if not getattr(args, "run", None):
            parser.print_help(sys.stderr)
            return EXIT_BAD_INPUT
        bounded_read.configure(getattr(args, "max_input_bytes", None), getattr(args, "max_objects", None))
        # Every verb refuses a release kubefit does not carry or a gate it lacks, and warns about settings
        # the component would refuse to start with, before anything else (topology has no use for them).
        _gates(args)
        if argv is None:
            _OWN_PROCESS = True
            _tune_gc()
            if getattr(args, "filename", None):
                if args.run in _LOADING_VERBS:
                    strict = getattr(args, "strict", False)
                    _after_reading = background_validation.AfterReading(
                        tuple(args.filename), strict, _gates(args)
                    )
                json_child.start(args.filename, _after_reading)  # while the verb imports what it needs
        code: int = args.run(args)
        background_validation.settle()
        return code
    except KeyboardInterrupt:
        background_validation.abandon()
        print("kubefit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        background_validation.abandon()
        return EXIT_OK
    except Exception as e:
        return _failed(_validation_first(e), verbose)
    finally:
        json_child.finish()


class _EscapingFormatter(logging.Formatter):
    """Log lines quote the input: each is shown as one line, as problems are (see terminal)."""

    def format(self, record: logging.LogRecord) -> str:
        return escape(super().format(record))


def _validation_first(e: Exception) -> Exception:
    """What a run that validated first would have stopped with: the input's API problems, if they stop
    it, else (after their warnings) `e`."""
    try:
        background_validation.settle()
    except InputError as first:
        return first
    except Exception:
        pass  # the warnings could not even be written (the child is waited for all the same): `e` stands
    return e


def _failed(e: Exception, verbose: int) -> int:
    if isinstance(e, InputError):
        for problem in e.problems:
            print(str(problem), file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(e, KubefitError):
        print(escape(one_line(f"kubefit: {e}")), file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(e, BrokenPipeError):
        return EXIT_OK
    if verbose:  # a bug: say so in one line, the traceback only when asked
        raise e
    print(
        escape(f"kubefit: internal error: {type(e).__name__}: {e} (rerun with -v for the traceback)"),
        file=sys.stderr,
    )
    return EXIT_INTERNAL


def run() -> None:
    """The console script (and `python -m kubefit`): main, then the process ends without the
    interpreter's teardown, which frees every object of a large dump one by one (a tenth of a second
    after reading a 500-node cluster) for nobody. Everything kubefit writes is flushed first; files it
    writes are closed where they are written."""
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass  # the reader went away: main answers that as success
    logging.shutdown()
    os._exit(code)
