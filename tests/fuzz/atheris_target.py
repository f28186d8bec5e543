"""Coverage-guided fuzzing with atheris (libFuzzer): the fuzzer's bytes make the mutators' choices.

    pip install atheris
    cd tests && python -m fuzz.atheris_target -max_total_time=600 -timeout=30 -rss_limit_mb=6144 \\
        -len_control=0 -max_len=256 -artifact_prefix=/tmp/atheris- [CORPUS_DIR]

Every kubefit module is imported under atheris's instrumentation first, so libFuzzer sees which
branches of kubefit a choice reaches and keeps the byte strings that reach new ones. The same
seeds, mutators and verbs as the campaign: one input is the verb, the seed and every mutation,
decided byte by byte. A failing input (exit 3, an escaping exception) raises, and libFuzzer writes
the bytes to `crash-*`; a hang is libFuzzer's -timeout (the runner's own alarm is off: libFuzzer
keeps SIGALRM). Replay a crash file: `python -m fuzz.atheris_target crash-...` and read the
traceback.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from typing import Any

import atheris

with atheris.instrument_imports(include=["kubefit"]):
    import kubefit

    for module in pkgutil.walk_packages(kubefit.__path__, "kubefit."):
        if not module.name.endswith("__main__"):  # that one runs the command line
            importlib.import_module(module.name)

# The harness after kubefit, so that kubefit's modules are first imported instrumented.
from .arguments import VERBS
from .choices import ProviderChooser, pick
from .inputs import draw
from .runner import run
from .seeds import all_seeds

SEEDS = all_seeds()
# KUBEFIT_FUZZ_VERBS=validate,admit: only these (e.g. leaving out verbs with a reported open bug, which
# would otherwise stop libFuzzer at once, or run with -fork=1 -ignore_crashes=1).
_VERBS = tuple(os.environ.get("KUBEFIT_FUZZ_VERBS", ",".join(VERBS)).split(","))


class Finding(Exception):
    """An input the verbs failed on (libFuzzer saves it)."""


def one_input(data: bytes) -> None:
    chooser = ProviderChooser(atheris.FuzzedDataProvider(data))
    verb = pick(chooser, _VERBS)
    fuzz_input = draw(chooser, verb, SEEDS)
    outcome = run(fuzz_input, timeout=None)
    if outcome.failed:
        raise Finding(
            f"{verb} {' '.join(fuzz_input.args)} on {fuzz_input.seed} ({'; '.join(fuzz_input.mutations)}): "
            f"{outcome.signature()}\n{outcome.error}"
        )


def main(argv: list[str] | Any = None) -> None:
    atheris.Setup(list(argv or sys.argv), one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
