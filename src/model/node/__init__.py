"""The kubelet's side of the problem: one node's machine, policies and pods, and the admission answer."""
