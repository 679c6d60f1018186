"""Start-up: the wall time of ``turncheck --help``, ``--version`` and the read commands,
each a fresh process, next to ``python -c pass`` (the interpreter alone) as a ratio.

Runs in a scratch folder on the embedded SQLite store (made by a first, untimed run of
each command), so the read commands find nothing: what is timed is their start, a
database opened and one query, not the size of a store. Rounds are interleaved (each
round runs every command once) so a busy machine disturbs all of them alike; the
figure is the median of the rounds. Exit codes are not the point (a read command
finding nothing exits 1).

Run: python bench/startup.py [--rounds 9]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "turncheck --help": ["turncheck", "--help"],
    "turncheck --version": ["turncheck", "--version"],
    "turncheck pass-rates": ["turncheck", "pass-rates"],
    "turncheck results TURN": ["turncheck", "results", "t-1"],
    "turncheck failures CHECK": ["turncheck", "failures", "no-pii"],
    "turncheck labels export": ["turncheck", "labels", "export"],
    "turncheck webhooks status": ["turncheck", "webhooks", "status"],
    "turncheck alerts history": ["turncheck", "alerts", "history"],
    "import the checks": [sys.executable, "-c", "import turncheck.worker.checks.definitions"],
}


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    turncheck = shutil.which("turncheck", path=str(Path(sys.executable).parent))
    if turncheck is None:
        sys.exit("turncheck is not installed beside this Python: pip install -e .")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNCHECK_")}
    commands = {
        name: [turncheck, *argv[1:]] if argv[0] == "turncheck" else argv
        for name, argv in COMMANDS.items()
    }
    with tempfile.TemporaryDirectory() as scratch:
        cwd = Path(scratch)
        for argv in commands.values():  # makes the store; compiles what is imported
            run(argv, cwd, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, argv in commands.items():
                times[name].append(run(argv, cwd, env))
    bare = statistics.median(times["python -c pass"])
    print(f"median of {args.rounds} runs, each a fresh process\n")
    print("| command | median | / python -c pass |\n|---|---:|---:|")
    for name, runs in times.items():
        median = statistics.median(runs)
        print(f"| `{name}` | {median * 1000:.0f} ms | {median / bare:.1f}x |")


if __name__ == "__main__":
    main()
