"""Run one input through `kubefit.cli.main` in-process, under an alarm, and judge it.

The property: the verb returns 0, 1 or 2 within the time bound, and what it writes for a terminal (a
table, `-o table` or `wide`, and every line on stderr) holds no character a terminal would act on (ESC,
BEL, CR, NUL, the other controls, bidirectional controls: `kubefit.model.terminal`), only their escapes. `-v`
makes main re-raise what it would report as an internal error (exit 3), so the finding keeps its
traceback; an alarm that fires raises `Hang`, which no `except Exception` in kubefit can swallow.
"""

from __future__ import annotations

import contextlib
import io
import logging
import signal
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from kubefit.cli import main
from kubefit.model.terminal import UNSAFE

from .inputs import FuzzInput

TIMEOUT = 10.0  # CPU seconds an input may take, whatever the verb (its solver budgets are a few seconds)
ALLOWED = (0, 1, 2)


class Hang(BaseException):
    """The input ran past the time bound."""


@dataclass(frozen=True)
class Outcome:
    code: int | None  # the exit code; None when an exception escaped or the alarm fired
    seconds: float
    error: str = ""  # the traceback of what escaped (Hang: where the alarm found it)
    stderr: str = ""

    @property
    def failed(self) -> bool:
        return self.code not in ALLOWED

    def signature(self) -> str:
        """What makes two findings the same bug: the exception and the innermost kubefit frame."""
        if not self.error:
            return f"exit {self.code}"
        lines = self.error.strip().splitlines()
        frames = [line.strip() for line in lines if line.strip().startswith('File "') and "/src/" in line]
        where = (
            frames[-1].split('"')[1].split("/src/")[-1] + ":" + frames[-1].rsplit(" in ", 1)[-1]
            if frames
            else ""
        )
        return f"{lines[-1].split(':')[0]} at {where}"

    def summary(self) -> str:
        return self.error.strip().splitlines()[-1][:300] if self.error else f"exit {self.code}"


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang("no answer within the time bound")


def _quiet_logging() -> None:
    # main() calls logging.basicConfig, which would otherwise bind a handler to the first run's
    # captured stderr for the rest of the process.
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.NullHandler())


def run(fuzz_input: FuzzInput, timeout: float | None = TIMEOUT) -> Outcome:
    """`timeout` None: no alarm (under libFuzzer, whose -timeout bounds each input)."""
    _quiet_logging()
    with tempfile.TemporaryDirectory(prefix="kubefit-fuzz-") as tmp:
        directory = Path(tmp)
        fuzz_input.write(directory)
        argv = ["-v", *fuzz_input.argv(directory)]
        out, err = io.StringIO(), io.StringIO()
        # CPU seconds, not wall seconds: on a busy machine a slow answer is the machine's, while a hang
        # spins (a worker that blocks instead is the campaign watchdog's).
        previous = signal.signal(signal.SIGPROF, _alarm) if timeout is not None else signal.SIG_DFL
        start = time.perf_counter()
        code: int | None = None
        error = ""
        try:
            if timeout is not None:
                signal.setitimer(signal.ITIMER_PROF, timeout)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(argv)
        except SystemExit as e:  # argparse's --help and --version
            code = e.code if isinstance(e.code, int) else 2
        except (Exception, Hang) as e:
            error = "".join(traceback.format_exception(e))
        finally:
            if timeout is not None:
                signal.setitimer(signal.ITIMER_PROF, 0)
                signal.signal(signal.SIGPROF, previous)
        seconds = time.perf_counter() - start
        raw = _raw_control(out.getvalue(), err.getvalue(), fuzz_input.args)
        if raw and not error:
            code, error = None, f"TerminalInjection: {raw}"
        return Outcome(code, seconds, error, err.getvalue()[-2000:])


def _raw_control(out: str, err: str, args: list[str]) -> str:
    """Where a character a terminal acts on is written raw, if it is: on stderr, or in a table."""
    table = "-o" in args and args[args.index("-o") + 1] in ("table", "wide")
    for stream, text in (("stderr", err), ("stdout", out if table else "")):
        found = UNSAFE.search(text.replace("\n", "").replace("\t", ""))
        if found is not None:
            at = found.start()
            return f"{found.group()!r} raw on {stream}: {text[max(0, at - 60) : at + 20]!r}"
    return ""
