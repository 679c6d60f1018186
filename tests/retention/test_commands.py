"""`turncheck erase` and `turncheck purge` as a user runs them, on the example turns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def turncheck(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "turncheck.worker", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_erase_then_purge_from_the_command_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNCHECK_")}
    env.update(
        TURNCHECK_DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path}/t.db",
        TURNCHECK_CHECKS=str(ROOT / "examples" / "checks.yaml"),
    )
    assert turncheck(env, "replay", str(ROOT / "examples" / "turns.jsonl")).returncode == 0
    turns = [
        json.loads(line) for line in (ROOT / "examples" / "turns.jsonl").read_text().splitlines()
    ]
    person = turns[0]["person_id"]
    theirs = sum(t["person_id"] == person for t in turns)

    refused = turncheck(env, "erase", person)
    assert refused.returncode == 2 and "TURNCHECK_ERASURE_KEY" in refused.stderr

    done = turncheck({**env, "TURNCHECK_ERASURE_KEY": "k"}, "erase", person, "--json")
    assert done.returncode == 0, done.stderr
    receipt = json.loads(done.stdout)
    assert receipt["deleted"]["results"] == 8 * theirs  # eight checks per turn
    assert person not in done.stdout

    purged = turncheck(env, "purge", "--json")
    assert purged.returncode == 0, purged.stderr
    assert json.loads(purged.stdout)["results"] == 0  # the example turns have not expired
