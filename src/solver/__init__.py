"""Solver engines: Problem in, Solution out."""
