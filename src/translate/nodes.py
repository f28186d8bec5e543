"""Node selection for Kubernetes objects (node selectors of slices, devices and pods)."""

from __future__ import annotations

from typing import Any

from ..model.node_selector import term_matches, terms_match

__all__ = ["selector_matches", "term_matches"]


def selector_matches(selector: Any, node_name: str, labels: dict[str, str] | None) -> bool:
    """A V1NodeSelector: terms ORed, requirements in a term ANDed."""
    return terms_match(selector.node_selector_terms or (), node_name, labels or {})
