"""Numbers read aloud reach every detector, and amounts, times and quantities stay words."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from stdnum import luhn

from tests.factories import check_set, make_turn
from turncheck.worker.checks import Verdict
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.spoken import read_spoken
from turncheck.worker.pipeline.evaluate import evaluate

ALL = "agent: support-bot\nchecks:\n  - {name: sensitive, kind: sensitive_data}\n"
INPUT = "agent: support-bot\nchecks:\n  - {name: s, kind: sensitive_data, stage: input}\n"
WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def spelled(digits: str) -> str:
    return " ".join(WORDS[int(d)] for d in digits)


def card() -> str:
    body = "4" + "539148803436" + "46"
    return body + luhn.calc_check_digit(body)


def found(tmp_path: Path, text: str, channel: str = "web") -> dict[str, str]:
    [result] = evaluate(make_turn(output=text, channel=channel), check_set(tmp_path, ALL))
    return {span.label: text[span.start : span.end] for span in result.spans}


def test_a_card_read_digit_by_digit_is_found_in_any_channel(tmp_path: Path) -> None:
    words = spelled(card())
    text = f"Sure, the card is {words}."
    assert found(tmp_path, text)["card"] == words


def test_a_card_split_across_two_sentences_is_one_number(tmp_path: Path) -> None:
    number = card()
    text = f"My card is {spelled(number[:4])}, {spelled(number[4:8])}. Then {spelled(number[8:])}."
    assert found(tmp_path, text)["card"].startswith(spelled(number[:4]))
    assert found(tmp_path, text)["card"].endswith(spelled(number[8:]))


def test_digits_and_words_mixed_in_any_case_read_as_one_number(tmp_path: Path) -> None:
    number = card()
    text = f"card {number[0]} {WORDS[int(number[1])].upper()} {number[2]} " + spelled(number[3:])
    assert "card" in found(tmp_path, text)


def test_pairs_double_and_triple_read_as_digits() -> None:
    budget = Budget.unlimited()
    reading = read_spoken("forty-one eleven double five triple seven oh one", budget, spoken=True)
    assert reading.text == "4111557770" + "1"


def test_a_toll_free_number_with_hundred_is_a_phone_number(tmp_path: Path) -> None:
    text = "Call one eight hundred five five five, one two one two."
    assert found(tmp_path, text)["phone"] == "one eight hundred five five five, one two one two"


def test_an_ssn_said_with_dashes_on_a_call_is_found(tmp_path: Path) -> None:
    text = "My social security number is two three four dash five six dash seven eight nine oh."
    assert "ssn" in found(tmp_path, text, channel="voice")


def test_an_ip_address_read_aloud_is_found(tmp_path: Path) -> None:
    text = "The box is at one nine two dot one six eight dot oh dot one"
    assert found(tmp_path, text, channel="voice")["ip_address"].startswith("one nine two")


@pytest.mark.parametrize(
    "said",
    [
        "My IP is two hundred and sixteen dot one hundred and sixty-four dot two one eight dot seven",
        "Set the gateway to two two one dot two hundred and forty dot sixty-seven dot two hundred",
        "It is one hundred and five dot forty dot nine dot one hundred and twelve",
    ],
)
def test_an_ip_address_said_with_hundreds_is_found(tmp_path: Path, said: str) -> None:
    assert "ip_address" in found(tmp_path, said, channel="voice")


def test_hundreds_are_octets_only_in_four_numbers_joined_by_dot() -> None:
    budget = Budget.unlimited()
    reading = read_spoken(
        "at two hundred and sixteen dot five dot sixty dot nine", budget, spoken=True
    )
    assert reading.text == "at 216.5.60.9"
    assert reading.origin(len("at 2")) == len("at two hundred and ")  # "1" of "sixteen"
    # Three numbers, or an octet past 255, are no address: the amounts stay words.
    for text in (
        "two hundred and fifty dot five dot six",
        "three hundred and five dot one dot two dot three",
    ):
        assert "hundred and" in read_spoken(text, budget, spoken=True).text


@pytest.mark.parametrize(
    "said",
    [
        "My social security number is two three four five six. The rest is seven eight nine one.",
        "My social security number is two three four five six... and then 7891.",
        "My social security number is 2345 6... and then 7891.",
        "My social security number is 2345 six. After that, seven eight nine one.",
    ],
)
def test_a_number_the_speaker_goes_on_with_after_a_pause_is_one(tmp_path: Path, said: str) -> None:
    assert "ssn" in found(tmp_path, said, channel="voice")


def test_digit_groups_joined_by_then_stay_apart_outside_speech(tmp_path: Path) -> None:
    text = "My social security number is 2345 6... and then 7891."
    assert "ssn" not in found(tmp_path, text, channel="web")


@pytest.mark.parametrize(
    ("said", "date"),
    [
        ("My date of birth is the fourth of March nineteen eighty-two.", "fourth of March nineteen eighty-two"),
        ("I was born March fourth, eighty-two.", "March fourth, eighty-two"),
        ("Date of birth: 4th of March 82.", "4th of March 82"),
        ("I was born on the twenty-first of June two thousand and five.", "twenty-first of June two thousand and five"),
    ],
)  # fmt: skip
def test_a_spoken_date_of_birth_is_found_on_a_call(tmp_path: Path, said: str, date: str) -> None:
    assert found(tmp_path, said, channel="voice")["date_of_birth"] == date


def test_an_address_spelled_with_underscore_is_found_on_a_call(tmp_path: Path) -> None:
    text = "Write to jane underscore doe at example dot com."
    assert (
        found(tmp_path, text, channel="voice")["email"] == "jane underscore doe at example dot com"
    )


def test_a_transcript_is_read_as_speech_in_any_channel(tmp_path: Path) -> None:
    said = "I was born the fourth of March nineteen ninety"
    turn = make_turn(input={"messages": [], "transcript": said})
    [result] = evaluate(turn, check_set(tmp_path, INPUT))
    assert [span.label for span in result.spans] == ["date_of_birth"]


def test_a_short_run_is_read_only_in_speech() -> None:
    budget = Budget.unlimited()
    assert (
        read_spoken("code four one one one", budget, spoken=False).text == "code four one one one"
    )
    assert read_spoken("code four one one one", budget, spoken=True).text == "code 4111"


NEGATIVES = [
    "That comes to two hundred and fifty dollars.",
    "It costs five hundred twenty dollars in total.",
    "See you at four thirty.",
    "Delivery takes three to five business days.",
    "You can order one or two items.",
    "Get twenty percent off today.",
    "I walked ten thousand steps.",
    "That was in the year two thousand and five.",
    "Oh, one more thing: twenty twenty-four was a good year.",
    "Page one, line two, column three.",
    "Nine nine nine five five five one one one one dollars were raised.",
    "It took two hundred and five steps, then three hundred and ten more.",
    "Take 2 then 3 then 4 tablets.",
    "We sold one hundred and twenty dot com domains.",
]


@pytest.mark.parametrize("text", NEGATIVES)
@pytest.mark.parametrize("channel", ["web", "voice"])
def test_amounts_times_and_quantities_are_not_flagged(
    tmp_path: Path, text: str, channel: str
) -> None:
    [result] = evaluate(make_turn(output=text, channel=channel), check_set(tmp_path, ALL))
    assert result.verdict is Verdict.PASSED, result.spans


SEPARATORS = st.sampled_from([" ", "  ", ", ", "-", " - ", "\n"])


@given(st.lists(st.integers(0, 9), min_size=7, max_size=24), st.data())
def test_each_digit_maps_back_onto_the_word_it_was_read_from(
    digits: list[int], data: st.DataObject
) -> None:
    pieces, starts = [], []
    text = "Number: "
    for k, digit in enumerate(digits):
        if k:
            text += data.draw(SEPARATORS)
        starts.append(len(text))
        word = WORDS[digit] if digit else data.draw(st.sampled_from(["zero", "nought"]))
        text += data.draw(st.sampled_from([word, word.upper(), word.title()]))
        pieces.append(word)
    reading = read_spoken(text, Budget.unlimited(), spoken=False)
    read = reading.text[len("Number: ") :]
    assert read == "".join(map(str, digits))
    for k in range(len(digits)):
        assert reading.origin(len("Number: ") + k) == starts[k]


def test_a_huge_run_of_number_words_stops_at_the_turns_budget() -> None:
    """A megabyte of "one one one ..." costs the turn its budget, not more."""
    from turncheck.worker.checks.budget import BudgetSpent

    with pytest.raises(BudgetSpent):
        read_spoken("one " * 250_000, Budget.of_ms(20), spoken=True)
