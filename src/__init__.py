"""kubefit: exact answers, with reasons, to Kubernetes resource-allocation questions."""

from __future__ import annotations

__version__ = "0.1.0"

from .k8s_package import register as _register_k8s_package

_register_k8s_package()
