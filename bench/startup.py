"""Start-up: the wall time of ``turncheck --help``, ``--version`` and the read commands,
each a fresh process, next to ``python -c pass`` (the interpreter alone) as a ratio.

Runs in a scratch folder on the embedded SQLite store (made by a first, untimed run of
each command), so the read commands find nothing: what is timed is their start, a
database opened and one query, not the size of a store. Rounds are interleaved (each
round runs every command once) so a busy machine disturbs all of them alike; the
figure is the median of the rounds. Exit codes are not the point (a read command
finding nothing exits 1).

``--other PYTHON`` times another install's commands in the same rounds (the Python
of a virtualenv holding another checkout, e.g. main before a change), each in a
scratch folder of its own, with its ratio to this one's.

Run: python bench/startup.py [--rounds 9] [--other ../before/.venv/bin/python]
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


def commands_of(python: str) -> dict[str, list[str]]:
    turncheck = shutil.which("turncheck", path=str(Path(python).parent))
    if turncheck is None:
        sys.exit(f"turncheck is not installed beside {python}: pip install -e .")
    return {
        name: [turncheck, *argv[1:]] if argv[0] == "turncheck" else [python, *argv[1:]]
        for name, argv in COMMANDS.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--other", help="another install's Python, timed in the same rounds")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNCHECK_")}
    installs = {"this": commands_of(sys.executable)}
    if args.other:
        installs["other"] = commands_of(args.other)
    times = {(i, name): [] for i, commands in installs.items() for name in commands}
    with tempfile.TemporaryDirectory() as scratch:
        folders = {i: Path(scratch) / i for i in installs}
        for install, commands in installs.items():
            folders[install].mkdir()
            for argv in commands.values():  # makes the store; compiles what is imported
                run(argv, folders[install], env)
        for _ in range(args.rounds):
            for (install, name), runs in times.items():
                runs.append(run(installs[install][name], folders[install], env))
    medians = {key: statistics.median(runs) for key, runs in times.items()}
    bare = medians["this", "python -c pass"]
    print(f"median of {args.rounds} runs, each a fresh process\n")
    head = "| command | median | / python -c pass |"
    if args.other:
        head += " other install | / python -c pass | other / this |"
    print(head + "\n|---|" + "---:|" * (head.count("|") - 2))
    for name in COMMANDS:
        median = medians["this", name]
        row = f"| `{name}` | {median * 1000:.0f} ms | {median / bare:.1f}x |"
        if args.other:
            other = medians["other", name]
            row += f" {other * 1000:.0f} ms | {other / bare:.1f}x | {other / median:.1f}x |"
        print(row)


if __name__ == "__main__":
    main()
