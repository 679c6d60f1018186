"""Tests for the IBAN detector."""

from __future__ import annotations

import pytest
from stdnum import iban

from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.iban import find_iban

CTX = DetectorContext()


def make(country: str, bban: str) -> str:
    """A test IBAN with computed check digits."""
    return country + iban.calc_check_digits(country + "00" + bban) + bban


def spaced(compact: str) -> str:
    return " ".join(compact[i : i + 4] for i in range(0, len(compact), 4))


DE = make("DE", "370400440532013000")
GB = make("GB", "NWBK60161331926819")
BE = make("BE", "539007547034")
NO = make("NO", "86011117947")
FR = make("FR", "20041010050500013M02606")


def found(text: str) -> list[str]:
    return [text[start:end] for start, end in find_iban(text, CTX)]


@pytest.mark.parametrize(
    "number",
    [DE, GB, BE, NO, FR, DE.lower(), spaced(DE), spaced(GB), spaced(BE), spaced(FR)],
)
def test_finds_ibans(number: str) -> None:
    """Valid IBANs count compact or in groups of four, with exact offsets."""
    assert found(f"Please send it to {number} by Friday.") == [number]


def test_trailing_words_stay_out_of_a_grouped_iban() -> None:
    """A four-letter word after a grouped IBAN is not part of it."""
    assert found(f"IBAN {spaced(BE)} from here") == [spaced(BE)]


@pytest.mark.parametrize(
    "text",
    [
        f"Bad check digits {DE[:2]}{(int(DE[2:4]) + 1) % 100:02d}{DE[4:]}.",
        f"Unknown country XX{DE[2:]}.",
        f"Too short {DE[:-1]} and too long {DE}0.",
        f"Glued A{DE} and {DE}B.",
        "Tracking 1Z999AA10123456784, build v2.14.3, 2026-11-29T10:00:00Z.",
        "Token ab12cd34ef56gh78ij90kl and DE12 ABCD EFGH IJKL MNOP QR.",
        "Call (555) 010-2030 about $1,249.99.",
    ],
)
def test_ignores_invalid_and_random_alphanumerics(text: str) -> None:
    """Wrong checksums, unknown countries, wrong lengths and random codes are not IBANs."""
    assert found(text) == []


@pytest.mark.parametrize(
    "number",
    [
        "-".join(spaced(DE).split()),
        "-".join(spaced(FR).split()),
        spaced(DE)[:14] + "\n" + spaced(DE)[15:],
        spaced(FR)[:19] + " \n  " + spaced(FR)[20:],
    ],
)
def test_finds_ibans_grouped_by_hyphens_or_wrapped_over_lines(number: str) -> None:
    """Hyphens separate groups like spaces, and a line break may stand in for either."""
    assert found(f"Pay to {number}. Thanks") == [number]


@pytest.mark.parametrize(
    "separators",
    [".", "/", "\t", "  ", " - ", " / ", ". "],
)
def test_an_iban_is_found_whatever_separates_its_groups(separators: str) -> None:
    """mod-97 and the exact length are the anchor: dots, slashes, tabs, spaced hyphens."""
    number = separators.join(spaced(DE).split())
    assert found(f"Pay to {number} by Friday") == [number]


def test_mixed_separators_in_one_iban_are_read() -> None:
    number = f"{DE[:4]} {DE[4:8]}-{DE[8:12]}.{DE[12:16]}/{DE[16:20]}\t{DE[20:]}"
    assert found(f"IBAN: {number}") == [number]


def test_wide_separators_keep_an_iban_with_a_bad_checksum_out() -> None:
    wrong = f"{DE[:2]}{(int(DE[2:4]) + 1) % 100:02d}{DE[4:]}"
    assert found(" / ".join(spaced(wrong).split())) == []


def test_an_iban_split_by_a_zero_width_space_is_still_found() -> None:
    """Normalisation removes the invisible space; the irregular grouping is still read."""
    from turncheck.worker.checks.sensitive.context import DetectorContext
    from turncheck.worker.checks.sensitive.iban import find_iban

    text = "IBAN FI21 12345600000785 please"
    assert [text[s:e] for s, e in find_iban(text, DetectorContext())] == ["FI21 12345600000785"]


def apart(compact: str, sep: str) -> str:
    """``compact`` printed with ``sep`` after the country code, the check digits and each
    group of four."""
    body = compact[4:]
    groups = [compact[:2], compact[2:4]] + [body[i : i + 4] for i in range(0, len(body), 4)]
    return sep.join(groups)


@pytest.mark.parametrize(
    "number",
    [
        apart(BE, " "),
        apart(GB, "-"),
        apart(DE, "."),
        apart(FR, " / "),
        apart(NO, "  "),
        apart(GB, " ").replace(GB[:2], GB[:2].lower(), 1),
    ],
)
def test_finds_ibans_with_the_country_code_apart_from_its_check_digits(number: str) -> None:
    """A separator between the country code and the check digits, as between the groups,
    keeps an IBAN an IBAN, in any case after the word IBAN."""
    assert found(f"IBAN: {number} please.") == [number]


def test_a_spaced_iban_in_capitals_needs_no_label() -> None:
    """A capital country code set apart from its check digits counts without a label."""
    number = apart(BE, " ")
    assert found(f"Pay into {number} today.") == [number]


@pytest.mark.parametrize(
    "text",
    [
        # A word that is a country code, a space, and digits that happen to follow.
        f"Meet me at {BE[2:4]} {BE[4:8]} {BE[8:12]} {BE[12:]} tomorrow.",
        f"Spaced but wrong: {apart(DE, ' ')[:-1]}{(int(DE[-1]) + 1) % 10}.",
        f"Spaced and short: {apart(BE, ' ')[:-2]}.",
        f"Glued: X{apart(BE, ' ')}.",
    ],
)
def test_a_spaced_country_code_still_needs_the_checksum_and_length(text: str) -> None:
    """A spaced candidate is held to mod-97 and the country's length; a lower-case word
    before digits is not a country code without the word IBAN."""
    assert found(text) == []
