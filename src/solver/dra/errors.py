"""The allocator's two ways of stopping short of an answer, shared by every engine that reproduces it."""

from __future__ import annotations


class AllocationError(Exception):
    """The allocator stops with an error (not merely "does not fit")."""

    def __init__(self, message: str, per_node: bool = False) -> None:
        super().__init__(message)
        self.per_node = per_node  # only this node fails (ErrFailedAllocationOnNode): the others are tried


class BudgetExceeded(Exception):
    pass
