"""rules/node/kubelet_order.lp: for explanations, what the kubelet gave the containers it allocated
before refusing the pod, as groups of their own."""

from __future__ import annotations

from node_rules_support import admissions, container, in_every, machine, pool

from kubefit.solver.node.asp import schema as s

FILES = ["cpus.lp", "memory.lp", "kubelet_order.lp"]


def test_the_kubelets_choice_for_an_earlier_container_holds_while_its_group_is_enforced() -> None:
    facts = [*machine(), *pool(range(4)), s.Guaranteed(), *container(0, 2), *container(1, 2)]
    facts += [s.KubeletSlot(slot=0), s.KubeletCpu(slot=0, cpu=0), s.KubeletCpu(slot=0, cpu=2)]
    found = admissions(facts)
    assert found and all({"assign(0,0)", "assign(0,2)"} <= m for m in found)
    assert in_every(FILES, facts, ("blame",)) >= {"blame(kubelet_cpus(0),kubelet(0))"}


def test_the_kubelets_memory_mask_for_an_earlier_container_holds_too() -> None:
    facts = [*machine(numa_per_socket=2), s.SlotKind(slot=0, kind="app"), s.MemGroup(group=0)]
    facts += [s.MemSlot(slot=0, group=0), s.MemStatic(group=0, mask=1, preferred=1)]
    facts += [s.MemStatic(group=0, mask=2, preferred=1), s.KubeletMask(slot=0, group=0, mask=2)]
    assert admissions(facts, ("block",)) == [{"block(0,2)"}]
