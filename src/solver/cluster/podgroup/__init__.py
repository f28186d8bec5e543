"""kube-scheduler's PodGroup scheduling cycle (pkg/scheduler/schedule_one_podgroup.go, algorithm_podgroup.go).

A pod of a PodGroup is not scheduled alone: when the first of its group's pods comes off the queue, the
whole group (or the whole CompositePodGroup tree it belongs to) goes through one cycle. Candidate
placements (sets of nodes, one per topology domain) are generated, the group's pods are tried one
after the other in each, PlacementFeasible plugins say whether the group can still reach its minimum,
feasible placements are scored, and the best one's pods are assumed together, or none are.

`facts` holds what the cycle reads about groups; `algorithm` the cycle itself; `outcomes` turns its
results into the pods' answers (their FailedScheduling texts and the placement records).
"""
