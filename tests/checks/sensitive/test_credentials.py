"""find_credentials: provider keys, tokens, JWTs and private key blocks.

Every secret here is built at run time from harmless pieces, so no file in the
repository looks like a real secret to a scanner.
"""

import base64
import json

import pytest

from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.credentials import find_credentials

BODY = "a1B2c3D4e5F6g7H8" * 4  # 64 characters of mixed case and digits
HEX32 = "0123456789abcdef" * 2
DASHES = "-" * 5


def found(text: str) -> list[str]:
    return [text[start:end] for start, end in find_credentials(text, DetectorContext())]


def b64url(value: dict[str, str]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


JWT = b64url({"alg": "HS256", "typ": "JWT"}) + "." + b64url({"sub": "42"}) + "." + BODY[:43]
TOKENS = {
    "aws access key": "AKIA" + "Z" * 8 + "23456789",
    "aws session key": "ASIA" + "Q7R2" * 4,
    "stripe secret": "sk_" + "live_" + BODY[:24],
    "stripe test": "sk_" + "test_" + BODY[:24],
    "stripe restricted": "rk_" + "live_" + BODY[:24],
    "stripe webhook secret": "wh" + "sec_" + BODY[:32],
    "github classic": "gh" + "p_" + BODY[:36],
    "github oauth": "gh" + "o_" + BODY[:36],
    "github fine-grained": "github_" + "pat_" + BODY[:22] + "_" + BODY[:59],
    "gitlab": "glpat" + "-" + BODY[:20],
    "slack bot": "xox" + "b-" + "123456789012-1234567890123-" + BODY[:24],
    "slack app": "xa" + "pp-1-A0123456789-1234567890123-" + BODY[:32].lower(),
    "slack webhook": "https://hooks.slack.com/services/" + "T0123ABCD/" + "B0456EFGH/" + BODY[:24],
    "google api key": "AI" + "za" + BODY[:35],
    "google oauth": "ya" + "29." + BODY[:40],
    "google oauth client secret": "GOC" + "SPX-" + BODY[:28],
    "openai legacy": "sk" + "-" + BODY[:48],
    "openai project": "sk" + "-proj-" + BODY[:20] + "_" + BODY[:30],
    "anthropic": "sk" + "-ant-api03-" + BODY[:40],
    "hugging face": "hf" + "_" + BODY[:34],
    "sendgrid": "S" + "G." + BODY[:22] + "." + BODY[:43],
    "npm": "np" + "m_" + BODY[:36],
}


@pytest.mark.parametrize("token", TOKENS.values(), ids=TOKENS.keys())
def test_finds_provider_tokens_with_exact_offsets(token: str) -> None:
    """A provider token in a sentence is found and its span slices exactly the token."""
    assert found(f"Here is the key {token} for the integration.") == [token]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Your Twilio account SID is AC{HEX32}.", [f"AC{HEX32}"]),
        (f"TWILIO_AUTH_TOKEN={HEX32}", [HEX32]),
        (f"Twilio auth token: {HEX32}.", [HEX32]),
        (
            "DATABASE_URL=postgres://admin:" + BODY[:12] + "@db.example.com:5432/app",
            ["admin:" + BODY[:12]],
        ),
        ("redis://:" + BODY[:16] + "@cache:6379/0", [":" + BODY[:16]]),
        (f"Authorization: Bearer {BODY[:32]}", [BODY[:32]]),
        (f"Send the token {JWT}.", [JWT]),
        (f"aws_secret_access_key = {BODY[:40]}", [BODY[:40]]),
        (
            "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + BODY[:86] + "==;",
            ["AccountKey=" + BODY[:86] + "=="],
        ),
    ],
)
def test_finds_context_dependent_credentials(text: str, expected: list[str]) -> None:
    """Twilio ids, Bearer tokens, JWTs, AWS secrets and Azure keys are found with their context."""
    assert found(text) == expected


def test_finds_whole_private_key_block() -> None:
    """A PEM private key block is one finding from BEGIN through END."""
    block = f"{DASHES}BEGIN RSA PRIVATE KEY{DASHES}\n{BODY}\n{BODY}\n{DASHES}END RSA PRIVATE KEY{DASHES}"
    assert found(f"Key:\n{block}\nThanks") == [block]


def test_finds_begin_line_and_body_of_a_truncated_key() -> None:
    """Without an END line the finding covers the BEGIN line and the base64 lines under it."""
    head = f"{DASHES}BEGIN OPENSSH PRIVATE KEY{DASHES}\n{BODY}"
    assert found(f"{head}\n... (truncated)") == [head]


@pytest.mark.parametrize(
    "text",
    [
        "Keys start with sk- or AKIA, never share them.",
        "Set Authorization: Bearer YOUR_ACCESS_TOKEN_HERE in the header.",
        "Order 123e4567-e89b-12d3-a456-426614174000 is ready.",
        "Fixed in commit 9fceb02d0ae598e95dc970b74767f19372d61af8.",
        "Use colour #ff00aa on the button, v2.14.3.",
        f"Account id AC{HEX32} in our CRM.",
        f"The secret santa list is {BODY[:40].lower()}.",
        f"Header {b64url({'typ': 'x'})}.{b64url({'sub': '1'})}.{BODY[:20]} is not a JWT.",
        "Our public key is below: -----BEGIN PUBLIC KEY----- ...",
        "Tracking 1Z999AA10123456784 ships 2026-11-29T10:00:00Z.",
        f"The file's MD5 is {HEX32}.",
    ],
)
def test_ignores_prefixes_placeholders_ids_and_hashes(text: str) -> None:
    """Bare prefixes, placeholders, UUIDs, SHAs, colours and unverified JWT shapes are not secrets."""
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Set OPENAI_API_KEY=sk-" + "x" * 48 + " in your .env.",
        "aws_access_key_id = AKIA" + "X" * 16,
        "STRIPE_SECRET_KEY=sk_" + "test_" + "0" * 24,
        "Authorization: Bearer " + "x" * 30 + "1",
    ],
)
def test_ignores_placeholders_made_of_one_repeated_character(text: str) -> None:
    """A key-shaped placeholder made mostly of one character is not a secret."""
    assert found(text) == []


def test_finds_example_keys_that_look_real() -> None:
    """Low variety, not the word EXAMPLE, makes a placeholder: realistic example keys stay keys."""
    key = "AKIA" + "EXAMPLEQ7RZ2M4KT"
    assert found(f"Use {key} here.") == [key]


@pytest.mark.parametrize(
    "text",
    [
        "From the AWS docs: aws_access_key_id = AKIA" + "IOSFODNN7EXAMPLE",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
        "AWS_ACCESS_KEY_ID=AKIA" + "IOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/"
        "K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
        '"AccessKeyId": "ASIA' + 'IOSFODNN7EXAMPLE", "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/'
        'bPxRfiCYzEXAMPLEKEY"',
    ],
)
def test_the_providers_documented_example_keys_are_not_credentials(text: str) -> None:
    """AWS prints these in every guide: an agent quoting the docs leaks nobody's key."""
    assert found(text) == []


def test_a_real_looking_key_beside_the_documented_example_is_still_found() -> None:
    key = "AKIA" + "Q7RZ2M4KTEXAMPLE"
    assert found(f"Not AKIA{'IOSFODNN7EXAMPLE'} but {key}.") == [key]


def test_ignores_stripe_publishable_keys() -> None:
    """A publishable key is public by design: it ships in every checkout page."""
    assert found("Publishable key: pk_" + "live_" + BODY[:24]) == []


@pytest.mark.parametrize(
    "text",
    [
        "Clone ssh://git@github.com/acme/app.git or visit https://jane@example.com/.",
        "DATABASE_URL=postgres://user:password@localhost:5432/app",
        "Use postgres://app:${DB_PASSWORD}@db:5432/app or mysql://root:<pass>@db/x.",
        "Masked: https://admin:********@db.example.com",
        "See https://example.com:8080/users/@me for your profile.",
    ],
)
def test_ignores_urls_without_a_real_password(text: str) -> None:
    """A URL's user alone, or a stand-in for its password, is not a credential."""
    assert found(text) == []


def test_finds_a_whole_putty_key_file() -> None:
    """A PuTTY key file is one finding from its header through the Private-MAC line."""
    putty = (
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 1\n"
        f"{BODY[:44]}\nPrivate-Lines: 1\n{BODY[:44]}\nPrivate-MAC: {HEX32}"
    )
    assert found(f"My key file:\n{putty}\nthanks") == [putty]


def test_finds_encrypted_and_pkcs8_private_key_blocks() -> None:
    """Every PRIVATE KEY label is a private key block, not only the RSA/EC/OpenSSH ones."""
    for label in ("ENCRYPTED PRIVATE KEY", "PRIVATE KEY", "ANY PRIVATE KEY"):
        block = f"{DASHES}BEGIN {label}{DASHES}\n{BODY}\n{DASHES}END {label}{DASHES}"
        assert found(f"Key:\n{block}\n") == [block]


@pytest.mark.parametrize(
    "text",
    [
        "From the Bot API manual: 110201543:" + "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
        "Stripe's reference uses sk_" + "test_" + "4eC39HqLyjWDarjtT1zdp7dc in every example.",
    ],
)
def test_other_providers_documented_examples_are_not_credentials(text: str) -> None:
    """Example values printed in a provider's own documentation leak nobody's key."""
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "STRIPE_KEY=sk_" + "live_" + "*" * 24,
        "token: gh" + "p_" + "X" * 36,
        "Authorization: Bearer <YOUR_TOKEN>",
        "GITLAB_TOKEN=glpat-" + "REDACTED" * 3,
        "SLACK_WEBHOOK=https://hooks.slack.com/services/" + "T00000000/B00000000/" + "X" * 24,
        "NPM_TOKEN=${NPM_TOKEN} and PYPI_TOKEN=pypi-" + "x" * 40,
    ],
)
def test_masked_and_placeholder_values_are_not_credentials(text: str) -> None:
    """Masks, template slots and stand-in words after a provider's prefix are not secrets."""
    assert found(text) == []
