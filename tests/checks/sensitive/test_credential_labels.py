"""Tokens without a prefix: found after a label naming their provider as a secret.

Each value is built at run time from its format's own pattern (``sample``), so no
file in the repository holds a token a scanner would flag.
"""

from __future__ import annotations

import pytest

from tests.checks.sensitive.test_credential_formats import sample
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.gates import Gates, available
from turncheck.worker.checks.gates.detectors import detector_gates
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.credential_labels import LABELLED, LabelledFormat
from turncheck.worker.checks.sensitive.credentials import find_credentials
from turncheck.worker.checks.textmap import normalize

HEX = "0123456789abcdef"


def found(text: str) -> list[str]:
    return [text[start:end] for start, end in find_credentials(text, DetectorContext())]


def _id(fmt: LabelledFormat) -> str:
    return f"{fmt.provider}: {fmt.kind}"


def _value(fmt: LabelledFormat) -> str:
    return sample(fmt.value)[0]


def _name(fmt: LabelledFormat) -> str:
    return fmt.names[0]


# The label's usual places: an environment variable, a JSON key, and sentences.
WRITINGS = (
    "export {env}_API_KEY={value}",
    'settings = {{"{key}_access_token": "{value}"}}',
    "Your {name} secret key is {value} (keep it safe).",
    "Here is the new {name} token we made for you: {value}",
    "Use this {name} credential to sign in: {value}",
)


def _write(template: str, fmt: LabelledFormat, value: str) -> str:
    name = _name(fmt)
    return template.format(
        env=name.upper().replace(" ", "_"), key=name.replace(" ", "_"), name=name, value=value
    )


@pytest.mark.parametrize("template", WRITINGS)
@pytest.mark.parametrize("fmt", LABELLED, ids=_id)
def test_every_labelled_format_is_found_after_its_label(fmt: LabelledFormat, template: str) -> None:
    """A value of each provider's format is found, exactly, wherever a label names it."""
    value = _value(fmt)
    assert found(_write(template, fmt, value)) == [value]


def _needs_its_label(fmt: LabelledFormat) -> bool:
    """Not bare, nor a token the prefix table finds by itself (``hvs.``, ``NRII-``), or with
    the provider's name near (Mailgun's ``key-``)."""
    return not fmt.bare and not found(f"{_name(fmt)} copied {_value(fmt)} from the page.")


@pytest.mark.parametrize("fmt", [f for f in LABELLED if _needs_its_label(f)], ids=_id)
def test_a_label_that_says_no_secret_is_not_enough(fmt: LabelledFormat) -> None:
    """The provider's name alone does not make a value a secret (an id, an order, a build)."""
    assert found(f"The {_name(fmt)} build number is {_value(fmt)} today.") == []


@pytest.mark.parametrize("fmt", LABELLED, ids=_id)
@pytest.mark.parametrize("mask", ["X", "*"])
def test_masked_values_are_not_found(fmt: LabelledFormat, mask: str) -> None:
    """A value masked after its label is no secret."""
    value = _value(fmt)
    assert found(_write(WRITINGS[0], fmt, mask * len(value))) == []


@pytest.mark.parametrize("engine", available())
def test_the_gate_opens_for_every_labelled_format(engine: str) -> None:
    """The credentials gate opens on each provider's name, in any case and spelling."""
    gates = Gates(detector_gates(()), engine)
    shut = [
        _id(fmt)
        for fmt in LABELLED
        for template in WRITINGS
        if "credentials"
        not in gates.open(normalize(_write(template, fmt, _value(fmt)), Budget.unlimited()).text)
    ]
    assert shut == []


def test_names_are_taken_in_any_case_and_spelling() -> None:
    """``NEW_RELIC``, ``newrelic`` and ``New Relic`` all name New Relic; camel case too."""
    key = "NRAK-" + "a1b2c3d4e5" * 2 + "f6g7h8i"
    for label in ("NEW_RELIC_API_KEY=", "newrelic.api.key: ", "Your New Relic key is "):
        assert found(label + key) == [key]
    value = "Ab3dE" * 8
    assert found(f"cohereApiKey = '{value}'") == [value]
    assert found(f"API_KEY_COHERE={value}") == [value]


@pytest.mark.parametrize(
    "text",
    [
        # Too long, too short or of other characters: not this provider's value.
        "ALGOLIA_API_KEY=" + HEX * 2 + "7",
        "ALGOLIA_API_KEY=" + HEX * 2 + "-77",
        "ALGOLIA_API_KEY=" + HEX[:31],
        # The name inside another word: "lob" in "global".
        "global api key: test_" + HEX * 2 + "abc",
        # The label belongs to another sentence or line.
        "We use Algolia. Your order key is " + HEX * 2,
        "algolia search\nkey: " + HEX * 2,
        # Placeholders: words, one letter, a stand-in.
        "Your airtable api key is yourairtablekeyxx.",
        "ALGOLIA_API_KEY=supersecretpasswordforthealgolia",
        "Set ALGOLIA_API_KEY=" + "x" * 32,
        "Set ALGOLIA_API_KEY=REDACTED" + HEX + "abcdefgh",
        # A UUID that is a request id, near a provider's name without a secret word.
        "Heroku request 7fdb7907-57d4-4703-9548-613470e2ecd5 failed with 429.",
    ],
)
def test_look_alikes_after_a_providers_name_are_not_found(text: str) -> None:
    assert found(text) == []


def test_the_sidekiq_pair_needs_no_secret_word() -> None:
    """Sidekiq's value is a user and its password: naming the provider is label enough."""
    pair = "18ab4070:e3f64cc4"
    assert found(f"BUNDLE_ENTERPRISE__CONTRIBSYS__COM={pair}") == [pair]
    assert found(f"sidekiq url: {pair}") == [pair]


def test_overlapping_anchors_are_all_seen() -> None:
    """An anchor inside another's match (``sc_`` in ``…sc_mmk``) does not hide it."""
    key = "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"
    assert found(f"license {key} here") == [key]


@pytest.mark.parametrize(
    "token",
    [
        "sk_" + "prod_" + "a1B2c3D4e5F6",
        "rk_" + "live_" + "a1B2c3D4e5",
        "xo" + "xr-" + "cLVwhDCz0F",
    ],
)
def test_short_stripe_and_legacy_slack_tokens_are_found(token: str) -> None:
    """The scanners' lengths: Stripe keys from 10 characters, Slack workspace tokens from 8."""
    assert found(f"token {token} here") == [token]
