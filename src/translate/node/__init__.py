"""Grounding the node side: NodeTopology (or sysfs / cAdvisor machine info), KubeletConfiguration,
the kubelet's checkpoints and the node's pods become a `kubefit.model.node.problem.NodeProblem`."""
