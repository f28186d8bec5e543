"""The `kubefit` command line.

Results go to stdout, logs and problems to stderr. Exit codes: 0 everything fits
(or is valid), 1 something does not fit or an expression failed at run time (the
answer is still printed), 2 bad input (one line per problem, nothing else),
3 an internal error (a bug in kubefit; rerun with -v for the traceback).

`parser` holds the options (shared ones in `options`, the gates' in `gate_options`), `verbs` the table of
verbs (each a typed request to app/), `main` the entry point.
"""

from .main import main, run
from .parser import build_parser

__all__ = ["build_parser", "main", "run"]
