"""Grounding the node side: NodeTopology (or sysfs / cAdvisor machine info), KubeletConfiguration,
the kubelet's checkpoints and the node's pods become a `kubefit.solver.node.problem.NodeProblem`."""
