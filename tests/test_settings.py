"""Settings from TURNCHECK_* variables, and what a bad one says."""

from __future__ import annotations

import pytest

from turncheck.worker.errors import ConfigurationError
from turncheck.worker.settings import load_settings


def test_a_bad_value_names_its_variable_and_never_the_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TURNCHECK_RETENTION_DAYS", "abc-secret")
    monkeypatch.setenv("TURNCHECK_LOG_FORMAT", "xml")
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    message = str(caught.value)
    assert message.startswith("invalid setting TURNCHECK_RETENTION_DAYS: ")
    assert "TURNCHECK_LOG_FORMAT: Input should be 'text' or 'json'" in message
    assert "abc-secret" not in message


def test_retention_is_at_most_a_century(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past a century of retention an expiry could overflow the dates a store holds."""
    monkeypatch.setenv("TURNCHECK_RETENTION_DAYS", "36525")
    assert load_settings().retention_days == 36_525
    monkeypatch.setenv("TURNCHECK_RETENTION_DAYS", "3000000")
    with pytest.raises(ConfigurationError, match="TURNCHECK_RETENTION_DAYS: Input should be less"):
        load_settings()


def test_the_log_format_is_text_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TURNCHECK_LOG_FORMAT", raising=False)
    assert load_settings().log_format == "text"
    monkeypatch.setenv("TURNCHECK_LOG_FORMAT", "json")
    assert load_settings().log_format == "json"


def test_the_log_level_is_the_command_s_own_unless_set_in_any_case(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """TURNCHECK_LOG_LEVEL unset leaves each command its level; DEBUG or debug turns it
    down; a word that is no level is refused naming the variable."""
    monkeypatch.delenv("TURNCHECK_LOG_LEVEL", raising=False)
    assert load_settings().log_level is None
    monkeypatch.setenv("TURNCHECK_LOG_LEVEL", "DEBUG")
    assert load_settings().log_level == "debug"
    monkeypatch.setenv("TURNCHECK_LOG_LEVEL", "loud")
    with pytest.raises(ConfigurationError, match=r"^invalid setting TURNCHECK_LOG_LEVEL: "):
        load_settings()


def test_alert_settings_read_lists_an_empty_hour_and_hide_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TURNCHECK_ALERT_MAIL_TO", "a@example.com, b@example.com")
    monkeypatch.setenv("TURNCHECK_ALERT_CHANNELS", "mail")
    monkeypatch.setenv("TURNCHECK_ALERT_DIGEST_HOUR", "")
    monkeypatch.setenv("TURNCHECK_ALERT_SLACK_TOKEN", "xoxb-secret-token")
    settings = load_settings()
    assert settings.alert_mail_to == ["a@example.com", "b@example.com"]
    assert settings.alert_channels == ["mail"]
    assert settings.alert_digest_hour is None
    assert "xoxb-secret-token" not in repr(settings)


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("TURNCHECK_ALERT_TIMEZONE", "Mars/Olympus", "not a time zone name"),
        ("TURNCHECK_ALERT_DIGEST_HOUR", "24", "less than or equal to 23"),
        ("TURNCHECK_ALERT_MIN_PASS_RATE", "95", "less than or equal to 1"),
        ("TURNCHECK_ALERT_CHANNELS", "slack,pager", "'slack' or 'mail'"),
    ],
)
def test_a_bad_alert_setting_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, says: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigurationError, match=f"invalid setting {variable}: .*{says}"):
        load_settings()
