from pathlib import Path

from tests.factories import check_set, make_turn
from turncheck.worker.checks import Verdict
from turncheck.worker.pipeline.evaluate import evaluate


def run_one(tmp_path: Path, check_yaml: str, **turn: object) -> object:
    checks = check_set(tmp_path, "agent: support-bot\nchecks:\n" + check_yaml)
    [result] = evaluate(make_turn(**turn), checks)  # type: ignore[arg-type]
    return result


def test_a_match_fails_with_offsets_but_no_matched_text(tmp_path: Path) -> None:
    """The span points at the match; the result carries no matched text."""
    result = run_one(
        tmp_path,
        "  - {name: tickets, kind: pattern, pattern: 'TCK-[0-9]{6}'}\n",
        output="Your ticket is TCK-004211 now.",
    )
    assert result.verdict is Verdict.FAILED
    assert [(s.field, s.start, s.end, s.label) for s in result.spans] == [
        ("output.text", 15, 25, "pattern")
    ]
    assert "TCK" not in (result.reason or "")


def test_no_match_passes(tmp_path: Path) -> None:
    result = run_one(
        tmp_path,
        "  - {name: tickets, kind: pattern, pattern: 'TCK-[0-9]{6}'}\n",
        output="All good.",
    )
    assert result.verdict is Verdict.PASSED and result.spans == ()


def test_flags_apply(tmp_path: Path) -> None:
    check = "  - {name: tickets, kind: pattern, pattern: 'tck-[0-9]{6}', flags: [ignorecase]}\n"
    assert run_one(tmp_path, check, output="TCK-123456").verdict is Verdict.FAILED
    strict = "  - {name: tickets, kind: pattern, pattern: 'tck-[0-9]{6}'}\n"
    assert run_one(tmp_path, strict, output="TCK-123456").verdict is Verdict.PASSED


def test_output_stage_reads_text_beside_tool_calls(tmp_path: Path) -> None:
    """Customers see what the model writes before a tool call, so it is checked too."""
    result = run_one(
        tmp_path,
        "  - {name: tickets, kind: pattern, pattern: 'TCK-[0-9]{6}'}\n",
        output="Done.",
        rounds=[{"text": "Looking up TCK-000001", "tool_calls": []}],
    )
    assert result.verdict is Verdict.FAILED
    assert result.spans[0].field == "rounds[0].text"


def test_input_stage_reads_what_the_caller_wrote(tmp_path: Path) -> None:
    check = "  - {name: tickets, kind: pattern, stage: input, pattern: 'TCK-[0-9]{6}'}\n"
    result = run_one(
        tmp_path,
        check,
        output="TCK-999999",
        input={
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "user", "content": "TCK-123456"},
            ]
        },
    )
    assert result.verdict is Verdict.FAILED
    assert result.spans[0].field == "input.messages[1].content"


def test_context_keywords_must_be_whole_words_nearby(tmp_path: Path) -> None:
    check = (
        "  - {name: ids, kind: pattern, pattern: '[0-9]{9}', context_keywords: [account, lic]}\n"
    )
    assert run_one(tmp_path, check, output="Your account is 123456789.").verdict is Verdict.FAILED
    assert (
        run_one(tmp_path, check, output="The public total is 123456789.").verdict is Verdict.PASSED
    )
    far = "account " + "x" * 120 + " 123456789"
    assert run_one(tmp_path, check, output=far).verdict is Verdict.PASSED


def test_luhn_screens_out_random_digit_runs(tmp_path: Path) -> None:
    check = "  - {name: cards, kind: pattern, pattern: '[0-9](?:[ -]?[0-9]){12,18}', luhn: true}\n"
    assert run_one(tmp_path, check, output="Card 4111 1111 1111 1111.").verdict is Verdict.FAILED
    assert run_one(tmp_path, check, output="Track 4111 1111 1111 1112.").verdict is Verdict.PASSED


def test_a_runaway_pattern_is_errored_not_hung(tmp_path: Path) -> None:
    check = "  - {name: slow, kind: pattern, pattern: '(x+x+)+y', timeout_ms: 20}\n"
    result = run_one(tmp_path, check, output="x" * 5000)
    assert result.verdict is Verdict.ERRORED
    assert "time limit" in (result.reason or "")


def test_full_width_digits_and_zero_width_spaces_cannot_hide_a_match(tmp_path: Path) -> None:
    """Patterns read normalised text; the span still points into the stored text."""
    text = "Ticket TCK-\uff10\uff10\u200b4211 is open."
    result = run_one(
        tmp_path, "  - {name: tickets, kind: pattern, pattern: 'TCK-[0-9]{6}'}\n", output=text
    )
    assert result.verdict is Verdict.FAILED
    [span] = result.spans
    assert text[span.start : span.end] == "TCK-\uff10\uff10\u200b4211"


def test_the_card_checksum_reads_a_megabyte_match_in_time(tmp_path: Path) -> None:
    """The checksum is counted in C: a match of a million digits costs no stall."""
    check = "  - {name: cards, kind: pattern, pattern: '[0-9 ]+', luhn: true, timeout_ms: 1000}\n"
    zeros = "0" * 1_000_000  # leading zeros keep the checksum
    card = run_one(tmp_path, check, output=zeros + "4111 1111 1111 1111")
    assert card.verdict is Verdict.FAILED
    not_a_card = run_one(tmp_path, check, output=zeros + "4111 1111 1111 1112")
    assert not_a_card.verdict is Verdict.PASSED


def test_a_pattern_matching_a_million_times_errs_within_its_limit(tmp_path: Path) -> None:
    """Every match takes time too: the limit is checked between them, not only in the engine."""
    checks = check_set(
        tmp_path,
        "agent: support-bot\nchecks:\n"
        "  - {name: digits, kind: pattern, pattern: '[0-9]', timeout_ms: 20}\n",
    )
    # A turn's budget far beyond the pattern's limit: only the limit can end this one.
    [result] = evaluate(make_turn(output="1" * 1_000_000), checks, budget_ms=10_000)
    assert result.verdict is Verdict.ERRORED
    assert result.reason == "The pattern ran past its time limit of 20 ms."


def test_when_the_turn_budget_runs_out_first_the_result_says_so(tmp_path: Path) -> None:
    """A pattern's own limit longer than what is left of the turn's budget: the budget's reason."""
    checks = check_set(
        tmp_path,
        "agent: support-bot\nchecks:\n"
        "  - {name: digits, kind: pattern, pattern: '[0-9]', timeout_ms: 10000}\n",
    )
    [result] = evaluate(make_turn(output="1" * 1_000_000), checks, budget_ms=20)
    assert result.verdict is Verdict.ERRORED
    assert result.reason == "The turn's time budget for rule checks was spent."


def test_a_pattern_spelling_out_an_en_dash_still_matches_the_text_as_written(
    tmp_path: Path,
) -> None:
    """Normalising reads U+2013 as '-', yet a pattern naming U+2013 itself keeps matching."""
    text = "Plan A\u2013Z renews today."
    result = run_one(
        tmp_path, "  - {name: plans, kind: pattern, pattern: 'A\u2013Z'}\n", output=text
    )
    assert result.verdict is Verdict.FAILED
    [span] = result.spans
    assert text[span.start : span.end] == "A\u2013Z"


def test_a_disguised_dash_cannot_hide_a_match_of_an_ascii_pattern(tmp_path: Path) -> None:
    """A non-breaking hyphen reads as '-': one finding, pointing at the stored characters."""
    text = "Ticket TCK\u2011004211 is open."
    result = run_one(
        tmp_path, "  - {name: tickets, kind: pattern, pattern: 'TCK-[0-9]{6}'}\n", output=text
    )
    [span] = result.spans
    assert text[span.start : span.end] == "TCK\u2011004211"
