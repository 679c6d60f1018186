"""A check's `alert:` in its file, the settings' defaults, and what is refused at start."""

from pathlib import Path

import pytest

from tests.factories import check_set
from turncheck.alerts.policy import AlertPolicy
from turncheck.alerts.setup import default_policy, watched_checks
from turncheck.worker.errors import CheckDefinitionError, ConfigurationError
from turncheck.worker.settings import Settings

CHECKS = """\
agent: support-bot
checks:
  - name: quiet
    kind: pattern
    pattern: x
    alert: off
  - name: strict
    kind: pattern
    pattern: y
    alert:
      latest: 100
      min_pass_rate: 0.99
      channels: [mail]
  - name: plain
    kind: pattern
    pattern: z
"""
DEFAULTS = AlertPolicy(200, 0.95, 50, ("slack", "mail"))


def test_off_is_not_watched_and_a_check_s_values_replace_the_defaults(tmp_path: Path) -> None:
    watched = {w.check: w.policy for w in watched_checks(check_set(tmp_path, CHECKS), DEFAULTS)}
    assert set(watched) == {"strict", "plain"}
    assert watched["strict"] == AlertPolicy(100, 0.99, 50, ("mail",))
    assert watched["plain"] == DEFAULTS


def test_a_new_threshold_keeps_the_check_s_version(tmp_path: Path) -> None:
    """Results and rates carry on across a change of alert."""
    before = check_set(tmp_path, CHECKS).for_agent("support-bot", 7)
    after = check_set(tmp_path, CHECKS.replace("0.99", "0.5")).for_agent("support-bot", 7)
    assert [c.id for c in before] == [c.id for c in after]


@pytest.mark.parametrize(
    ("alert", "line", "field", "message"),
    [
        ("alert:\n      min_pass_rate: 1.5", 7, "alert.min_pass_rate", "less than or equal to 1"),
        ("alert:\n      latest: 10\n      min_results: 20", 7, "alert", "could never fire"),
        ("alert:\n      channels: [slack, pager]", 7, "alert.channels.1", "'slack' or 'mail'"),
        ("alert:\n      channels: [mail, mail]", 7, "alert.channels", "named twice"),
        ("alert:\n      window: 10", 7, "alert.window", "Extra inputs"),
        ("alert: sometimes", 6, "alert", "use `off`"),
    ],
)
def test_a_bad_alert_is_refused_with_its_line_and_field(
    tmp_path: Path, alert: str, line: int, field: str, message: str
) -> None:
    text = f"agent: a\nchecks:\n  - name: c\n    kind: pattern\n    pattern: x\n    {alert}\n"
    with pytest.raises(CheckDefinitionError) as caught:
        check_set(tmp_path, text)
    error = caught.value
    assert (error.line, error.check, error.field) == (line, "c", field)
    assert message in error.message


def test_a_check_naming_a_channel_not_configured_is_refused(tmp_path: Path) -> None:
    checks = check_set(tmp_path, CHECKS)
    with pytest.raises(ConfigurationError, match=r"check 'strict' .* 'alert.channels' names mail"):
        watched_checks(checks, AlertPolicy(channels=("slack",)), configured=("slack",))


def test_default_channels_are_those_configured() -> None:
    slack_only = Settings(alert_slack_webhook_url="http://127.0.0.1:9/services/x")
    assert default_policy(slack_only).channels == ("slack",)
    both = Settings(alert_slack_token="xoxb-1", alert_mail_host="mail", alert_mail_to=["a@b.c"])
    assert default_policy(both).channels == ("slack", "mail")


def test_naming_a_channel_not_configured_in_the_settings_is_refused() -> None:
    settings = Settings(alert_channels=["mail"], alert_slack_token="xoxb-1")
    with pytest.raises(ConfigurationError, match="TURNCHECK_ALERT_CHANNELS: mail is not"):
        default_policy(settings)
