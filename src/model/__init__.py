"""The problem as kubefit's engines read it, and the small semantics every layer shares.

`translate` builds these objects from Kubernetes YAML and node files; the engines in `solver` read them
and answer with `solution` objects; neither imports the other. Nothing here imports outside `model`.
"""
