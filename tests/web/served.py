"""``turncheck serve`` as a person runs it, over results ``turncheck replay`` stored: the
example checks over the example turns, copied into many turns dated over the last days
before now, so the pages' 24-hour and 7-day figures, charts and pages of failing turns
all have something to show."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

ROOT = Path(__file__).parents[2]
TOKEN = "browser-test-token"


@dataclass(frozen=True, slots=True)
class Served:
    url: str
    token: str
    folder: Path
    turn_ids: tuple[str, ...]


def demo_turns(now: datetime, copies: int) -> list[dict[str, object]]:
    """``copies`` rounds of the example turns, spread evenly over the six days before
    ``now``, each turn with an id and thread of its own (``t-<round>-<example>``)."""
    lines = (ROOT / "examples" / "turns.jsonl").read_text().splitlines()
    examples = [json.loads(line) for line in lines if line.strip()]
    total = copies * len(examples)
    turns = []
    for n in range(total):
        turn = json.loads(json.dumps(examples[n % len(examples)]))
        original = str(turn["turn_id"])
        turn["turn_id"] = f"{original}-{n // len(examples)}"
        turn["thread_id"] = f"th-{n // len(examples)}"
        at = now - timedelta(days=6) * (total - n) / total
        turn["created_at"] = at.strftime("%Y-%m-%dT%H:%M:%SZ")
        turns.append(turn)
    return turns


def _env(folder: Path, **extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TURNCHECK_")}
    return {
        **clean,
        "TURNCHECK_DATABASE_URL": f"sqlite+aiosqlite:///{folder / 'turncheck.db'}",
        "TURNCHECK_CHECKS": str(ROOT / "examples" / "checks.yaml"),
        "TURNCHECK_TURNS_FILE": str(folder / "turns.jsonl"),
        **extra,
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def served(folder: Path, copies: int = 20) -> Iterator[Served]:
    """The results stored by ``turncheck replay``, then ``turncheck serve`` on a free port of
    127.0.0.1 with ``TOKEN``, stopped (SIGTERM) on leaving."""
    turns = demo_turns(datetime.now(UTC), copies)
    with (folder / "turns.jsonl").open("w") as out:
        out.writelines(json.dumps(turn) + "\n" for turn in turns)
    command = [sys.executable, "-m", "turncheck.worker"]
    stored = subprocess.run(
        [*command, "replay", str(folder / "turns.jsonl")],
        cwd=folder,
        env=_env(folder),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert stored.returncode == 0, stored.stderr
    port = _free_port()
    env = _env(folder, TURNCHECK_API_TOKEN=TOKEN, TURNCHECK_API_PORT=str(port))
    log = (folder / "serve.log").open("w")
    server = subprocess.Popen([*command, "serve"], cwd=folder, env=env, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, (folder / "serve.log").read_text()
            try:
                if httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "turncheck serve did not become ready"
            time.sleep(0.2)
        yield Served(url, TOKEN, folder, tuple(str(t["turn_id"]) for t in turns))
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
