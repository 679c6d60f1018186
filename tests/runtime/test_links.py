"""A turn's link to its page on the chat platform: ``TURNCHECK_TURN_URL``."""

from __future__ import annotations

import pytest

from turncheck.worker.errors import ConfigurationError
from turncheck.worker.runtime.links import template_problem, turn_link
from turncheck.worker.settings import Settings, load_settings

TEMPLATE = "https://chat.example.com/agents/{agent_id}/threads/{thread_id}?turn={turn_id}"
TOKEN = "tok-9f8e7d6c5b4a"


@pytest.mark.parametrize(
    ("turn_id", "quoted"),
    [
        ("t-1", "t-1"),
        ("web/2026/t-1", "web%2F2026%2Ft-1"),
        ("t 1", "t%201"),
        ("t?x=1&y=2#z", "t%3Fx%3D1%26y%3D2%23z"),
        ("tür-ü", "t%C3%BCr-%C3%BC"),
        ("50%", "50%25"),
    ],
)
def test_every_value_is_percent_quoted_whole(turn_id: str, quoted: str) -> None:
    """An id with `/`, a space, `?`, `&`, `#`, `%` or non-ASCII stays inside its part."""
    link = turn_link(TEMPLATE, turn_id=turn_id, thread_id="th/1", agent_id="support bot")
    assert link == f"https://chat.example.com/agents/support%20bot/threads/th%2F1?turn={quoted}"


def test_no_template_no_link() -> None:
    """Without TURNCHECK_TURN_URL there is no link."""
    assert turn_link(None, turn_id="t-1", thread_id="th-1", agent_id="a") is None


def test_a_turn_without_a_thread_has_no_link_when_the_template_needs_one() -> None:
    """A link to no conversation would be wrong: none; a template of the turn alone links."""
    assert turn_link(TEMPLATE, turn_id="t-1", thread_id=None, agent_id="a") is None
    by_turn = "https://chat.example.com/turns/{turn_id}?agent={agent_id}"
    assert turn_link(by_turn, turn_id="t-1", thread_id=None, agent_id="a") == (
        "https://chat.example.com/turns/t-1?agent=a"
    )


def test_doubled_braces_are_literal_braces() -> None:
    link = turn_link(
        "https://x.example/{{raw}}/{turn_id}", turn_id="t", thread_id=None, agent_id="a"
    )
    assert link == "https://x.example/{raw}/t"


@pytest.mark.parametrize(
    ("template", "says"),
    [
        (f"https://x.example/{{person_id}}?token={TOKEN}", "names a field other than"),
        (f"https://x.example/{{turn_id.real}}?token={TOKEN}", "names a field other than"),
        (f"https://x.example/{{turn_id!r}}?token={TOKEN}", "names a field other than"),
        (f"https://x.example/{{turn_id:>9}}?token={TOKEN}", "names a field other than"),
        (f"https://x.example/{{}}?token={TOKEN}", "names a field other than"),
        (f"https://x.example/{{turn_id?token={TOKEN}", "brace that opens or closes no field"),
        (f"https://x.example/t}}?token={TOKEN}", "brace that opens or closes no field"),
        (f"x.example/{{turn_id}}?token={TOKEN}", "not an http:// or https:// address"),
        (f"javascript:alert({{turn_id}})//{TOKEN}", "not an http:// or https:// address"),
        (f"https://x.example/{{turn_id}} ?token={TOKEN}", "holds a space"),
        (f'https://x.example/"{{turn_id}}"?token={TOKEN}', "holds a space"),
        (f"https://x.example/{{agent_id}}?token={TOKEN}", "names neither {turn_id} nor"),
    ],
)
def test_a_bad_template_is_refused_at_start_without_echoing_it(
    template: str, says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One line naming the setting and the problem, never the URL (it may hold a token)."""
    monkeypatch.setenv("TURNCHECK_TURN_URL", template)
    with pytest.raises(ConfigurationError) as refused:
        load_settings()
    message = str(refused.value)
    assert message.startswith("invalid setting TURNCHECK_TURN_URL: ") and says in message
    assert TOKEN not in message and "x.example" not in message and "\n" not in message


def test_a_good_template_is_kept_secret_and_an_empty_one_is_unset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The template's token never shows in the settings' repr; an empty value is unset."""
    monkeypatch.setenv("TURNCHECK_TURN_URL", f"{TEMPLATE}&token={TOKEN}")
    loaded = load_settings()
    assert loaded.turn_url_template == f"{TEMPLATE}&token={TOKEN}"
    assert TOKEN not in repr(loaded)
    assert template_problem(f"{TEMPLATE}&token={TOKEN}") is None
    monkeypatch.setenv("TURNCHECK_TURN_URL", " ")
    assert load_settings().turn_url_template is None
    assert Settings.model_construct().turn_url_template is None
