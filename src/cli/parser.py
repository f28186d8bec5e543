"""The command line's parser: the global options, then one subcommand per verb with its options (the
shared ones from `options`). What each verb runs is `verbs`'."""

from __future__ import annotations

import argparse

from ..output import FORMATS
from ..solver import registry
from . import gate_options
from .options import (
    Parser,
    common,
    engine,
    input_limits,
    input_path,
    plan_options,
    scheduler_options,
    time_limit,
)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="kubefit",
        description="Exact answers, with reasons, to Kubernetes resource-allocation questions.",
    )
    parser.add_argument(
        "--version", action=gate_options.VersionAction, nargs=0, help="print the version and exit"
    )
    gate_options.add_options(parser, top_level=True)
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log to stderr (-vv for debug)")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=Parser)

    p = verbs.add_parser(
        "validate",
        help="are these objects valid (schema, API validation, CEL)?",
        description="Check objects as the API server would before accepting them.",
    )
    common(p)

    p = verbs.add_parser(
        "devices",
        help="which devices exist, and which does a class / selector select?",
        description="List the devices of the ResourceSlices; with --class and/or --selector, "
        "evaluate them on every device as the allocator does.",
    )
    common(p)
    p.add_argument("--node", help="only devices this node can use")
    p.add_argument("--class", dest="device_class", metavar="NAME", help="a DeviceClass whose selectors apply")
    p.add_argument(
        "--selector",
        action="append",
        default=[],
        metavar="CEL",
        help="a request selector (CEL); repeatable, all must match",
    )

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
    common(p, (*FORMATS, "wide"))
    p.add_argument("--node", help="allocate on this node only (default: every node, as kube-scheduler)")
    p.add_argument(
        "--claims", help="comma-separated claims ([namespace/]name) to allocate together, in order"
    )
    engine(
        p,
        "greedy",
        "greedy (what Kubernetes does), cpsat (exact, proves its answers) or asp (clingo over rules/)",
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
    time_limit(p, "wall-clock budget for the whole run before answering unknown")
    scheduler_options(p)
    p.add_argument(
        "--explain",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="after the scheduler's own message, FailedScheduling events carry explain's summary of the "
        "reasons per node (default; --no-explain skips the search for minimal reasons on every node)",
    )

    p = verbs.add_parser(
        "explain",
        help="why a pod or claims cannot be placed: per node, minimal reasons",
        description="For every pending pod (or the named claims) that cannot be placed, and every node "
        "the scheduler considers, a minimal set of reasons: removing any one of them makes the rest "
        "satisfiable. Pods that fit say where, with their allocation. With --node N whose NodeTopology is in "
        "the input, the pods bound to N are explained as its kubelet admits them: the kubelet's reason and a "
        "minimal set of reasons in its terms. Exit 1 when something does not fit.",
    )
    common(p)
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--pod", metavar="[NAMESPACE/]NAME", help="explain this pod only (pending, or bound to --node)"
    )
    who.add_argument(
        "--claims", help="comma-separated claims ([namespace/]name) allocated together, in order"
    )
    p.add_argument("--node", help="consider this node only")
    engine(p, "greedy", "the engine that places the pods before them")
    scheduler_options(p)
    time_limit(p, "budget for the reasons; where it stops them early they are reported with minimal: false")
    p.add_argument("--steps", type=int, default=1_000_000, metavar="N", help="search steps per node (greedy)")
    p.add_argument(
        "--cpu-manager-state",
        metavar="FILE",
        help="with --node N and its NodeTopology: the kubelet's cpu_manager_state, for the pods bound to N",
    )
    p.add_argument(
        "--memory-manager-state", metavar="FILE", help="likewise, the kubelet's memory_manager_state"
    )

    p = verbs.add_parser(
        "admit",
        help="would the kubelet admit this pod, with which CPUs / NUMA nodes / memory?",
        description="Admit pods on one node as the kubelet's CPU, memory and topology managers do "
        "(without --pod: every pod bound to the node, in order).",
    )
    common(p)
    p.add_argument("--node", required=True, help="the node (its NodeTopology and KubeletConfiguration)")
    p.add_argument("--pod", metavar="[NAMESPACE/]NAME", help="the pod to admit (default: the node's pods)")
    p.add_argument("--cpu-manager-state", metavar="FILE", help="the kubelet's cpu_manager_state checkpoint")
    p.add_argument("--memory-manager-state", metavar="FILE", help="the kubelet's memory_manager_state file")
    engine(
        p,
        "greedy",
        "greedy (what the kubelet does), cpsat (the kubelet's rules, each pod placed by its criteria) "
        "or asp (the kubelet's rules in rules/node, solved by clingo: the kubelet's verdicts, each admitted "
        "pod placed by the same criteria)",
    )
    time_limit(
        p,
        "cpsat, asp: wall-clock budget for the whole run (default 60); a pod still undecided then is "
        "reported as Unknown, never as not fitting",
    )
    p.add_argument("--write-state", metavar="DIR", help="write the checkpoint files after admission into DIR")

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
    input_limits(p, objects=False)
    p.add_argument("-o", "--output", choices=FORMATS, help="output format (yaml unless json)")
    gate_options.add_options(p)  # accepted as on every verb: a machine's topology has no gates

    p = verbs.add_parser(
        "plan",
        help="place a whole batch of pending pods at once; how many nodes to add",
        description="Plan every pending pod at once: the most pods placed (a higher priority first), then "
        "the objective. --engine greedy is kube-scheduler's own placement, one pod at a time. With "
        "--node-template: the fewest copies of that node to add so every pod fits (proven), or with "
        "--max-new-nodes the most pods that many copies place. Exit 1 when some pod stays pending.",
    )
    common(p, (*FORMATS, "wide"), "the summary, then every pod with its node and devices or why it waits")
    plan_options(p)
    engine(p, "cpsat", "default cpsat", choices=registry.plan_names())
    p.add_argument(
        "--node-template",
        type=input_path,
        metavar="FILE",
        help="a Node with its ResourceSlices, to add copies of (or example:templates/a100-node.yaml)",
    )
    p.add_argument(
        "--max-new-nodes", type=int, metavar="N", help="at most N copies of the template (0 to 256)"
    )
    p.add_argument(
        "--min-priority", type=int, metavar="P", help="capacity planning: only pods of priority >= P must fit"
    )

    p = verbs.add_parser(
        "compare",
        help="kube-scheduler's placement beside the batch plan (table, JSON, HTML picture)",
        description="Place the pending pods with two engines (greedy: kube-scheduler; cpsat: the batch "
        "planner) and compare: pods placed, nodes and devices touched, fragmentation, the pods only one "
        "places and why the other left each pending. -o html: one self-contained page with every GPU.",
    )
    common(p, (*FORMATS, "html"))
    plan_options(p)
    p.add_argument("--engines", default="greedy,cpsat", help="two of greedy, cpsat (default greedy,cpsat)")

    p = verbs.add_parser(
        "taints",
        help="DeviceTaintRule status and pod eviction, as the device taint eviction controller decides",
        description="Every DeviceTaintRule with the EvictionInProgress condition kube-controller-manager "
        "writes (effect None: the dry run's counts), and every pod evicted by a NoExecute taint of a rule "
        "or a ResourceSlice, with when (timeAdded plus tolerationSeconds) and why. Exit 1 when pods are "
        "pending eviction.",
    )
    common(p)
    p.add_argument("--rule", metavar="NAME", help="this DeviceTaintRule only, and the pods it evicts")

    p = verbs.add_parser(
        "pools",
        help="what is left in each resource pool (ResourcePoolStatusRequest status), with exact allocatable",
        description="Per pool, the status kube-controller-manager writes for a ResourcePoolStatusRequest: "
        "total, allocated, available and unavailable devices (with why), the shareable capacity, and per "
        "partition type how many more devices can be allocated at the same time, solved exactly from the "
        "counters left, compatibility groups and taints (not estimated). -o json/yaml prints a List with one "
        "ResourcePoolStatusRequest per pool.",
    )
    common(p)
    p.add_argument("--driver", metavar="D", help="pools of this driver only (default: every driver)")
    p.add_argument("--pool", metavar="P", help="this pool only")
    p.add_argument("--limit", type=int, metavar="N", help="at most N pools (default 100, at most 1000)")
    p.add_argument(
        "--default-partition-type-attribute",
        metavar="ATTR",
        help="group partitions by this attribute (domain/name) where their slice declares no "
        "partitionTypeAttribute",
    )

    gate_options.add_verb(verbs)

    p = verbs.add_parser(
        "examples",
        help="the bundled examples, to read with -f example:NAME from any directory",
        description="List the examples shipped with kubefit: every verb reads one with -f example:NAME "
        "(or one file of it, -f example:NAME/FILE), wherever kubefit is installed.",
    )
    p.add_argument(
        "-o", "--output", choices=("table", "wide", "json", "yaml"), help="output format (default table)"
    )
    return parser
