"""Pods that workload controllers would create: Deployments, ReplicaSets, StatefulSets and Jobs
expand into their replicas, named the way the controllers name them (the random parts
derived from the workload's name so the same input gives the same pods).

A workload whose pods are already in the input (as `kubectl get` shows them, owned by
it) is not expanded again.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ...model.errors import InputError
from ..kube import KubeObject, ObjectSet, lookup
from ..validation.go_integers import type_error

_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def _suffix(seed: str, length: int) -> str:
    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:length])


# Kubernetes supports clusters of at most 150,000 pods (its "Considerations for large clusters"):
# workloads that would make more are refused rather than expanded for minutes into gigabytes.
MAX_PODS = 150_000
_INT32_MAX = 2**31 - 1


def _count(obj: KubeObject) -> tuple[int, tuple[str, ...]]:
    """How many pods the workload's controller would create, and the field that says so."""
    spec = obj.model.spec  # type: ignore[attr-defined]
    if obj.kind == "Job":
        count = spec.parallelism if spec.parallelism is not None else 1
        if spec.completions is not None and spec.completions < count:
            return spec.completions, ("spec", "completions")
        return count, ("spec", "parallelism")
    return (spec.replicas if spec.replicas is not None else 1), ("spec", "replicas")


def _replicas(obj: KubeObject, count: int) -> list[str]:
    """The names of the pods the workload's controller would create."""
    seed = f"{obj.namespace}/{obj.kind}/{obj.name}"
    if obj.kind == "Deployment":
        template_hash = _suffix(seed + "/template", 10)
        return [f"{obj.name}-{template_hash}-{_suffix(f'{seed}/{i}', 5)}" for i in range(count)]
    if obj.kind == "StatefulSet":
        return [f"{obj.name}-{i}" for i in range(count)]
    return [f"{obj.name}-{_suffix(f'{seed}/{i}', 5)}" for i in range(count)]  # ReplicaSet, Job


WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "Job")


def _owned_pods_exist(objects: ObjectSet, workload: KubeObject) -> bool:
    for pod in objects.of_kind("Pod"):
        if pod.namespace != workload.namespace:
            continue
        for owner in pod.model.metadata.owner_references or ():  # type: ignore[attr-defined]
            if owner.name == workload.name or (
                workload.kind == "Deployment"
                and owner.kind == "ReplicaSet"
                and owner.name.startswith(workload.name + "-")
            ):
                return True
    return False


def expand(objects: ObjectSet) -> list[KubeObject]:
    """Every pod in input order: the given ones, and each workload's replicas where the workload stands."""
    pod_info = lookup("v1", "Pod")
    assert pod_info is not None
    counts = _counts(objects)
    out: list[KubeObject] = []
    for obj in objects:
        if obj.kind == "Pod":
            out.append(obj)
        elif id(obj) in counts:
            template = obj.model.spec.template  # type: ignore[attr-defined]
            for name in _replicas(obj, counts[id(obj)]):
                out.append(_pod(obj, name, template, pod_info))
    return out


def _counts(objects: ObjectSet) -> dict[int, int]:
    """How many pods each workload to expand makes (by id), all counted before any is made."""
    counts: dict[int, int] = {}
    made = 0
    for obj in objects:
        if obj.kind not in WORKLOAD_KINDS or _owned_pods_exist(objects, obj):
            continue
        template = obj.model.spec.template  # type: ignore[attr-defined]
        if template is None or template.spec is None:
            continue  # no pod can be made of it (the API server refuses such a workload)
        count, path = _count(obj)
        if count > _INT32_MAX:
            # What API validation says of it too (validation/go_integers.py), for a caller that builds
            # before validating.
            message = type_error(obj.written_info.model, path, count) or f"Invalid value: {count}"
            raise InputError([obj.problem(path, message, unstorable=True)])
        made += max(count, 0)
        if made > MAX_PODS:
            message = (
                f"Invalid value: {count}: the workloads would make {made} pods or more; kubefit makes at "
                f"most {MAX_PODS}, the most pods a Kubernetes cluster supports"
            )
            raise InputError([obj.problem(path, message)])
        counts[id(obj)] = count
    return counts


def _pod(workload: KubeObject, name: str, template: Any, pod_info: Any) -> KubeObject:
    meta = (
        template.metadata.model_dump(by_alias=True, exclude_none=True, mode="json")
        if template.metadata
        else {}
    )
    owner_kind, owner_name = workload.kind, workload.name
    if workload.kind == "Deployment":
        # A Deployment's pods belong to its ReplicaSet `<deployment>-<template hash>`.
        owner_kind, owner_name = "ReplicaSet", name.rsplit("-", 1)[0]
    workload_meta: Any = getattr(workload.model, "metadata", None)
    meta.update(
        {
            "name": name,
            "namespace": workload.namespace,
            "uid": hashlib.sha256(f"{workload.namespace}/{name}".encode()).hexdigest()[:32],
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1" if owner_kind != "Job" else workload.api_version,
                    "kind": owner_kind,
                    "name": owner_name,
                    "uid": (workload_meta.uid if workload_meta is not None else None) or "",
                    "controller": True,
                }
            ],
        }
    )
    doc = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        # A template without spec (API-invalid, answered with a warning) makes a pod without spec.
        "spec": template.spec.model_dump(by_alias=True, exclude_none=True, mode="json")
        if template.spec
        else {},
    }
    model = pod_info.model.model_validate(doc)
    # Problems about the pod point at the workload that defines it.
    return KubeObject(pod_info, model, workload.raw, workload.file, workload.line, "v1")
