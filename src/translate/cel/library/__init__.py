"""CEL function libraries of the Kubernetes CEL environment, one module per library."""
