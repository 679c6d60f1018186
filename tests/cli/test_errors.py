"""What the command line says when something is wrong: one line, no traceback, and an exit
code that says whose move it is (2: fix a setting or argument, 3: a service is down)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import make_url

from tests.cli.test_commands import ROOT, turncheck
from tests.conftest import service

PASSWORD = "s3cret-pw"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A folder like the README's: the example checks and turns, the default SQLite store."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    return tmp_path


def one_line(done: subprocess.CompletedProcess[bytes]) -> str:
    """The only line on stderr; fails if there is a traceback or a second line."""
    text = done.stderr.decode()
    assert "Traceback" not in text
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


@pytest.mark.parametrize(
    "command",
    [
        ["run"],
        ["replay", "examples/turns.jsonl"],
        ["results", "t-1"],
        ["results", "t-1", "--json"],
        ["pass-rates"],
        ["migrate"],
    ],
)
def test_an_unreachable_postgresql_is_one_line_naming_host_and_cause(
    workdir: Path, closed_port: int, command: list[str]
) -> None:
    url = f"postgresql+asyncpg://turncheck:{PASSWORD}@127.0.0.1:{closed_port}/turncheck"
    done = turncheck(*command, cwd=workdir, TURNCHECK_DATABASE_URL=url)
    assert done.returncode == 3
    assert (
        one_line(done) == f"database at 127.0.0.1:{closed_port} is unavailable: connection refused"
    )
    assert PASSWORD.encode() not in done.stderr + done.stdout


def test_run_on_kafka_probes_the_database_before_consuming(workdir: Path, closed_port: int) -> None:
    done = turncheck(
        "run",
        cwd=workdir,
        TURNCHECK_DATABASE_URL=f"postgresql+asyncpg://u:{PASSWORD}@127.0.0.1:{closed_port}/db",
        TURNCHECK_KAFKA_BOOTSTRAP=f"127.0.0.1:{closed_port}",
    )
    assert done.returncode == 3
    assert one_line(done).startswith(f"database at 127.0.0.1:{closed_port} is unavailable")


@pytest.mark.parametrize("command", [["run"], ["replay", "examples/turns.jsonl"]])
def test_an_unreachable_broker_is_one_line_naming_host_and_cause(
    workdir: Path, closed_port: int, command: list[str]
) -> None:
    done = turncheck(*command, cwd=workdir, TURNCHECK_KAFKA_BOOTSTRAP=f"127.0.0.1:{closed_port}")
    assert done.returncode == 3
    assert one_line(done) == f"Kafka at 127.0.0.1:{closed_port} is unavailable: connection refused"


def test_an_unknown_database_host_is_named(workdir: Path) -> None:
    done = turncheck(
        "pass-rates",
        cwd=workdir,
        TURNCHECK_DATABASE_URL=f"postgresql+asyncpg://u:{PASSWORD}@nohost.invalid/db",
    )
    assert done.returncode == 3
    assert one_line(done) == "database at nohost.invalid:5432 is unavailable: unknown host"


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("change", "cause"),
    [
        ({"password": PASSWORD}, "authentication failed"),
        ({"database": "turncheck_no_such_database"}, "database does not exist"),
    ],
)
def test_a_misconfigured_postgresql_names_the_cause_never_the_password(
    workdir: Path, change: dict[str, str], cause: str
) -> None:
    server = make_url(service("TURNCHECK_TEST_DATABASE_URL"))
    url = server.set(**change).render_as_string(hide_password=False)
    done = turncheck("migrate", cwd=workdir, TURNCHECK_DATABASE_URL=url)
    assert done.returncode == 3
    assert one_line(done) == f"database at {server.host}:{server.port} is unavailable: {cause}"
    assert PASSWORD.encode() not in done.stderr


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("TURNCHECK_RETENTION_DAYS", "abc"),
        ("TURNCHECK_LOG_FORMAT", "xml"),
        ("TURNCHECK_DATABASE_URL", "not a url"),
        ("TURNCHECK_KAFKA_BOOTSTRAP", "localhost:abc"),
    ],
)
def test_a_bad_setting_is_one_line_naming_the_variable(
    workdir: Path, variable: str, value: str
) -> None:
    done = turncheck("replay", "examples/turns.jsonl", cwd=workdir, **{variable: value})
    assert done.returncode == 2
    assert one_line(done).startswith(f"invalid setting {variable}: ")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["replay", "examples"], "not a file: examples is a folder"),
        (["replay", "missing.jsonl"], "no such file: missing.jsonl"),
        (
            ["pass-rates", "--since", "9999999d"],
            "invalid --since '9999999d': goes back past the year 1",
        ),
        (
            ["pass-rates", "--since", "2026-02-30"],
            "invalid --since '2026-02-30': use 7d, 12h, 30m, 2w or an ISO date",
        ),
        (
            ["failures", "grounded", "--until", "tomorrow"],
            "invalid --until 'tomorrow': use 7d, 12h, 30m, 2w or an ISO date",
        ),
        (
            ["pass-rates", "--since", "1d", "--until", "2d"],
            "invalid --until '2d': it is not after --since '1d', so the window holds nothing",
        ),
        (
            ["failures", "grounded", "--since", "2026-11-01", "--until", "2026-11-01"],
            "invalid --until '2026-11-01': it is not after --since '2026-11-01', "
            "so the window holds nothing",
        ),
    ],
)
def test_a_bad_argument_is_one_line_before_any_service_is_tried(
    workdir: Path, closed_port: int, args: list[str], line: str
) -> None:
    """The database is down too: the argument is still what the person hears about first."""
    url = f"postgresql+asyncpg://u:p@127.0.0.1:{closed_port}/db"
    done = turncheck(*args, cwd=workdir, TURNCHECK_DATABASE_URL=url)
    assert done.returncode == 2
    assert one_line(done) == line


def test_a_check_or_agent_without_results_is_one_line_and_exit_1(workdir: Path) -> None:
    """A typo is not an empty table; a known check with nothing in the window is."""
    assert turncheck("run", cwd=workdir).returncode == 0
    known = "checks with results: grounded, no-card-numbers, no-competitors"
    for args, line in [
        (["pass-rates", "--check", "grounde"], f"no results for check 'grounde'; {known}"),
        (["failures", "grounde"], f"no results for check 'grounde'; {known}"),
        (
            ["pass-rates", "--agent", "sales-bot"],
            "no results for agent 'sales-bot'; agents with results: support-bot",
        ),
        (
            ["failures", "grounded", "--agent", "sales-bot", "--json"],
            "no agent 'sales-bot' has results for check 'grounded'; "
            "agents with results for it: support-bot",
        ),
    ]:
        done = turncheck(*args, cwd=workdir)
        assert done.returncode == 1, args
        assert one_line(done).startswith(line), args
    assert json.loads(done.stdout) == []  # --json still prints its (empty) answer
    for args in (["pass-rates", "--check", "grounded"], ["failures", "grounded"]):
        empty = turncheck(*args, "--since", "1999-01-01", "--until", "2000-01-01", cwd=workdir)
        assert empty.returncode == 0 and empty.stderr == b"", args


JUDGED_CHECKS = (
    "agent: support-bot\nchecks:\n"
    "  - {name: polite, kind: judge, criteria: polite_tone, mode: background}\n"
)
BAD_WEBHOOKS = '[{"name": "ops", "url": "https://hooks.example/", "secret": "not-a-secret"}]'


@pytest.mark.parametrize(
    "mode",
    [
        pytest.param(["run"], id="file-run"),
        pytest.param(["replay", "examples/turns.jsonl"], id="replay"),
        pytest.param(["check"], id="check"),
        pytest.param(["run", "--kafka"], id="kafka-run"),
    ],
)
@pytest.mark.parametrize(
    ("setting", "line"),
    [
        pytest.param(
            {"TURNCHECK_WEBHOOKS": BAD_WEBHOOKS},
            "TURNCHECK_WEBHOOKS: webhooks[0] ('ops'): field 'secret': must start with whsec_ "
            "(a Standard Webhooks secret)",
            id="bad-webhooks",
        ),
        pytest.param(
            {"TURNCHECK_CHECKS": "judged.yaml"},
            "check 'polite' of agent 'support-bot' needs a judge, and TURNCHECK_JUDGES "
            "configures none (see examples/judges.yaml)",
            id="judged-without-judges",
        ),
    ],
)
def test_a_setting_that_can_never_work_is_refused_at_start_in_every_mode(
    workdir: Path, closed_port: int, mode: list[str], setting: dict[str, str], line: str
) -> None:
    """File run, replay, check and the Kafka worker refuse the same settings, with one
    line and exit 2, before the database or the broker (both down here) is tried."""
    (workdir / "judged.yaml").write_text(JUDGED_CHECKS)
    env = {"TURNCHECK_DATABASE_URL": f"postgresql+asyncpg://u:p@127.0.0.1:{closed_port}/db"}
    if mode[-1] == "--kafka":
        mode = mode[:-1]
        env["TURNCHECK_KAFKA_BOOTSTRAP"] = f"127.0.0.1:{closed_port}"
    done = turncheck(*mode, cwd=workdir, **env, **setting)
    assert done.returncode == 2
    assert one_line(done) == line


def test_an_erasure_time_out_of_range_in_utc_is_bad_input_not_an_outage(workdir: Path) -> None:
    """A --requested-at that cannot be written in UTC is refused as the argument it is
    (exit 2, naming it), with the key set and the database up."""
    done = turncheck(
        "erase",
        "p-1",
        "--requested-at",
        "0001-01-01T00:00:00+14:00",
        cwd=workdir,
        TURNCHECK_ERASURE_KEY="k",
    )
    assert done.returncode == 2
    assert one_line(done) == (
        "invalid --requested-at '0001-01-01T00:00:00+14:00': out of range once converted to UTC"
    )


def test_results_as_json_exit_1_when_nothing_is_found(workdir: Path) -> None:
    done = turncheck("results", "t-none", "--json", cwd=workdir)
    assert done.returncode == 1
    assert json.loads(done.stdout) == []


def test_version_prints_the_installed_version_and_the_engines(workdir: Path) -> None:
    from importlib.metadata import version

    done = turncheck("--version", cwd=workdir)
    assert done.returncode == 0
    first, *engines = done.stdout.decode().splitlines()
    assert first == f"turncheck {version('turncheck')}"
    assert [line.split(":")[0].strip() for line in engines] == ["gates", "native", "scripts"]


def test_flags_show_as_flags_in_help(workdir: Path) -> None:
    text = turncheck("pass-rates", "--help", cwd=workdir).stdout.decode()
    [json_line] = [line for line in text.splitlines() if "--json" in line]
    assert json_line.split() == ["--json", "Print", "JSON", "instead", "of", "text."]
    assert "--no-json" not in text and "<bool>" not in text


def test_no_alembic_chatter_when_sqlite_is_migrated_on_the_way(workdir: Path) -> None:
    rates = turncheck("pass-rates", cwd=workdir)
    run = turncheck("run", cwd=workdir, TURNCHECK_DATABASE_URL="sqlite+aiosqlite:///other.db")
    assert rates.returncode == run.returncode == 0
    for done in (rates, run):
        output = done.stdout + done.stderr
        assert b"alembic" not in output and b"Context impl" not in output


def test_json_log_lines_each_parse_as_one_object(workdir: Path) -> None:
    done = turncheck("run", cwd=workdir, TURNCHECK_LOG_FORMAT="json")
    assert done.returncode == 0, done.stderr
    *log_lines, summary = done.stderr.decode().strip().splitlines()
    assert summary.startswith("12 turns")
    records = [json.loads(line) for line in log_lines]
    assert {"turncheck.worker.pipeline.batch"} <= {r["logger"] for r in records}
    assert all(r.keys() == {"time", "level", "logger", "message"} for r in records)
