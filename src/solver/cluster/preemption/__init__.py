"""kube-scheduler's preemption (pkg/scheduler/framework/preemption and the DefaultPreemption plugin's
victim selection), one concern per module: eligibility, victim ordering, budget accounting, victim
selection on a node, candidate search and choice, the evaluator, and the API effects on victims."""

from .candidates import Candidate, candidate_count, dry_run, pick_one
from .eligibility import ineligibility
from .evaluator import Preemption, Services, preempt
from .events import PodCondition, VictimEvent, victim_events
from .victims import Selection, select_victims

__all__ = [
    "Candidate",
    "PodCondition",
    "Preemption",
    "Selection",
    "Services",
    "VictimEvent",
    "candidate_count",
    "dry_run",
    "ineligibility",
    "pick_one",
    "preempt",
    "select_victims",
    "victim_events",
]
