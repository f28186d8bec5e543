"""NodeResourcesFit and NodeResourcesBalancedAllocation (pkg/scheduler/framework/plugins/noderesources):
whether a node has room for a pod's requests, and how the node scores by how much of it the pod would
use (LeastAllocated, MostAllocated, RequestedToCapacityRatio) or by how evenly (BalancedAllocation)."""
