"""Every format of the credentials table: found when well formed, not when masked.

Each token is built at run time from its format's own pattern (``sample``), so no
file in the repository holds a token a scanner would flag.
"""

from __future__ import annotations

import re
from pathlib import Path
from re import _parser as sre_parse  # type: ignore[attr-defined]  # the stdlib's own parse tree
from typing import Any

import pytest

from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.gates import Gates, available
from turncheck.worker.checks.gates.detectors import detector_gates
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.credential_formats import FORMATS, TokenFormat, markdown
from turncheck.worker.checks.sensitive.credentials import find_credentials
from turncheck.worker.checks.textmap import normalize

DOC = Path(__file__).parents[3] / "docs" / "credentials.md"


def found(text: str) -> list[str]:
    return [text[start:end] for start, end in find_credentials(text, DetectorContext())]


def sample(pattern: str) -> tuple[str, tuple[int, int] | None]:
    """The shortest text ``pattern`` matches, its characters varied; and the ``token`` group's span."""
    parsed = sre_parse.parse(pattern)
    token_group = parsed.state.groupdict.get("token")
    out: list[str] = []
    span: list[int] = []
    counter = [0]

    def pick(chars: list[str]) -> str:
        counter[0] += 1
        return chars[(counter[0] * 7 + counter[0] // 5) % len(chars)]

    def walk(items: Any) -> None:
        for op, arg in items:
            name = str(op)
            if name == "LITERAL":
                out.append(chr(arg))
            elif name == "IN":
                chars: list[str] = []
                for kind, value in arg:
                    if str(kind) == "LITERAL":
                        chars.append(chr(value))
                    elif str(kind) == "RANGE":
                        chars.extend(chr(c) for c in range(value[0], value[1] + 1))
                out.append(pick(sorted(chars)))
            elif name in ("MAX_REPEAT", "MIN_REPEAT"):
                low, _high, sub = arg
                for _ in range(low):
                    walk(sub)
            elif name == "SUBPATTERN":
                group, _add, _del, sub = arg
                if group == token_group:
                    span.append(len("".join(out)))
                walk(sub)
                if group == token_group:
                    span.append(len("".join(out)))
            elif name == "BRANCH":
                walk(arg[1][0])
            # lookarounds and anchors add no characters

    walk(parsed)
    return "".join(out), (span[0], span[1]) if span else None


def _id(fmt: TokenFormat) -> str:
    return f"{fmt.provider}: {fmt.kind}"


def _written(fmt: TokenFormat) -> tuple[str, str]:
    """A sentence holding a token of ``fmt``, and the token."""
    text, span = sample(fmt.pattern)
    token = text if span is None else text[span[0] : span[1]]
    label = " ".join(fmt.words)
    return f"Here is the {label} value {text} for the integration.", token


def _fixed(fmt: TokenFormat, token: str) -> tuple[int, int]:
    """Where the provider's fixed part stands in ``token``; a labelled token has none."""
    for anchor in fmt.anchors:
        if anchor.lower() in token.lower():
            return token.lower().index(anchor.lower()), len(anchor)
    return 0, 0


@pytest.mark.parametrize("fmt", FORMATS, ids=_id)
def test_every_format_is_found_with_exact_offsets(fmt: TokenFormat) -> None:
    """A token of each provider's format is found, and its span slices exactly the token."""
    text, token = _written(fmt)
    assert found(text) == [token]


@pytest.mark.parametrize("fmt", FORMATS, ids=_id)
@pytest.mark.parametrize("mask", ["X", "*", "0"])
def test_masked_tokens_are_not_found(fmt: TokenFormat, mask: str) -> None:
    """The same token with all but its fixed prefix masked is no secret."""
    text, token = _written(fmt)
    at, size = _fixed(fmt, token)
    masked = mask * at + token[at : at + size] + mask * (len(token) - at - size)
    assert found(text.replace(token, masked)) == []


@pytest.mark.parametrize("fmt", FORMATS, ids=_id)
@pytest.mark.parametrize("stand_in", ["REDACTED", "YOUR_TOKEN_HERE", "xxxxxxxx"])
def test_placeholder_words_after_a_prefix_are_not_found(fmt: TokenFormat, stand_in: str) -> None:
    """A provider's fixed part with a stand-in word around it (``ghp_REDACTED…``) is a placeholder."""
    text, token = _written(fmt)
    at, size = _fixed(fmt, token)
    filler = stand_in * (len(token) // len(stand_in) + 1)
    written = filler[:at] + token[at : at + size] + filler[: len(token) - at - size]
    assert found(text.replace(token, written)) == []


@pytest.mark.parametrize("engine", available())
def test_the_gate_opens_for_every_format(engine: str) -> None:
    """The credentials gate never shuts on a text holding a token of any format."""
    gates = Gates(detector_gates(()), engine)
    shut = [
        _id(fmt)
        for fmt in FORMATS
        if "credentials" not in gates.open(normalize(_written(fmt)[0], Budget.unlimited()).text)
    ]
    assert shut == []


def test_the_provider_document_matches_the_table() -> None:
    """docs/credentials.md is the table as generated: a format added is a row documented."""
    assert DOC.read_text(encoding="utf-8") == markdown()


@pytest.mark.parametrize(
    "text",
    [
        "Order 123e4567-e89b-12d3-a456-426614174000 and ticket 550e8400-e29b-41d4-a716-446655440000.",
        "Fixed in commits 9fceb02d0ae598e95dc970b74767f19372d61af8 and 1a2b3c4d5e6f.",
        "Colours #ff00aa, #00FF00 and #123 on the pricing page.",
        "Attachment: iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        "Your order ids are ORD-2026-118233, A3-1182 and SO#44120; ref key-4412.",
        "Keys start with sk- and tokens with ghp_, glpat- or xoxb- in most setups.",
        "The en-us and de-de pages; see section 4.2 at pat. 7 and sat. 9.",
        "Our social and precious dapi demo: cio, EAA and AQE are acronyms here.",
        "Set CLOUDFLARE_API_TOKEN=${CF_TOKEN} and HEROKU_API_KEY=<your key>.",
        "Bot id 110201543 replied: AAH, no token here.",
    ],
)
def test_prose_with_look_alikes_has_no_credential(text: str) -> None:
    """UUIDs, git SHAs, colours, base64 blobs, order ids and bare prefixes are not credentials."""
    assert found(text) == []


def test_the_scan_finds_two_formats_side_by_side() -> None:
    """Anchors found in one scan each reach their own format."""
    gitlab = "glrt-" + "A1b2" * 5
    azure = "ab.8Q~" + "Zy9-" * 8 + "Q1"
    assert found(f"runner {gitlab}, client secret {azure}") == [gitlab, azure]


def test_sample_builds_what_the_pattern_matches() -> None:
    """The test's own builder: each sample is matched by its pattern (else tests above prove nothing)."""
    for fmt in FORMATS:
        text, _span = sample(fmt.pattern)
        assert re.search(fmt.pattern, text), _id(fmt)
