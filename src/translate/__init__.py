"""Kubernetes objects and node topology -> typed models -> facts (the Problem)."""
