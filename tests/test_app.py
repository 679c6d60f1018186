"""``plan``, the composition root's check of what the settings configure: the same in
every mode, the Kafka worker's and a file's (``run`` without Kafka, ``replay``, ``check``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.factories import BANNED_WORDS_CHECKS
from turncheck.worker.app import plan
from turncheck.worker.errors import ConfigurationError
from turncheck.worker.settings import Settings

MODES = [pytest.param(None, id="file"), pytest.param("127.0.0.1:9", id="kafka")]
JUDGE = {"provider": "openai", "base_url": "http://127.0.0.1:9/v1"}


def settings_for(tmp_path: Path, kafka: str | None, checks: str, **values: object) -> Settings:
    path = tmp_path / "checks.yaml"
    path.write_text(checks)
    return Settings(  # type: ignore[arg-type]
        kafka_bootstrap=kafka,
        database_url=f"sqlite+aiosqlite:///{tmp_path}/t.db",
        checks=[path],
        **values,
    )


def judged(*fields: str) -> str:
    extra = "".join(f", {field}" for field in fields)
    return (
        "agent: support-bot\nchecks:\n"
        "  - {name: no-ticket-ids, kind: pattern, pattern: 'TCK-[0-9]{6}'}\n"
        f"  - {{name: polite, kind: judge, criteria: polite_tone, mode: background{extra}}}\n"
    )


@pytest.mark.parametrize("kafka", MODES)
def test_an_alert_channel_that_is_not_configured_is_refused_in_every_mode(
    tmp_path: Path, kafka: str | None
) -> None:
    """Alerts are sent by the Kafka worker only, but a file run refuses the same setting."""
    s = settings_for(
        tmp_path,
        kafka,
        BANNED_WORDS_CHECKS,
        alert_slack_webhook_url="https://hooks.slack.invalid/services/T0/B0/x",
        alert_channels=["mail"],
    )
    with pytest.raises(
        ConfigurationError, match="TURNCHECK_ALERT_CHANNELS: mail is not configured"
    ):
        plan(s)


@pytest.mark.parametrize("kafka", MODES)
def test_an_alert_channel_named_when_none_is_configured_is_refused(
    tmp_path: Path, kafka: str | None
) -> None:
    """Asking for mail alerts with no channel set up at all is the same mistake as with
    Slack set up: refused, not silently read as "alerts off"."""
    s = settings_for(tmp_path, kafka, BANNED_WORDS_CHECKS, alert_channels=["mail"])
    with pytest.raises(
        ConfigurationError, match="TURNCHECK_ALERT_CHANNELS: mail is not configured"
    ):
        plan(s)


@pytest.mark.parametrize("kafka", MODES)
def test_an_embedded_api_open_to_the_network_without_a_token_is_refused_in_every_mode(
    tmp_path: Path, kafka: str | None
) -> None:
    """Asked for with no token on a public address, the API is refused in a file run too."""
    s = settings_for(tmp_path, kafka, BANNED_WORDS_CHECKS, api_in_run=True, api_host="0.0.0.0")
    with pytest.raises(ConfigurationError, match="TURNCHECK_API_TOKEN: required"):
        plan(s)


@pytest.mark.parametrize("kafka", MODES)
def test_judged_checks_are_refused_when_no_judge_is_configured(
    tmp_path: Path, kafka: str | None
) -> None:
    """Without judges every judged result would be errored: refused, naming check and agent."""
    s = settings_for(tmp_path, kafka, judged("judge_model: judge-small"), judges="{}")
    with pytest.raises(ConfigurationError) as refused:
        plan(s)
    assert str(refused.value) == (
        "check 'polite' of agent 'support-bot' needs a judge, and TURNCHECK_JUDGES "
        "configures none (see examples/judges.yaml)"
    )


@pytest.mark.parametrize("kafka", MODES)
def test_a_judge_model_the_judges_do_not_define_is_refused(
    tmp_path: Path, kafka: str | None
) -> None:
    """A check's own judge model must be one of TURNCHECK_JUDGES, whose names the line lists."""
    judges = json.dumps({"judge-small": JUDGE, "judge-big": JUDGE})
    s = settings_for(tmp_path, kafka, judged("judge_model: judge-tiny"), judges=judges)
    with pytest.raises(ConfigurationError) as refused:
        plan(s)
    assert str(refused.value) == (
        "check 'polite' of agent 'support-bot': field 'judge_model' names 'judge-tiny', "
        "which TURNCHECK_JUDGES does not define (it defines judge-big, judge-small)"
    )


@pytest.mark.parametrize("kafka", MODES)
def test_a_judged_check_on_the_turns_own_model_is_left_to_each_turn(
    tmp_path: Path, kafka: str | None
) -> None:
    """With judges configured, whether one serves a turn's model is only known per turn."""
    s = settings_for(tmp_path, kafka, judged(), judges=json.dumps({"judge-small": JUDGE}))
    parts = plan(s)
    assert [c.name for c in parts.checks.judged_for_agent("support-bot", 7)] == ["polite"]
