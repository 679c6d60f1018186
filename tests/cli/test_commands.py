"""The command line, run as a user runs it: a real process, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.factories import BANNED_WORDS_CHECKS, turn_bytes

ROOT = Path(__file__).parents[2]


def turncheck(
    *args: str, cwd: Path, stdin: bytes = b"", **env: str
) -> subprocess.CompletedProcess[bytes]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TURNCHECK_")}
    return subprocess.run(
        [sys.executable, "-m", "turncheck.worker", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        timeout=60,
        env={**clean, **env},
        check=False,
    )


def test_check_prints_one_line_of_results_per_turn_and_stores_nothing(tmp_path: Path) -> None:
    checks = tmp_path / "checks.yaml"
    checks.write_text(BANNED_WORDS_CHECKS)
    stdin = turn_bytes("t-1", "Ask HelpCo.") + b"\n\n" + turn_bytes("t-2") + b"\n"
    done = turncheck("check", "--checks", str(checks), cwd=tmp_path, stdin=stdin)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["turn_id"] for line in lines] == ["t-1", "t-2"]
    first = {r["check"]: r for r in lines[0]["results"]}
    assert first["no-competitors"]["verdict"] == "failed"
    assert first["no-competitors"]["spans"] == [
        {"field": "output.text", "start": 4, "end": 10, "label": "phrase"}
    ]
    assert first["no-ticket-ids"] == {
        "check": "no-ticket-ids",
        "verdict": "passed",
        "reason": None,
        "score": None,
        "spans": [],
    }
    assert not (tmp_path / ".turncheck").exists()


def test_check_reports_a_bad_line_and_exits_non_zero(tmp_path: Path) -> None:
    checks = tmp_path / "checks.yaml"
    checks.write_text(BANNED_WORDS_CHECKS)
    done = turncheck(
        "check", "--checks", str(checks), cwd=tmp_path, stdin=b"nope\n" + turn_bytes() + b"\n"
    )
    assert done.returncode == 1
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0] == {"line": 1, "error": "not valid JSON"}
    assert lines[1]["turn_id"] == "t-1"


def test_a_bad_check_file_is_refused_at_start_with_its_line(tmp_path: Path) -> None:
    checks = tmp_path / "checks.yaml"
    checks.write_text("agent: a\nchecks:\n  - name: x\n    kind: pattern\n    pattern: '(('\n")
    done = turncheck("run", cwd=tmp_path, TURNCHECK_CHECKS=str(checks))
    assert done.returncode == 2
    message = done.stderr.decode()
    assert "checks.yaml:5" in message and "'x'" in message and "'pattern'" in message


def test_the_readme_quickstart_shows_results_and_pass_rates(tmp_path: Path) -> None:
    """`turncheck run` with no configuration: SQLite, the example checks and turns."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    run = turncheck("run", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert b"12 turns" in run.stderr
    rates = turncheck("pass-rates", "--since", "2026-11-01", "--json", cwd=tmp_path)
    by_check = {r["check"]: r for r in json.loads(rates.stdout)["rates"]}
    assert by_check["no-competitors"]["failed"] == 1
    assert by_check["no-competitors"]["total"] == 12
    results = turncheck("results", "t-1004", "--json", cwd=tmp_path)
    verdicts = {r["check"]: r["verdict"] for r in json.loads(results.stdout)}
    assert verdicts["no-card-numbers"] == "failed"
    again = turncheck("replay", "examples/turns.jsonl", cwd=tmp_path)
    assert b"(0 new" in again.stderr, "a replayed file writes nothing twice"
    table = turncheck("pass-rates", "--since", "2026-11-01", cwd=tmp_path)
    assert b"no-competitors" in table.stdout and b"91.7%" in table.stdout


def test_check_runs_a_judged_check_on_a_pasted_turn_when_a_judge_is_configured(
    tmp_path: Path,
) -> None:
    """No sample in `check`: every judged check asks the configured judge, here a local server."""
    from tests.judge.fake_provider import FakeProvider

    checks = tmp_path / "checks.yaml"
    checks.write_text(
        "agent: support-bot\nchecks:\n"
        "  - {name: polite, kind: judge, criteria: polite_tone, mode: background,"
        " judge_model: judge-small}\n"
    )
    with FakeProvider() as server:
        server.responder = lambda request: (
            '{"verdict": "fail", "score": 0.1, "reason": "The reply is rude."}'
        )
        judges = json.dumps(
            {"judge-small": {"provider": "anthropic", "base_url": server.anthropic_url}}
        )
        done = turncheck(
            "check",
            "--checks",
            str(checks),
            cwd=tmp_path,
            stdin=turn_bytes("t-1", "Figure it out yourself.") + b"\n",
            TURNCHECK_JUDGES=judges,
        )
        sent = server.requests
    assert done.returncode == 0, done.stderr
    [line] = [json.loads(x) for x in done.stdout.splitlines()]
    [result] = line["results"]
    assert (result["verdict"], result["score"], result["reason"]) == (
        "failed",
        0.1,
        "The reply is rude.",
    )
    assert result["usage"]["input_tokens"] > 0
    assert len(sent) == 1 and sent[0].path == "/v1/messages"


def test_bad_judge_settings_are_refused_at_start(tmp_path: Path) -> None:
    checks = tmp_path / "checks.yaml"
    checks.write_text(BANNED_WORDS_CHECKS)
    done = turncheck(
        "check", "--checks", str(checks), cwd=tmp_path, TURNCHECK_JUDGES='{"m": {"provider": "x"}}'
    )
    assert done.returncode == 2
    assert "invalid judges" in done.stderr.decode()


def test_pass_rates_until_leaves_out_the_hours_after_it(tmp_path: Path) -> None:
    """Rollups are hourly by the turn's time: --until drops every hour starting at or after it."""
    checks = tmp_path / "checks.yaml"
    checks.write_text(BANNED_WORDS_CHECKS)
    turns = tmp_path / "turns.jsonl"
    turns.write_bytes(
        turn_bytes("t-1", "Ask HelpCo.", created_at="2026-11-28T10:00:00Z")
        + b"\n"
        + turn_bytes("t-2", created_at="2026-11-29T10:00:00Z")
        + b"\n"
    )
    env = {"TURNCHECK_CHECKS": str(checks)}
    assert turncheck("replay", str(turns), cwd=tmp_path, **env).returncode == 0
    window = ("--since", "2026-11-01", "--until", "2026-11-29T00:00Z", "--json")
    done = turncheck("pass-rates", "--check", "no-competitors", *window, cwd=tmp_path, **env)
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert body["until"] == "2026-11-29T00:00:00+00:00"
    [rate] = body["rates"]
    assert (rate["passed"], rate["failed"]) == (0, 1)
