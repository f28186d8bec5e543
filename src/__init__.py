"""kubefit: exact answers, with reasons, to Kubernetes resource-allocation questions."""

from __future__ import annotations

__version__ = "0.1.0"
