"""Character references, defanged addresses and hard wraps do not hide data from the detectors."""

from __future__ import annotations

from pathlib import Path

from stdnum import luhn

from tests.factories import check_set, make_turn
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.disguises import undisguise
from turncheck.worker.pipeline.evaluate import evaluate

ALL = "agent: support-bot\nchecks:\n  - {name: sensitive, kind: sensitive_data}\n"


def found(tmp_path: Path, text: str, channel: str = "web") -> dict[str, str]:
    [result] = evaluate(make_turn(output=text, channel=channel), check_set(tmp_path, ALL))
    return {span.label: text[span.start : span.end] for span in result.spans}


def test_an_address_written_with_character_references_is_found(tmp_path: Path) -> None:
    for at, dot in [("&#64;", "&#46;"), ("&#x40;", "&period;"), ("&commat;", ".")]:
        address = f"jane{at}example{dot}com"
        assert found(tmp_path, f"Mail {address} today")["email"] == address


def test_digits_written_as_references_are_read(tmp_path: Path) -> None:
    assert undisguise("pin &#52;&#x32;", Budget.unlimited()).text == "pin 42"
    assert undisguise("Tom &amp; Jerry &lt;3", Budget.unlimited()).text == "Tom &amp; Jerry &lt;3"


def test_defanged_addresses_are_found(tmp_path: Path) -> None:
    assert found(tmp_path, "Host 192[.]168[.]0[.]1 is up")["ip_address"] == "192[.]168[.]0[.]1"
    assert found(tmp_path, "Host 10(.)0(.)0(.)1 is up")["ip_address"] == "10(.)0(.)0(.)1"
    assert found(tmp_path, "Mail name[@]example[.]com")["email"] == "name[@]example[.]com"


def test_defanged_links_read_as_links() -> None:
    reading = undisguise("see hxxps[:]//intranet[.]corp/x and hXXp[://]a[.]b", Budget.unlimited())
    assert reading.text == "see https://intranet.corp/x and http://a.b"


def test_a_card_cut_by_a_hard_wrap_is_found(tmp_path: Path) -> None:
    body = "4539148803436467"[:15]
    number = body + luhn.calc_check_digit(body)
    text = "Hi, your card is " + number + " and it is on file now. Thanks!"
    column = 20
    wrapped = "\n".join(text[i : i + column] for i in range(0, len(text), column))
    assert number not in wrapped
    assert "card" in found(tmp_path, wrapped, channel="sms")


def test_lines_of_varying_width_and_pem_blocks_keep_their_breaks() -> None:
    budget = Budget.unlimited()
    prose = "First line here\nsecond one is longer\nend"
    assert undisguise(prose, budget).text == prose
    pem = "-----BEGIN KEY-----\n" + "\n".join(["A" * 64] * 3) + "\n-----END KEY-----"
    assert undisguise(pem, budget).text == pem


def test_an_address_defanged_with_a_written_dot_is_found(tmp_path: Path) -> None:
    text = "The requests came from 10[dot]20(dot)30{dot}40 today."
    assert found(tmp_path, text)["ip_address"] == "10[dot]20(dot)30{dot}40"
    # Between letters the written dot stays: the email detector reads it with the at.
    assert undisguise("see example[dot]com", Budget.unlimited()).text == "see example[dot]com"


def test_an_sms_wrapped_mid_token_at_any_column_is_read_whole(tmp_path: Path) -> None:
    text = "New sign-in from IP 198.51.10\n0.7. Not you? Reply NO."
    assert found(tmp_path, text, channel="sms")["ip_address"] == "198.51.10\n0.7"
    assert found(tmp_path, "Write to jane.doe@example\n.org now", channel="sms")["email"] == (
        "jane.doe@example\n.org"
    )
    # A wrap beside a space keeps the space as the number's separator.
    assert undisguise("call 020 7946 \n0958", Budget.unlimited(), sms=True).text == (
        "call 020 7946 0958"
    )


def test_an_sms_keeps_its_paragraphs_and_other_channels_their_lines(tmp_path: Path) -> None:
    budget = Budget.unlimited()
    paragraphs = "Your code is ready.\n\n1234 is not it."
    assert undisguise(paragraphs, budget, sms=True).text == paragraphs
    # Off SMS, two lines of unequal width are the writer's: nothing is joined.
    text = "New sign-in from IP 198.51.10\n0.7. Not you? Reply NO."
    assert undisguise(text, budget).text == text
    assert "ip_address" not in found(tmp_path, text, channel="web")
