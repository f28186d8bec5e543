"""The scheduling framework's fixed vocabulary: extension point names (as KubeSchedulerConfiguration
names them) and the node score range. Configuration, validation and the framework share them."""

from __future__ import annotations

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0

# Extension points, named as KubeSchedulerConfiguration names them.
QUEUE_SORT = "queueSort"
PRE_FILTER = "preFilter"
FILTER = "filter"
POST_FILTER = "postFilter"
PRE_SCORE = "preScore"
SCORE = "score"
RESERVE = "reserve"
PERMIT = "permit"
PRE_BIND = "preBind"
BIND = "bind"
POST_BIND = "postBind"
PRE_ENQUEUE = "preEnqueue"
# The PodGroup cycle's points (workload-aware scheduling).
PLACEMENT_GENERATE = "placementGenerate"
PLACEMENT_FEASIBLE = "placementFeasible"
PLACEMENT_SCORE = "placementScore"
POD_GROUP_POST_FILTER = "podGroupPostFilter"
POINTS = (
    PRE_ENQUEUE,
    QUEUE_SORT,
    PRE_FILTER,
    FILTER,
    POST_FILTER,
    PRE_SCORE,
    SCORE,
    RESERVE,
    PERMIT,
    PRE_BIND,
    BIND,
    POST_BIND,
    PLACEMENT_GENERATE,
    PLACEMENT_FEASIBLE,
    PLACEMENT_SCORE,
    POD_GROUP_POST_FILTER,
)
