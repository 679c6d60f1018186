"""What a ``facts`` definition changes: kinds, allowed values; what an outcome carries."""

import pytest

from tests.checks.facts.turns import check, spans_text, support_turn, tool_round
from turncheck.worker.checks.facts import REASONS
from turncheck.worker.checks.result import Verdict

INVENTED = (
    "Order B-99120 ships March 9, 2026 for $61.00; call (555) 010-7777, write to "
    'sales@nowhere.example.com, see nowhere.example.com/deal, we promise "fastest shipping ever".'
)


def test_every_invented_fact_gets_a_span_and_the_first_names_the_reason() -> None:
    """Seven invented facts, seven spans in text order; the reason names the first kind."""
    turn = support_turn(INVENTED)
    outcome = check(turn)
    assert outcome.verdict is Verdict.FAILED
    assert [s.label for s in outcome.spans] == [
        "id", "date", "amount", "phone", "email", "link", "quote"
    ]  # fmt: skip
    assert outcome.reason == REASONS["id"] == "An ID is not supported by the conversation."
    assert spans_text(turn, outcome)[:3] == ["B-99120", "March 9, 2026", "$61.00"]


def test_the_reason_never_holds_the_fact() -> None:
    """Results are stored and evented: the reason says the kind, never the value."""
    outcome = check(support_turn(INVENTED))
    for fact in ("B-99120", "99120", "61", "March", "7777", "nowhere", "fastest"):
        assert fact not in (outcome.reason or "")


@pytest.mark.parametrize(
    ("kinds", "labels"),
    [(["amount"], ["amount"]), (["id", "phone"], ["id", "phone"]), (["quote"], ["quote"])],
)
def test_kinds_limit_what_is_checked(kinds: list[str], labels: list[str]) -> None:
    """Only the listed kinds are checked; the others pass unread."""
    outcome = check(support_turn(INVENTED), kinds=kinds)
    assert [s.label for s in outcome.spans] == labels


def test_unchecked_kinds_still_keep_their_digits_from_amounts() -> None:
    """With only amounts checked, a date's day and year are still not amounts."""
    turn = support_turn("It ships on March 19, 2026.")
    assert check(turn, kinds=["amount"]).verdict is Verdict.PASSED


def test_allowed_values_are_always_supported() -> None:
    """The support line, the website and the return window may always be stated."""
    turn = support_turn(
        "Returns are free within 30 days: start at acme.com/returns or call 1-800-555-0199.",
        customer="Can I return this?",
    )
    assert check(turn).verdict is Verdict.FAILED
    allowed = ["30 days", "https://acme.com/returns", "(800) 555-0199"]
    assert check(turn, allowed=allowed).verdict is Verdict.PASSED


def test_an_allowed_string_covers_the_facts_written_inside_it() -> None:
    """An allowed phrase found in the answer, in any case, covers what it holds."""
    turn = support_turn("Use code SPRING-2026 at checkout for 10% off.")
    assert check(turn).verdict is Verdict.FAILED
    assert check(turn, allowed=["code spring-2026", "10% off"]).verdict is Verdict.PASSED


def test_spans_are_offsets_in_the_stored_text() -> None:
    """Normalising full-width digits and invisible characters does not shift the span."""
    # Full-width letters and digits, written as escapes so the source stays readable.
    answer = "\uff34otal:\u200b \uff04\uff14\uff15.\uff10\uff10 \u2014 thanks!"
    turn = support_turn(answer, rounds=[tool_round("cart", {"total": 42.5})])
    outcome = check(turn)
    assert outcome.verdict is Verdict.FAILED
    assert spans_text(turn, outcome) == ["\uff04\uff14\uff15.\uff10\uff10"]


def test_an_answer_without_facts_passes_without_reading_sources() -> None:
    """A reply with nothing to verify passes."""
    assert check(support_turn("Happy to help! Anything else?")).verdict is Verdict.PASSED


def test_an_allowed_string_with_a_non_breaking_hyphen_covers_the_answers_plain_one() -> None:
    """Allowed values are normalised like the answer they are matched in."""
    turn = support_turn("Use code SPRING-2026 at checkout.")
    assert check(turn, allowed=["code spring\u20112026"]).verdict is Verdict.PASSED


@pytest.mark.parametrize(
    ("answer", "source"),
    [
        ("It renews on 2026\u201112\u201101.", {"renews": "2026-12-01"}),
        ("It renews on 2026-12-01.", {"renews": "2026\u201112\u201101"}),
        ("Call (555) 010\u20112030.", {"phone": "(555) 010-2030"}),
        (
            "Call \u0665\u0665\u0665-\u0660\u0661\u0660-\u0662\u0660\u0663\u0660.",
            {"phone": "5550102030"},
        ),
        ("Your balance is \u2212$40.00.", {"balance": "-40.00"}),
    ],
)
def test_dashes_and_digits_of_other_scripts_do_not_make_a_supported_fact_unsupported(
    answer: str, source: dict[str, str]
) -> None:
    """The answer and the sources are normalised alike: U+2011 is '-', U+0665 is '5'."""
    turn = support_turn(answer, rounds=[tool_round("account", source)])
    assert check(turn).verdict is Verdict.PASSED


def test_a_date_with_non_breaking_hyphens_is_still_checked_and_its_span_is_stored_text() -> None:
    answer = "It renews on 2026\u201112\u201115."
    turn = support_turn(answer, rounds=[tool_round("account", {"renews": "2026-12-01"})])
    outcome = check(turn)
    assert outcome.verdict is Verdict.FAILED
    assert spans_text(turn, outcome) == ["2026\u201112\u201115"]
