"""The entry point: parse, switch the process policy on (runtime.process), run the verb, show its answer;
bad input as one line per problem (exit 2), a bug as one line (exit 3, the traceback with -v)."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence

from ..app.requests import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_OK, Answer
from ..model import repeated
from ..model.errors import InputError, KubefitError, one_line
from ..model.terminal import escape
from ..output import emit, write
from ..runtime import process
from ..translate.reading import bounded_read
from . import gate_options
from .parser import build_parser
from .verbs import VERBS

log = logging.getLogger("kubefit")


def show(answer: Answer) -> None:
    """The answer on stdout (a page as it is, else the document or table `fmt` says), then what goes to
    stderr after it."""
    if answer.verbatim is not None:
        write(sys.stdout, answer.verbatim)
    else:
        emit(answer.document, answer.fmt, answer.text)
    for line in repeated.lines(answer.errors):
        print(escape(line), file=sys.stderr)
    for note in answer.notes:
        log.info("%s", note)


def main(argv: Sequence[str] | None = None) -> int:
    """A run: `argv` (None: the process's own arguments, and the process is the command line's: see
    runtime.process) parsed, the verb run and its answer shown; the exit code."""
    parser = build_parser()
    verbose = 0
    try:
        args = parser.parse_args(argv)
        verbose = args.verbose
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_EscapingFormatter("kubefit: %(levelname)s: %(message)s"))
        logging.basicConfig(level=logging.WARNING - 10 * min(verbose, 2), handlers=[handler])
        verb = VERBS.get(args.verb) if args.verb else None
        if verb is None:
            parser.print_help(sys.stderr)
            return EXIT_BAD_INPUT
        bounded_read.configure(getattr(args, "max_input_bytes", None), getattr(args, "max_objects", None))
        # Every verb refuses a release kubefit does not carry or a gate it lacks, and warns about settings
        # the component would refuse to start with, before anything else (topology has no use for them).
        gate_options.gates_of(args)
        if argv is None:
            strict = getattr(args, "strict", False)
            paths = getattr(args, "filename", None)
            process.own(paths, verb.loads, strict, lambda: gate_options.gates_of(args))
        answer = verb.run(args)
        show(answer)
        process.settle()
        return answer.code
    except KeyboardInterrupt:
        process.abandon()
        print("kubefit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        process.abandon()
        return EXIT_OK
    except Exception as e:
        return _failed(_validation_first(e), verbose)
    finally:
        process.reading_failed()


class _EscapingFormatter(logging.Formatter):
    """Log lines quote the input: each is shown as one line, as problems are (see terminal)."""

    def format(self, record: logging.LogRecord) -> str:
        return escape(super().format(record))


def _validation_first(e: Exception) -> Exception:
    """What a run that validated first would have stopped with: the input's API problems, if they stop
    it, else (after their warnings) `e`."""
    try:
        process.settle()
    except InputError as first:
        return first
    except Exception:
        pass  # the warnings could not even be written (the child is waited for all the same): `e` stands
    return e


def _failed(e: Exception, verbose: int) -> int:
    if isinstance(e, InputError):
        for line in repeated.problem_lines(e.problems):
            print(line, file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(e, KubefitError):
        print(escape(one_line(f"kubefit: {e}")), file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(e, BrokenPipeError):
        return EXIT_OK
    if verbose:  # a bug: say so in one line, the traceback only when asked
        raise e
    print(
        escape(f"kubefit: internal error: {type(e).__name__}: {e} (rerun with -v for the traceback)"),
        file=sys.stderr,
    )
    return EXIT_INTERNAL


def run() -> None:
    """The console script (and `python -m kubefit`): main, then the process ends without the
    interpreter's teardown, which frees every object of a large dump one by one (a tenth of a second
    after reading a 500-node cluster) for nobody. Everything kubefit writes is flushed first; files it
    writes are closed where they are written."""
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass  # the reader went away: main answers that as success
    logging.shutdown()
    os._exit(code)
