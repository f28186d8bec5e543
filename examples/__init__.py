"""The bundled examples (package data): small clusters a new user can run from any directory, named on
the command line as `-f example:NAME` (a directory here) or `-f example:NAME/FILE` (one file of it).

What each shows is said once, in this directory's README.md: one table row per example, whose first
sentence is the summary `kubefit examples` lists (`kubefit.app.examples` reads them).
"""
