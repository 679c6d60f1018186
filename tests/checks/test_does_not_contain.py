from pathlib import Path

import pytest

from tests.factories import check_set, make_turn
from turncheck.worker.checks import Verdict
from turncheck.worker.pipeline.evaluate import evaluate

CHECK = """agent: support-bot
checks:
  - name: banned
    kind: does_not_contain
    phrases: [Acme Support, the tool, Crème Co, C++]
"""


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("Try ACME support instead.", Verdict.FAILED),
        ("Try acme   Support instead.", Verdict.FAILED),
        ("I asked the tool for that.", Verdict.FAILED),
        ("Ask creme co about it.", Verdict.FAILED),
        ("We also support C++ builds.", Verdict.FAILED),
        ("The toolbox is in the shed.", Verdict.PASSED),
        ("Acme Supporters club.", Verdict.PASSED),
        ("Nothing to see here.", Verdict.PASSED),
    ],
)
def test_phrases_match_whole_words_ignoring_case_and_accents(
    tmp_path: Path, text: str, verdict: Verdict
) -> None:
    [result] = evaluate(make_turn(output=text), check_set(tmp_path, CHECK))
    assert result.verdict is verdict


def test_spans_point_into_the_original_text(tmp_path: Path) -> None:
    """Offsets refer to the text as written, even where folding changed its length."""
    text = "Straße! Crème Co helps."
    [result] = evaluate(make_turn(output=text), check_set(tmp_path, CHECK))
    [span] = result.spans
    assert text[span.start : span.end] == "Crème Co"
    assert span.label == "phrase"


@pytest.mark.parametrize(
    "text",
    [
        "Try **Acme** Support instead.",
        "Try Acme Support\N{TRADE MARK SIGN} instead.",
        "Try <b>Acme</b> Support instead.",
        "Try Acme\N{REGISTERED SIGN} Support instead.",
        "Try _Acme_ Support instead.",
        "Try *Acme Support* instead.",
        "Try `Acme Support` instead.",
        "Try Acme\N{SERVICE MARK} Support\N{COPYRIGHT SIGN} instead.",
        "Try <span class='brand'>Acme</span>&nbsp;Support&trade; instead.",
        "I asked **the** tool for that.",
    ],
)
def test_phrases_match_through_trademark_signs_emphasis_and_tags(tmp_path: Path, text: str) -> None:
    """What a reader sees as "Acme Support" is the phrase, however it is marked up."""
    [result] = evaluate(make_turn(output=text), check_set(tmp_path, CHECK))
    assert result.verdict is Verdict.FAILED


@pytest.mark.parametrize(
    "text",
    [
        "Acme Supportive staff.",
        "**Acme** Supportive staff.",
        "Acme Support\N{TRADE MARK SIGN}ive staff.",
        "<b>Acme</b> Supporters club.",
        "Acme</b>Support is one word here.",
        "snake_the_tool_name",
    ],
)
def test_markup_makes_no_new_matches_across_word_boundaries(tmp_path: Path, text: str) -> None:
    """A phrase still needs whole words: markup taken out joins no word to the phrase."""
    [result] = evaluate(make_turn(output=text), check_set(tmp_path, CHECK))
    assert result.verdict is Verdict.PASSED


def test_spans_through_markup_point_into_the_text_as_written(tmp_path: Path) -> None:
    """The span covers the phrase with its markup, in offsets of the stored text."""
    text = "Hi! Try <b>Acme</b> Support\N{TRADE MARK SIGN} or **the** tool."
    [result] = evaluate(make_turn(output=text), check_set(tmp_path, CHECK))
    assert [text[s.start : s.end] for s in result.spans] == ["Acme</b> Support", "the** tool"]


def test_a_phrase_written_with_a_trademark_sign_matches_without_it(tmp_path: Path) -> None:
    """The phrase is read like the text: "HelpCo™" in the rule finds "HelpCo" and "HelpCo®"."""
    check = (
        "agent: support-bot\nchecks:\n  - {name: b, kind: does_not_contain, phrases: [HelpCo™]}\n"
    )
    for text in ("Ask HelpCo today.", "Ask HelpCo® today.", "Ask HelpCo™ today."):
        [result] = evaluate(make_turn(output=text), check_set(tmp_path, check))
        assert result.verdict is Verdict.FAILED, text
