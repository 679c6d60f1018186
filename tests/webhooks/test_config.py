"""TURNCHECK_WEBHOOKS: read inline or from a file, every entry checked at start, each
refusal naming the entry and the field, never the secret."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import SecretStr

from tests.webhooks.support import SECRET
from turncheck.worker.errors import WebhookConfigError
from turncheck.worker.webhooks import load_webhooks
from turncheck.worker.webhooks.signing import secret_key

ENV = {"HOOK_SECRET": SECRET}


def lookup(name: str) -> SecretStr | None:
    return SecretStr(ENV[name]) if name in ENV else None


def load(entries: object, allow_private: bool = False) -> list[object]:
    return list(load_webhooks(json.dumps(entries), lookup, allow_private))


def refusal(entries: object, allow_private: bool = False) -> str:
    with pytest.raises(WebhookConfigError) as caught:
        load(entries, allow_private)
    return str(caught.value)


def test_inline_json_with_a_secret_from_the_environment() -> None:
    """An entry naming its secret's variable gets the key that variable holds."""
    [hook] = load_webhooks(
        json.dumps(
            [{"name": "ops", "url": "https://hooks.example.com/x", "secret_env": "HOOK_SECRET"}]
        ),
        lookup,
        False,
    )
    assert hook.key == secret_key(SECRET)  # type: ignore[attr-defined]
    assert "hooks.example.com" not in repr(hook) and SECRET not in repr(hook)


def test_a_yaml_file(tmp_path: Path) -> None:
    """A path is read as YAML; `enabled: false` is kept."""
    file = tmp_path / "hooks.yaml"
    file.write_text(
        f"- name: ops\n  url: http://hooks.example.com/\n  secret: {SECRET}\n  enabled: false\n"
    )
    [hook] = load_webhooks(str(file), lookup, False)
    assert (hook.name, hook.enabled) == ("ops", False)


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (
            {"url": "https://a.example/", "secret": SECRET},
            "webhooks[0]: field 'name': Field required",
        ),
        (
            {"name": "ops", "url": "ftp://a.example/", "secret": SECRET},
            "field 'url': must be an http or https URL",
        ),
        (
            {"name": "ops", "url": "https://a.example/"},
            "field 'secret': give either secret or secret_env",
        ),
        (
            {"name": "ops", "url": "https://a.example/", "secret": "nope-not-a-secret"},
            "field 'secret': must start with whsec_",
        ),
        (
            {"name": "ops", "url": "https://a.example/", "secret": "whsec_c2hvcnQ="},
            "field 'secret': must encode at least 24 bytes, not 5",
        ),
        (
            {"name": "ops", "url": "https://a.example/", "secret": "whsec_!!!"},
            "field 'secret': must be whsec_ followed by base64",
        ),
        (
            {"name": "ops", "url": "https://a.example/", "secret_env": "MISSING"},
            "field 'secret_env': the variable MISSING is not set",
        ),
        (
            {"name": "ops", "url": "https://a.example/", "secret": SECRET, "colour": "red"},
            "field 'colour': Extra inputs are not permitted",
        ),
        (
            {"name": "a b", "url": "https://a.example/", "secret": SECRET},
            "field 'name': String should match pattern",
        ),
    ],
)
def test_a_bad_entry_is_refused_naming_its_field(entry: dict[str, object], expected: str) -> None:
    """Each refusal names the entry and the field, and never quotes the secret."""
    message = refusal([entry])
    assert message.startswith("TURNCHECK_WEBHOOKS: webhooks[0]")
    assert expected in message
    assert "nope-not-a-secret" not in message


@pytest.mark.parametrize(
    ("host", "kind"),
    [
        ("169.254.169.254", "a link-local"),
        ("10.1.2.3", "a private"),
        ("[::1]", "a loopback"),
        ("127.0.0.1", "a loopback"),
        ("0.0.0.0", "an unspecified"),
        ("224.0.0.1", "a multicast"),
        ("[::ffff:192.168.0.1]", "a private"),
        ("240.0.0.1", "a reserved"),
    ],
)
def test_a_literal_address_that_is_not_public_is_refused_unless_allowed(
    host: str, kind: str
) -> None:
    """Metadata, private, loopback and other non-public addresses are refused at start."""
    entry = {"name": "ops", "url": f"http://{host}:8080/hook", "secret": SECRET}
    assert f"field 'url': is {kind} address" in refusal([entry])
    assert len(load([entry], allow_private=True)) == 1


def test_names_are_unique_and_the_setting_must_be_a_list() -> None:
    """Two entries with one name, or a mapping, are refused."""
    entry = {"name": "ops", "url": "https://a.example/", "secret": SECRET}
    assert "the name 'ops' is used twice" in refusal([entry, entry])
    with pytest.raises(
        WebhookConfigError, match=r"TURNCHECK_WEBHOOKS:1: cannot read webhooks: not valid JSON$"
    ):
        load_webhooks("[{", lookup, False)
    with pytest.raises(WebhookConfigError, match="no such file"):
        load_webhooks("/nonexistent/hooks.yaml", lookup, False)


def test_the_setting_is_refused_at_worker_start(tmp_path: Path) -> None:
    """The composition root refuses a bad TURNCHECK_WEBHOOKS before anything runs."""
    from tests.factories import BANNED_WORDS_CHECKS
    from turncheck.worker.app import plan
    from turncheck.worker.settings import Settings

    checks = tmp_path / "checks.yaml"
    checks.write_text(BANNED_WORDS_CHECKS)
    settings = Settings(
        kafka_bootstrap="memory:9092",
        database_url=f"sqlite+aiosqlite:///{tmp_path}/t.db",
        checks=[checks],
        webhooks=json.dumps([{"name": "m", "url": "http://169.254.169.254/", "secret": SECRET}]),
    )
    with pytest.raises(WebhookConfigError, match=r"webhooks\[0\] \('m'\): field 'url'"):
        plan(settings)


def test_the_command_line_refuses_a_6to4_address_of_the_metadata_service(tmp_path: Path) -> None:
    """`turncheck check` with a webhook at http://[2002:a9fe:a9fe::]/ (6to4 of
    169.254.169.254) exits 2 with one line naming the field, never the URL."""
    from tests.cli.test_commands import turncheck
    from tests.factories import BANNED_WORDS_CHECKS

    checks = tmp_path / "checks.yaml"
    checks.write_text(BANNED_WORDS_CHECKS)
    hooks = [{"name": "meta", "url": "http://[2002:a9fe:a9fe::]/latest", "secret": SECRET}]
    done = turncheck(
        "check", "--checks", str(checks), cwd=tmp_path, TURNCHECK_WEBHOOKS=json.dumps(hooks)
    )
    assert done.returncode == 2
    assert done.stderr.decode().strip() == (
        "TURNCHECK_WEBHOOKS: webhooks[0] ('meta'): field 'url': is a link-local address; "
        "set TURNCHECK_WEBHOOK_ALLOW_PRIVATE=true to allow it"
    )


def test_the_example_file_loads() -> None:
    """examples/webhooks.yaml, as the README shows it, is a valid configuration."""
    example = Path(__file__).parents[2] / "examples" / "webhooks.yaml"
    hooks = load_webhooks(str(example), lambda name: SecretStr(SECRET), False)
    assert [(h.name, h.enabled) for h in hooks] == [("ops", True), ("audit", False)]
