"""CEL for DRA selectors, on cel-python's grammar."""
