"""`turncheck alerts …` as a user runs it: the example turns, a low threshold, a real local
Slack and SMTP server; and two replicas at once on one PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.alerts.mail_server import Catcher, running_catcher
from tests.alerts.slack_server import CHANNEL, TOKEN, SlackServer
from tests.conftest import fresh_store

ROOT = Path(__file__).parents[2]


@pytest.fixture
async def mail() -> AsyncIterator[Catcher]:
    async with running_catcher() as catcher:
        yield catcher


def environment(tmp_path: Path, slack: SlackServer, mail: Catcher, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNCHECK_")}
    env.update(
        TURNCHECK_DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path}/t.db",
        TURNCHECK_CHECKS=str(ROOT / "examples" / "checks.yaml"),
        # The example turns: 12 per check; only `grounded` (6 of 12) is below 60%.
        TURNCHECK_ALERT_MIN_RESULTS="10",
        TURNCHECK_ALERT_MIN_PASS_RATE="0.6",
        TURNCHECK_ALERT_DIGEST_HOUR="",
        TURNCHECK_ALERT_SLACK_TOKEN=TOKEN,
        TURNCHECK_ALERT_SLACK_CHANNEL=CHANNEL,
        TURNCHECK_ALERT_SLACK_BASE_URL=slack.base_url,
        TURNCHECK_ALERT_MAIL_HOST="127.0.0.1",
        TURNCHECK_ALERT_MAIL_PORT=str(mail.port),
        TURNCHECK_ALERT_MAIL_SECURITY="none",
        TURNCHECK_ALERT_MAIL_TO="admins@example.com,oncall@example.com",
        TURNCHECK_ALERT_MAIL_FROM="turncheck@example.com",
    )
    env.update(more)
    return env


async def turncheck(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "turncheck.worker",
        *args,
        env=env,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def replay_examples(env: dict[str, str]) -> None:
    code, _, err = await turncheck(env, "replay", str(ROOT / "examples" / "turns.jsonl"))
    assert code == 0, err


async def test_run_once_delivers_one_slack_message_and_one_mail_then_none_that_day(
    tmp_path: Path, slack_server: SlackServer, mail: Catcher
) -> None:
    env = environment(tmp_path, slack_server, mail)
    await replay_examples(env)
    code, _, err = await turncheck(env, "alerts", "run-once")
    assert code == 0, err
    assert "grounded@support-bot" in err

    [slack] = slack_server.messages
    verdict = "below threshold, 50.0% of the latest 12 results passed (threshold 60.0%)"
    assert slack.channel == CHANNEL and slack.text == f"grounded (support-bot): {verdict}."
    assert slack.blocks[0]["text"]["text"] == "Check grounded: below threshold"
    [message] = mail.messages()
    assert message["Subject"] == f"[turncheck] grounded for support-bot: {verdict}"
    assert set(mail.envelopes[0].rcpt_tos) == {"admins@example.com", "oncall@example.com"}
    html = message.get_body(("html",))
    assert html is not None and 'src="cid:chart"' in html.get_content()
    [chart] = [part for part in message.walk() if part.get_content_type() == "image/png"]
    assert chart["Content-ID"] == "<chart>"
    text = message.get_body(("plain",))
    assert text is not None and "passed      6" in text.get_content()

    code, _, err = await turncheck(env, "alerts", "run-once", "--json")
    assert code == 0, err
    assert len(slack_server.messages) == 1 and len(mail.envelopes) == 1
    code, out, _ = await turncheck(env, "alerts", "history", "--json")
    rows = json.loads(out)
    assert sorted((r["check"], r["channel"], r["status"], r["suppressed"]) for r in rows) == [
        ("grounded", "mail", "sent", 1),
        ("grounded", "slack", "sent", 1),
    ]


async def test_no_text_of_a_turn_reaches_slack_or_mail(
    tmp_path: Path, slack_server: SlackServer, mail: Catcher
) -> None:
    env = environment(tmp_path, slack_server, mail, TURNCHECK_ALERT_MIN_PASS_RATE="0.99")
    await replay_examples(env)
    assert (await turncheck(env, "alerts", "run-once"))[0] == 0
    sent = [json.dumps(m.blocks) + m.text for m in slack_server.messages]
    sent += [
        e.content.decode(errors="replace") for e in mail.envelopes if isinstance(e.content, bytes)
    ]
    assert len(slack_server.messages) == 7  # every check but the one with `alert: off`
    turns = [
        json.loads(line) for line in (ROOT / "examples" / "turns.jsonl").read_text().splitlines()
    ]
    answers = [t["output"]["text"] for t in turns if len(t["output"]["text"]) > 20]
    for answer in answers:
        for fragment in (answer[:20], answer[-20:]):
            assert not any(fragment in message for message in sent), fragment


async def test_a_failed_send_exits_1_and_is_kept_for_a_retry(
    tmp_path: Path, slack_server: SlackServer, mail: Catcher
) -> None:
    env = environment(tmp_path, slack_server, mail, TURNCHECK_ALERT_SLACK_TOKEN="xoxb-wrong")
    await replay_examples(env)
    code, _, err = await turncheck(env, "alerts", "run-once")
    assert code == 1 and "1 failed" in err
    code, out, _ = await turncheck(env, "alerts", "history", "--json")
    by_channel = {r["channel"]: r for r in json.loads(out)}
    assert by_channel["slack"]["status"] == "pending"
    assert by_channel["slack"]["last_error"] == "invalid_auth"
    assert by_channel["mail"]["status"] == "sent"
    assert "xoxb-wrong" not in out + err


async def test_preview_renders_both_messages_and_sends_nothing(
    tmp_path: Path, slack_server: SlackServer, mail: Catcher
) -> None:
    env = environment(tmp_path, slack_server, mail)
    await replay_examples(env)
    code, out, err = await turncheck(env, "alerts", "preview", "--check", "grounded")
    assert code == 0, err
    verdict = "below threshold, 50.0% of the latest 12 results passed (threshold 60.0%)"
    assert err == f"grounded for support-bot: {verdict}; an alert would be raised\n"
    assert f"grounded (support-bot): {verdict}." in out  # Slack's text
    assert f"Subject: [turncheck] grounded for support-bot: {verdict}" in out
    code, out, err = await turncheck(env, "alerts", "preview", "--digest", "--channel", "mail")
    assert code == 0, err
    assert "turncheck digest for" in out and "grounded (support-bot): below threshold" in out
    assert slack_server.messages == [] and mail.envelopes == []
    code, out, _ = await turncheck(env, "alerts", "history", "--json")
    assert json.loads(out) == []


async def test_preview_says_too_few_results_on_both_streams_in_the_same_words(
    tmp_path: Path, slack_server: SlackServer, mail: Catcher
) -> None:
    """12 results of the 50 needed: neither standard error nor any message says below or
    ok, and the digest marks no check green."""
    env = environment(tmp_path, slack_server, mail, TURNCHECK_ALERT_MIN_RESULTS="50")
    await replay_examples(env)
    code, out, err = await turncheck(env, "alerts", "preview", "--check", "grounded")
    assert code == 0, err
    verdict = "too few results (12 of 50), 50.0% of the latest 12 results passed (threshold 60.0%)"
    assert err == f"grounded for support-bot: {verdict}; no alert would be raised now\n"
    assert f"grounded (support-bot): {verdict}." in out
    assert f"Subject: [turncheck] grounded for support-bot: {verdict}" in out
    assert f"Check grounded for agent support-bot: {verdict}." in out
    assert "below" not in out
    code, out, err = await turncheck(env, "alerts", "preview", "--digest")
    assert code == 0, err
    assert "🟢" not in out and "⚪ *grounded* · support-bot: too few results (12 of 50)" in out
    assert "grounded (support-bot): too few results (12 of 50)" in out
    assert ": ok" not in out and "0 of 7 checks below their threshold, 7 with too few" in out


async def test_preview_html_is_a_standalone_page_on_stdout_or_in_a_file(
    tmp_path: Path, slack_server: SlackServer, mail: Catcher
) -> None:
    env = environment(tmp_path, slack_server, mail)
    await replay_examples(env)
    code, out, err = await turncheck(env, "alerts", "preview", "--check", "grounded", "--html")
    assert code == 0, err
    assert out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")
    assert 'src="data:image/png;base64,' in out and "cid:" not in out
    assert "Subject:" not in out and "─" not in out
    page = tmp_path / "alert.html"
    args = ("alerts", "preview", "--check", "grounded", "--html", "--out", str(page))
    code, written, err = await turncheck(env, *args)
    assert code == 0 and written == "", err
    assert err.endswith(f"wrote {page}\n")
    assert page.read_text(encoding="utf-8").rstrip("\n") == out.rstrip("\n")
    for refused in (
        ("--out", str(page)),
        ("--html", "--channel", "slack"),
        ("--html", "--out", str(tmp_path / "missing" / "alert.html")),
    ):
        code, _, err = await turncheck(env, "alerts", "preview", "--check", "grounded", *refused)
        assert code == 2 and len(err.splitlines()) == 1, (refused, err)


async def test_preview_of_an_unknown_check_is_refused(
    tmp_path: Path, slack_server: SlackServer, mail: Catcher
) -> None:
    env = environment(tmp_path, slack_server, mail)
    code, _, err = await turncheck(env, "alerts", "preview", "--check", "nope")
    assert code == 2 and "no check 'nope'" in err


async def test_run_once_without_a_channel_says_what_to_set(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNCHECK_")}
    env["TURNCHECK_DATABASE_URL"] = f"sqlite+aiosqlite:///{tmp_path}/t.db"
    code, _, err = await turncheck(env, "alerts", "run-once")
    assert code == 2
    assert "no alert channel is configured" in err and "TURNCHECK_ALERT_MAIL_HOST" in err


async def test_failures_lists_the_turns_an_alert_points_to(
    tmp_path: Path, slack_server: SlackServer, mail: Catcher
) -> None:
    env = environment(tmp_path, slack_server, mail)
    await replay_examples(env)
    code, out, err = await turncheck(
        env,
        "failures",
        "grounded",
        "--agent",
        "support-bot",
        "--since",
        "3650d",
        "--json",
    )
    assert code == 0, err
    rows = json.loads(out)
    assert len(rows) == 6 and {r["verdict"] for r in rows} == {"failed"}
    assert {r["check"] for r in rows} == {"grounded"}
    code, out, _ = await turncheck(
        env, "failures", "grounded", "--since", "3650d", "--until", "3649d", "--json"
    )
    assert code == 0 and json.loads(out) == []  # all were stored after that


async def test_run_refuses_a_check_naming_a_channel_not_configured_before_any_service(
    tmp_path: Path, closed_port: int
) -> None:
    checks = tmp_path / "checks.yaml"
    checks.write_text(
        "agent: a\nchecks:\n  - name: c\n    kind: pattern\n    pattern: x\n"
        "    alert: {channels: [mail]}\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNCHECK_")}
    env.update(
        TURNCHECK_DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path}/t.db",
        TURNCHECK_KAFKA_BOOTSTRAP=f"127.0.0.1:{closed_port}",
        TURNCHECK_CHECKS=str(checks),
        TURNCHECK_ALERT_SLACK_WEBHOOK_URL="http://127.0.0.1:9/services/T/B/x",
    )
    code, _, err = await turncheck(env, "run")
    assert code == 2, err
    assert "check 'c' of agent 'a': field 'alert.channels' names mail" in err


@pytest.mark.postgres
async def test_two_replicas_at_once_on_postgres_send_one_alert(
    tmp_path: Path, slack_server: SlackServer, mail: Catcher, postgres_url: str
) -> None:
    store = await fresh_store(postgres_url)
    await store.close()
    env = environment(tmp_path, slack_server, mail, TURNCHECK_DATABASE_URL=postgres_url)
    await replay_examples(env)
    first, second = await asyncio.gather(
        turncheck(env, "alerts", "run-once", "--json"),
        turncheck(env, "alerts", "run-once", "--json"),
    )
    assert (first[0], second[0]) == (0, 0), first[2] + second[2]
    raised = json.loads(first[1])["raised"] + json.loads(second[1])["raised"]
    assert raised == ["grounded@support-bot"]
    assert len(slack_server.messages) == 1 and len(mail.envelopes) == 1
