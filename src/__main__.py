"""`python -m kubefit` runs the command line."""

from __future__ import annotations

from .cli import run

run()
