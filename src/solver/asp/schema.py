"""The typed schema between Python and the rules: one clorm predicate class per input predicate.

The meaning of every predicate is documented once, in `rules/input.lp`; the classes here only fix
names, arities and field types, so that facts are built as objects and never as text. Identifiers are
the small local integers of `facts.NodeFacts`; amounts are already scaled to integers.
"""

from __future__ import annotations

from clorm import ConstantField, Predicate, field

# --- requests and devices ----------------------------------------------------------------------------


class SlotFact(Predicate, name="slot"):
    slot: int
    claim: int
    request: int
    sub: int


class Alternatives(Predicate, name="alternatives"):
    claim: int
    request: int


class Count(Predicate, name="count"):
    slot: int
    n: int


class AllMode(Predicate, name="all"):
    slot: int


class Listed(Predicate, name="listed"):
    slot: int
    device: int


class Admin(Predicate, name="admin"):
    slot: int


class Cand(Predicate, name="cand"):
    slot: int
    device: int


class MaxResults(Predicate, name="max_results"):
    n: int


class Multi(Predicate, name="multi"):
    device: int


class InPool(Predicate, name="in_pool"):
    device: int
    pool: int


# --- in use ------------------------------------------------------------------------------------------


class Held(Predicate, name="held"):
    device: int
    holder: int


class Shared(Predicate, name="shared"):
    device: int
    holder: int


class ExistingShare(Predicate, name="existing_share"):
    device: int


# --- taints and reachability -------------------------------------------------------------------------


class TaintOn(Predicate, name="taint"):
    device: int
    taint: int


class TaintDef(Predicate, name="taint_def"):
    taint: int
    key: str
    value: str
    effect: str


class TolerationFact(Predicate, name="toleration"):
    slot: int
    index: int
    key: str
    operator: str
    value: str
    effect: str


class Unreachable(Predicate, name="unreachable"):
    device: int


class NodeLocal(Predicate, name="node_local"):
    device: int


class ManyTerms(Predicate, name="many_terms"):
    device: int


# --- constraints -------------------------------------------------------------------------------------


class ConstraintFact(Predicate, name="constraint"):
    constraint: int
    claim: int
    kind: str = field(ConstantField)  # match | distinct


class Covers(Predicate, name="covers"):
    constraint: int
    slot: int


class Value(Predicate, name="value"):
    constraint: int
    slot: int
    device: int
    kind: str
    text: str


class Odd(Predicate, name="odd"):
    constraint: int
    slot: int
    device: int


class NoValue(Predicate, name="novalue"):
    constraint: int
    slot: int
    device: int


# --- counters and compatibility groups ---------------------------------------------------------------


class CounterSet(Predicate, name="counter_set"):
    counter_set: int
    pool: int


class CounterLeft(Predicate, name="counter"):
    counter_set: int
    counter: str
    amount: int


class Overdraw(Predicate, name="overdraw"):
    counter_set: int
    counter: str
    index: int


class OverdrawMember(Predicate, name="overdraw_member"):
    counter_set: int
    counter: str
    index: int
    slot: int
    device: int


class Draws(Predicate, name="draws"):
    device: int
    counter_set: int


class Consumes(Predicate, name="consumes"):
    device: int
    counter_set: int
    counter: str
    amount: int


class Declares(Predicate, name="declares"):
    device: int
    counter_set: int
    group: str


class Seed(Predicate, name="seed"):
    counter_set: int
    kind: str = field(ConstantField)  # plain | grouped


class SeedGroup(Predicate, name="seed_group"):
    counter_set: int
    group: str


# --- consumable capacity -----------------------------------------------------------------------------


class CapLeft(Predicate, name="cap_left"):
    device: int
    capacity: int
    amount: int


class CapUse(Predicate, name="cap_use"):
    slot: int
    device: int
    capacity: int
    amount: int


class CapOverdraw(Predicate, name="cap_overdraw"):
    device: int
    capacity: int
    index: int


class CapOverdrawMember(Predicate, name="cap_overdraw_member"):
    device: int
    capacity: int
    index: int
    slot: int


# --- first-fit order ---------------------------------------------------------------------------------


class PickLevel(Predicate, name="pick_level"):
    slot: int
    device: int
    level: int


class ChoiceLevel(Predicate, name="choice_level"):
    claim: int
    request: int
    level: int


# --- what the rules answer ---------------------------------------------------------------------------


class Use(Predicate, name="use"):
    slot: int
    device: int


class Chosen(Predicate, name="chosen"):
    slot: int
