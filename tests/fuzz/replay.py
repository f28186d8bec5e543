"""Run saved inputs again (a campaign's findings, or the corpus) and say which still fail.

cd tests && python -m fuzz.replay /tmp/fuzz/findings
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .inputs import FuzzInput, corpus_entries
from .runner import run


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m fuzz.replay")
    parser.add_argument(
        "roots", nargs="*", type=Path, help="directories holding run.yaml entries (default: the corpus)"
    )
    args = parser.parse_args()
    entries = [p.parent for root in args.roots for p in sorted(root.rglob("run.yaml"))] or corpus_entries()
    failing = 0
    for entry in entries:
        fuzz_input = FuzzInput.load(entry)
        outcome = run(fuzz_input)
        failing += outcome.failed
        status = f"FAILS {outcome.signature()}" if outcome.failed else f"exit {outcome.code}"
        print(f"{entry}: {fuzz_input.verb}: {status} ({outcome.seconds:.1f} s)", flush=True)
    print(f"{failing} of {len(entries)} still fail")


if __name__ == "__main__":
    main()
