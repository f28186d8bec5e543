"""One name per DRA constraint family: the rules, cpsat, the validator and explain all key it by Family."""

from __future__ import annotations

import re

import kubefit.solver.validate as validate_package
from kubefit import rules
from kubefit.model.families import Family
from kubefit.solver.cpsat.build import FAMILIES

# Settled per (slot, device) pair while gathering facts (cpsat/facts.py, asp/facts.py): no constraint.
SETTLED_IN_FACTS = {Family.SELECTORS, Family.ADMIN_ACCESS, Family.TAINTS}


def _rule_names(pattern: str) -> set[str]:
    text = "\n".join(f.read_text(encoding="utf-8") for f in rules.files())
    code = "\n".join(line.split("%", 1)[0] for line in text.splitlines())
    return set(re.findall(pattern, code))


def test_the_validator_kinds_are_the_family_values_and_never_change() -> None:
    # Printed by the validator, so these strings are part of the output.
    assert {f.name: f.value for f in Family} == {
        "PRIORITIZED": "subrequest",
        "COUNT": "count",
        "RESULT_LIMIT": "result-limit",
        "SELECTORS": "selectable",
        "ADMIN_ACCESS": "admin-access",
        "EXCLUSIVE": "exclusive",
        "TAINTS": "taint",
        "NODE": "node",
        "COUNTERS": "counters",
        "COMPATIBILITY_GROUPS": "compatibility-groups",
        "CAPACITY": "capacity",
        "ATTRIBUTES": "constraint",
    }


def test_the_validator_documents_every_kind_it_reports() -> None:
    doc = validate_package.__doc__ or ""
    table = doc.split("Violation kinds", 1)[1].split("\n\n", 1)[0]
    documented = set(re.findall(r"^    (\S+)\s{2,}", table, re.MULTILINE))
    assert documented == {f.value for f in Family} | {"structure"}


def test_every_violation_of_the_rules_belongs_to_one_family() -> None:
    violated = _rule_names(r"violated\((\w+)\(")
    assert violated
    assert {name for name in violated if Family.of_rule(name) is None} == set()
    assert {name for f in Family for name in f.rules} == violated


def test_every_relaxable_group_is_the_rule_its_family_names_reasons_by() -> None:
    for name in _rule_names(r"group\((\w+)\("):
        family = Family.of_rule(name)
        assert family is not None and family.rule == name, name


def test_cpsat_keys_its_constraints_by_family() -> None:
    assert all(isinstance(f, Family) for f in FAMILIES)
    assert set(FAMILIES) == set(Family) - SETTLED_IN_FACTS
