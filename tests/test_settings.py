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


def test_the_log_format_is_text_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TURNCHECK_LOG_FORMAT", raising=False)
    assert load_settings().log_format == "text"
    monkeypatch.setenv("TURNCHECK_LOG_FORMAT", "json")
    assert load_settings().log_format == "json"
