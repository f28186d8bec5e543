"""Kubernetes objects and node topology -> typed models -> facts (the Problem).

- `reading`: files and streams within bounds, YAML and JSON documents with their lines, the child
  that reads a large JSON file while the process starts;
- `loader`: documents -> Kubernetes objects (`kube`: kinds, objects, paths, model fields), checked
  against their models; `validation`: API server validation of those objects; `cel`: CEL;
- `quantity`: `resource.Quantity`, exact;
- `dra`, `node`, `sched`: the objects as the model's facts for DRA, the kubelet and the scheduler.
"""
