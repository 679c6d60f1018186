"""A shadow check never alerts, however far below its threshold, and `alerts preview` and
`alerts history` say so; promoted to live, its stored results alert at once. As a user
runs it: the example turns, a real local Slack and SMTP server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.alerts.mail_server import Catcher, running_catcher
from tests.alerts.slack_server import SlackServer
from tests.alerts.test_alerts_cli import ROOT, environment, replay_examples, turncheck

LIVE = (ROOT / "examples" / "checks.yaml").read_text()
SHADOW = LIVE.replace(
    '    allowed: ["30 days"]\n', '    allowed: ["30 days"]\n    rollout: shadow\n'
)


@pytest.fixture
async def mail() -> AsyncIterator[Catcher]:
    async with running_catcher() as catcher:
        yield catcher


def alerted(slack: SlackServer) -> list[str]:
    return sorted(m.text.split(" ", 1)[0] for m in slack.messages)


async def test_a_shadow_check_far_below_its_threshold_alerts_only_once_promoted(
    tmp_path: Path, slack_server: SlackServer, mail: Catcher
) -> None:
    """Every check is below 99%; all but the shadow `grounded` alert. Promoted, it does."""
    assert SHADOW != LIVE
    checks = tmp_path / "checks.yaml"
    checks.write_text(SHADOW)
    env = environment(
        tmp_path,
        slack_server,
        mail,
        TURNCHECK_CHECKS=str(checks),
        TURNCHECK_ALERT_MIN_PASS_RATE="0.99",
    )
    await replay_examples(env)
    code, _, err = await turncheck(env, "alerts", "run-once")
    assert code == 0, err
    live = alerted(slack_server)
    assert len(live) == 6 and "grounded" not in live
    assert all("grounded" not in m["Subject"] for m in mail.messages())

    code, _, err = await turncheck(env, "alerts", "preview", "--check", "grounded")
    assert code == 0, err
    assert "shadow check: no alert is raised (rollout: shadow); live, an alert would be raised" in (
        " ".join(err.split())
    )
    code, _, err = await turncheck(env, "alerts", "history", "--check", "grounded")
    assert code == 0, err
    assert "shadow checks, which raise no alert: grounded for support-bot" in " ".join(err.split())

    checks.write_text(LIVE)
    code, _, err = await turncheck(env, "alerts", "run-once")
    assert code == 0, err
    assert "grounded@support-bot" in err
    assert alerted(slack_server) == sorted([*live, "grounded"])
    [grounded] = [m for m in slack_server.messages if m.text.startswith("grounded")]
    # Its results as a shadow check, kept with its version: 6 of the 12 example turns.
    assert "50.0% of the latest 12 results passed" in grounded.text
