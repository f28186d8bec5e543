"""A long fuzz campaign: worker processes draw and run inputs; findings are saved, not fatal.

    cd tests && python -m fuzz.campaign --minutes 30 --out /tmp/fuzz [--verbs allocate,admit] [--jobs 2]

Input number i of a campaign is drawn from `RandomChooser(seed * 10**9 + i)`, so any input can be drawn
again from its number (`--replay I`). Each worker runs a chunk of numbers in one process (under a memory
limit, so an input that allocates without bound fails with MemoryError instead of taking the machine)
and writes a heartbeat before each input; the parent kills a worker whose heartbeat is older than the
alarm can explain (a hang in C code the alarm cannot interrupt) and records that input as a hang.
Findings go to OUT/findings/<signature>/<number>/ in the corpus format (at most three per signature);
OUT/summary.json counts inputs and exit codes per verb.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from .arguments import VERBS
from .choices import RandomChooser
from .inputs import FuzzInput, draw
from .runner import TIMEOUT, Outcome, run
from .seeds import all_seeds

# Wall seconds without a heartbeat before a worker is killed as hung: the alarm counts CPU seconds, and a
# worker on a busy machine gets a fraction of a core.
WATCHDOG = 6 * TIMEOUT + 20

CHUNK = 1500  # inputs per worker process: bounds what a long-lived process accumulates
MEMORY = 6 * 2**30  # bytes of address space a worker may map
PER_SIGNATURE = 3


def _input(seed: int, number: int, verbs: list[str]) -> FuzzInput:
    verb = verbs[number % len(verbs)]
    return draw(RandomChooser(seed * 10**9 + number), verb, all_seeds())


def _save(out: Path, number: int, fuzz_input: FuzzInput, outcome: Outcome) -> None:
    signature = outcome.signature()
    folder = out / "findings" / hashlib.sha1(signature.encode()).hexdigest()[:10]
    if folder.is_dir() and len(list(folder.glob("*/run.yaml"))) >= PER_SIGNATURE:
        return
    fuzz_input.found = f"{signature}: {outcome.summary()}"
    fuzz_input.save(folder / str(number))
    (folder / str(number) / "traceback.txt").write_text(outcome.error or outcome.stderr)


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    tmp.replace(path)


def worker(out: Path, seed: int, start: int, count: int, deadline: float, verbs: list[str]) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    stats_path = out / f"stats-{start}.json"
    stats: dict[str, Counter[str]] = {v: Counter() for v in verbs}
    beat = out / f"beat-{start}.json"
    last, following = 0.0, start
    for number in range(start, start + count):
        if time.time() > deadline:
            break
        fuzz_input = _input(seed, number, verbs)
        _write_json(beat, [number, time.time()])
        outcome = run(fuzz_input)
        stats[fuzz_input.verb]["inputs"] += 1
        stats[fuzz_input.verb]["hang" if "Hang" in outcome.error else f"exit {outcome.code}"] += 1
        stats[fuzz_input.verb]["seconds"] += round(outcome.seconds * 1000)
        if outcome.failed:
            _save(out, number, fuzz_input, outcome)
        following = number + 1
        if time.time() - last > 5:
            _write_json(stats_path, {"next": following, "stats": stats})
            last = time.time()
    _write_json(stats_path, {"next": following, "stats": stats, "done": True})
    beat.unlink(missing_ok=True)


def _summary(out: Path) -> dict[str, Any]:
    totals: dict[str, Counter[str]] = {}
    for path in out.glob("stats-*.json"):
        for verb, counts in json.loads(path.read_text())["stats"].items():
            totals.setdefault(verb, Counter()).update(counts)
    findings = {
        folder.name: (next(folder.glob("*/run.yaml")).parent / "traceback.txt").read_text()[-400:]
        for folder in sorted((out / "findings").glob("*"))
        if any(folder.glob("*/run.yaml"))
    }
    per_verb = {v: {**c, "seconds": round(c["seconds"] / 1000)} for v, c in totals.items()}
    return {"perVerb": per_verb, "inputs": sum(c["inputs"] for c in totals.values()), "findings": findings}


def _spawn(
    out: Path, seed: int, start: int, count: int, deadline: float, verbs: list[str]
) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "fuzz.campaign", "--out", str(out), "--seed", str(seed)]
    command += ["--verbs", ",".join(verbs), "--worker", str(start), "--count", str(count)]
    command += ["--deadline", str(deadline)]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    log = (out / f"worker-{start}.log").open("wb")
    return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def campaign(out: Path, seed: int, minutes: float, verbs: list[str], jobs: int) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    (out / "findings").mkdir(exist_ok=True)
    begun = time.time()
    deadline = begun + minutes * 60
    # Continue numbering after what an earlier piece of the same campaign ran.
    done = [json.loads(p.read_text()) for p in out.glob("stats-*.json")]
    following = max((d["next"] for d in done), default=0)
    running: dict[int, tuple[int, subprocess.Popen[bytes]]] = {}  # start: (end, worker)
    while running or time.time() < deadline:
        while len(running) < jobs and time.time() < deadline:
            running[following] = following + CHUNK, _spawn(out, seed, following, CHUNK, deadline, verbs)
            following += CHUNK
        time.sleep(2)
        for start, (end, process) in list(running.items()):
            beat = out / f"beat-{start}.json"
            if process.poll() is not None:
                del running[start]
                continue
            if beat.exists():
                number, at = json.loads(beat.read_text())
                if time.time() - at > WATCHDOG:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
                    del running[start]
                    hung = _input(seed, number, verbs)
                    hang = Outcome(None, time.time() - at, "Hang: the worker stopped answering (killed)")
                    _save(out, number, hung, hang)
                    # The rest of the chunk goes to a fresh worker.
                    rest = number + 1
                    if rest < end:
                        running[rest] = end, _spawn(out, seed, rest, end - rest, deadline, verbs)
    summary = _summary(out)
    summary["minutes"] = round((time.time() - begun) / 60, 1)
    _write_json(out / "summary.json", summary)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m fuzz.campaign")
    parser.add_argument("--out", required=True, type=Path, help="findings and statistics go here")
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1, help="campaign seed (inputs are numbered within it)")
    parser.add_argument("--verbs", default=",".join(VERBS))
    parser.add_argument("--jobs", type=int, default=1, help="worker processes at a time")
    parser.add_argument("--replay", type=int, metavar="I", help="draw input I again and run it in-process")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=CHUNK, help=argparse.SUPPRESS)
    parser.add_argument("--deadline", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    verbs = args.verbs.split(",")
    if args.worker is not None:
        worker(args.out, args.seed, args.worker, args.count, args.deadline, verbs)
    elif args.replay is not None:
        fuzz_input = _input(args.seed, args.replay, verbs)
        fuzz_input.save(args.out / f"replay-{args.replay}")
        outcome = run(fuzz_input)
        print(json.dumps({"verb": fuzz_input.verb, "code": outcome.code, "seconds": outcome.seconds}))
        print(outcome.error or outcome.stderr)
    else:
        print(json.dumps(campaign(args.out, args.seed, args.minutes, verbs, args.jobs), indent=1))


if __name__ == "__main__":
    main()
