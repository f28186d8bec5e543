"""kube-scheduler's inputs: its KubeSchedulerConfiguration, read into the profiles that
`kubefit.solver.cluster` runs."""
