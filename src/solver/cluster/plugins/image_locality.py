"""ImageLocality: favour nodes that already hold the pod's images, in proportion to their size and to
how far each image has spread across the cluster (pkg/scheduler/framework/plugins/imagelocality).

Each entry of facts.Pod.images is one image the pod needs (an init container's, a container's or an
image volume's, normalized with the default tag), counted once per entry as upstream counts them.
"""

from __future__ import annotations

from collections.abc import Hashable

from ....model.cluster import names
from ....model.cluster.facts import Pod
from ....model.cluster.points import MAX_NODE_SCORE, SCORE
from ..framework import CycleState, NodeInfo, Plugin

MB = 1024 * 1024
# Bounds of the image score range: a reasonable size range for compressed registry images.
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def priority(total: int, images: int) -> int:
    """calculatePriority: the summed image score clamped to [23 MiB, 1000 MiB per image], scaled to
    [0, 100]."""
    max_threshold = MAX_CONTAINER_THRESHOLD * images
    if total < MIN_THRESHOLD:
        total = MIN_THRESHOLD
    elif total > max_threshold:
        total = max_threshold
    # The numerator is never negative, and is 0 when the divisor is (a pod without images): floor
    # division agrees with Go's truncation.
    return MAX_NODE_SCORE * (total - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


class ImageLocality(Plugin):
    name = names.IMAGE_LOCALITY
    points = names.POINTS_OF[names.IMAGE_LOCALITY]

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        present = node.node.images
        states = self.handle.cluster.images
        total_nodes = len(self.handle.snapshot.nodes)
        total = 0
        for image in pod.images:
            if image in present:
                s = states[image]
                # An image on few nodes counts for little, so that pods do not pile onto the few nodes
                # that have it (the "node heating" problem); float arithmetic as upstream's.
                total += int(s.size * (s.num_nodes / total_nodes))
        return priority(total, len(pod.images))

    def memo_key(self, state: CycleState, pod: Pod, point: str) -> Hashable | None:
        # Which nodes hold which images, and how many nodes there are, stay as they are for a whole run.
        return pod.images if point == SCORE else None
