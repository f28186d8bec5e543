"""kube-scheduler's side of the problem: cluster facts, profiles, plugin args and names, records."""
