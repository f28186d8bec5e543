"""The table of verbs: each turns the parsed options into its typed request and runs the verb in app/
(imported only when it runs: a verb's imports are done while the input's reading child reads)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from ..app.requests import Answer
from . import gate_options
from .options import claims, deadline, input_of, output_format, scheduling


def validate(args: argparse.Namespace) -> Answer:
    from ..app.validate import ValidateRequest, validate

    return validate(ValidateRequest(input_of(args), output_format(args)))


def devices(args: argparse.Namespace) -> Answer:
    from ..app.devices import DevicesRequest, devices

    request = DevicesRequest(
        input_of(args), output_format(args), args.node, args.device_class, tuple(args.selector)
    )
    return devices(request)


def allocate(args: argparse.Namespace) -> Answer:
    from ..app.allocate import AllocateRequest, allocate

    request = AllocateRequest(
        input_of(args),
        output_format(args),
        engine=args.engine,
        deadline=deadline(args),
        steps=args.steps,
        node=args.node,
        claims=claims(args),
        objective=args.objective,
        dump_model=args.dump_model,
        scheduling=scheduling(args),
        explain=args.explain,
    )
    return allocate(request)


def explain(args: argparse.Namespace) -> Answer:
    from ..app.explain import ExplainRequest, explain

    request = ExplainRequest(
        input_of(args),
        output_format(args),
        engine=args.engine,
        deadline=deadline(args),
        steps=args.steps,
        pod=args.pod,
        claims=claims(args),
        node=args.node,
        scheduling=scheduling(args),
        cpu_manager_state=args.cpu_manager_state,
        memory_manager_state=args.memory_manager_state,
    )
    return explain(request)


def admit(args: argparse.Namespace) -> Answer:
    from ..app.admit import AdmitRequest, admit

    request = AdmitRequest(
        input_of(args),
        output_format(args),
        args.node,
        pod=args.pod,
        engine=args.engine,
        deadline=deadline(args),
        cpu_manager_state=args.cpu_manager_state,
        memory_manager_state=args.memory_manager_state,
        write_state=args.write_state,
    )
    return admit(request)


def topology(args: argparse.Namespace) -> Answer:
    from ..app.topology import TopologyRequest, topology

    fmt = "json" if args.output == "json" else "yaml"
    return topology(TopologyRequest(fmt, args.from_cadvisor, args.from_sysfs, args.name))


def plan(args: argparse.Namespace) -> Answer:
    from ..app.plan import PlanRequest, plan_verb

    request = PlanRequest(
        input_of(args),
        output_format(args),
        objective=args.objective,
        deadline=deadline(args),
        workers=args.workers,
        progress=args.progress,
        engine=args.engine,
        template=args.node_template,
        max_new_nodes=args.max_new_nodes,
        min_priority=args.min_priority,
    )
    return plan_verb(request)


def compare(args: argparse.Namespace) -> Answer:
    from ..app.compare import CompareRequest, compare

    request = CompareRequest(
        input_of(args),
        output_format(args),
        objective=args.objective,
        deadline=deadline(args),
        workers=args.workers,
        progress=args.progress,
        engines=args.engines,
    )
    return compare(request)


def taints(args: argparse.Namespace) -> Answer:
    from ..app.taints import TaintsRequest, taints

    return taints(TaintsRequest(input_of(args), output_format(args), args.rule))


def pools(args: argparse.Namespace) -> Answer:
    from ..app.pools import PoolsRequest, pools_verb

    request = PoolsRequest(
        input_of(args),
        output_format(args),
        args.driver,
        args.pool,
        args.limit,
        args.default_partition_type_attribute,
    )
    return pools_verb(request)


def feature_gates(args: argparse.Namespace) -> Answer:
    from ..app.feature_gates import feature_gates

    return feature_gates(gate_options.gates_of(args), args.output or "table")


def examples(args: argparse.Namespace) -> Answer:
    from ..app.examples import ExamplesRequest, list_examples

    return list_examples(ExamplesRequest(args.output or "table"))


@dataclass(frozen=True)
class Verb:
    run: Callable[[argparse.Namespace], Answer]
    # Its input is read and validated as it loads (app.loading): the child reading the input validates it.
    loads: bool = True


VERBS: dict[str, Verb] = {
    "validate": Verb(validate, loads=False),
    "devices": Verb(devices),
    "allocate": Verb(allocate),
    "explain": Verb(explain),
    "admit": Verb(admit),
    "topology": Verb(topology, loads=False),
    "plan": Verb(plan),
    "compare": Verb(compare),
    "taints": Verb(taints),
    "pools": Verb(pools),
    "feature-gates": Verb(feature_gates, loads=False),
    "examples": Verb(examples, loads=False),
}
