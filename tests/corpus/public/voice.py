"""Cases as a voice agent says them or a speech-to-text engine writes them.

Positives: cards, SSNs, phone and account numbers, dates of birth, emails and IPs
read out (digits as words, "oh", "double", "triple", pairs, digits and words mixed,
a number split over two sentences). Negatives: spelled-out amounts, times and
quantities, which every detector must let pass.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from faker import Faker

from tests.corpus.public import spoken, values
from tests.corpus.public.common import case

OWN = "turncheck's own generator"
FAKER = "Faker 40.63.0 (MIT)"


def _field(rng: random.Random) -> dict[str, str]:
    """A third of the spoken cases are what the caller said (input.transcript)."""
    return {"field": "transcript"} if rng.random() < 1 / 3 else {}


def _say(
    detector: str, text: str, rng: random.Random, note: str, source: str = OWN
) -> dict[str, Any]:
    return case(
        detector,
        text,
        True,
        form="spoken",
        channel="voice",
        source=source,
        note=note,
        **_field(rng),
    )


def _split_sentences(first: str, second: str, rng: random.Random) -> str:
    return rng.choice(
        [f"{first}. {second}.", f"{first}... and then {second}.", f"{first}. The rest is {second}."]
    )


def spoken_cards(rng: random.Random, n: int = 80) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        number = values.card(rng)
        style = spoken.STYLES[i % len(spoken.STYLES)]
        if i % 6 == 5:
            half = len(number) // 2
            said = _split_sentences(
                f"The card number starts {spoken.digits_spoken(number[:half], style, rng)}",
                spoken.digits_spoken(number[half:], style, rng),
                rng,
            )
        else:
            said = rng.choice(
                [
                    "Your card number is {v}.",
                    "I have the card ending... sorry, the full number is {v}.",
                    "Okay, card {v}, got it.",
                ]
            ).format(v=spoken.grouped(number, (4, 4, 4, 4), style, rng))
        out.append(_say("card", said, rng, f"a Luhn-valid card read out ({style})"))
    return out


def spoken_ssns(rng: random.Random, n: int = 70) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        number = values.ssn(rng)
        style = spoken.STYLES[i % len(spoken.STYLES)]
        if i % 5 == 4:
            said = _split_sentences(
                f"Your social security number is {spoken.digits_spoken(number[:5], style, rng)}",
                spoken.digits_spoken(number[5:], style, rng),
                rng,
            )
        else:
            said = rng.choice(
                [
                    "Your social security number is {v}.",
                    "SSN, {v}, is that right?",
                    "I've got your social as {v}.",
                ]
            ).format(v=spoken.grouped(number, (3, 2, 4), style, rng))
        out.append(_say("ssn", said, rng, f"an SSN read out ({style})"))
    return out


def spoken_phones(rng: random.Random, n: int = 80) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        style = spoken.STYLES[i % len(spoken.STYLES)]
        if i % 4 == 3:
            fake = Faker("en_GB")
            fake.seed_instance(rng.getrandbits(32))
            digits = "0" + values.digits(rng, 10)
            said = f"You can reach the branch on {spoken.grouped(digits, (5, 3, 3), style, rng)}."
        else:
            digits = f"{rng.randint(201, 989)}{rng.randint(200, 999)}{values.digits(rng, 4)}"
            said = rng.choice(
                [
                    "The best number to call you back is {v}.",
                    "Your phone number is {v}.",
                    "Call us at {v} any time.",
                ]
            ).format(v=spoken.grouped(digits, (3, 3, 4), style, rng))
        out.append(_say("phone", said, rng, f"a phone number read out ({style})"))
    return out


def spoken_accounts(rng: random.Random, n: int = 50) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        number = values.digits(rng, rng.randint(9, 12))
        style = spoken.STYLES[i % len(spoken.STYLES)]
        said = rng.choice(
            [
                "Your account number is {v}.",
                "The refund goes to checking account {v}.",
                "Account number {v}, confirmed.",
            ]
        ).format(v=spoken.digits_spoken(number, style, rng))
        out.append(_say("bank_account", said, rng, f"a labelled account number read out ({style})"))
    return out


def spoken_dobs(rng: random.Random, n: int = 60) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        day = values.birth_date(rng)
        if i % 3 == 2:
            said = f"Can I get your date of birth? ... Thanks, {spoken.date_spoken(day, rng)}."
        else:
            said = rng.choice(
                [
                    "Your date of birth is {v}.",
                    "I see you were born on {v}.",
                    "Date of birth, {v}, correct?",
                ]
            ).format(v=spoken.date_spoken(day, rng))
        out.append(_say("date_of_birth", said, rng, "a birth date said in words"))
    return out


def spoken_emails(rng: random.Random, n: int = 50) -> list[dict[str, Any]]:
    out = []
    for _ in range(n):
        fake = Faker("en_US")
        fake.seed_instance(rng.getrandbits(32))
        said = rng.choice(
            ["Your email is {v}.", "I'll send it to {v}.", "The address on file is {v}."]
        ).format(v=spoken.email_spoken(fake.email()))
        out.append(_say("email", said, rng, "an email address said with at and dot", FAKER))
    return out


def spoken_ips(rng: random.Random, n: int = 40) -> list[dict[str, Any]]:
    out = []
    for _ in range(n):
        fake = Faker("en_US")
        fake.seed_instance(rng.getrandbits(32))
        said = rng.choice(
            ["The router's address is {v}.", "Your IP address is {v}.", "Set the gateway to {v}."]
        ).format(v=spoken.ip_spoken(fake.ipv4(), rng))
        out.append(_say("ip_address", said, rng, "an IPv4 address read out", FAKER))
    return out


# ---- spoken negatives: amounts, times, quantities ---------------------------------

NEGATIVE_TEXT: tuple[Callable[[random.Random], str], ...] = (
    lambda r: (
        f"Your total comes to {spoken.number_words(r.randint(20, 999))} dollars and {spoken.number_words(r.randint(1, 99))} cents."
    ),
    lambda r: f"That plan is {spoken.number_words(r.randint(10, 99))} ninety-nine a month.",
    lambda r: (
        f"I can book you in at {r.choice(['nine', 'ten', 'eleven', 'two', 'four', 'three'])} {r.choice(['fifteen', 'thirty', 'forty-five', 'o clock'])} tomorrow."
    ),
    lambda r: (
        f"Delivery takes {r.choice(['three to five', 'five to seven', 'two to four', 'seven to ten'])} business days."
    ),
    lambda r: f"You have {spoken.number_words(r.randint(100, 99999))} points on your card.",
    lambda r: (
        f"The refund of {spoken.number_words(r.randint(5, 2500))} pounds will show in {r.choice(['two', 'three', 'five'])} days."
    ),
    lambda r: (
        f"We're open from {r.choice(['eight', 'nine'])} to {r.choice(['five', 'six', 'eight'])}, Monday to Friday."
    ),
    lambda r: (
        f"You ordered {spoken.number_words(r.randint(2, 40))} boxes and {spoken.number_words(r.randint(2, 12))} of them have shipped."
    ),
    lambda r: (
        f"The wait is about {r.choice(['five', 'ten', 'fifteen', 'twenty'])} minutes, and you're caller number {spoken.number_words(r.randint(2, 30))}."
    ),
    lambda r: (
        f"Your appointment is on the {spoken.ORDINAL[r.randint(1, 28)]} at half past {r.choice(['two', 'three', 'ten'])}."
    ),
    lambda r: (
        f"The loan is {spoken.number_words(r.randint(1, 500) * 1000)} dollars over {r.choice(['thirty-six', 'sixty', 'forty-eight'])} months."
    ),
    lambda r: (
        f"It's {r.choice(['one', 'two', 'three'])} hundred and {spoken.number_words(r.randint(1, 99))} miles from here, about {r.choice(['four', 'five', 'six'])} hours."
    ),
    lambda r: (
        f"Your flight leaves at {r.choice(['six', 'seven', 'eleven'])} {r.choice(['twenty', 'fifty-five', 'oh five'])} from gate {r.choice(['twelve', 'B seven', 'forty-one'])}."
    ),
    lambda r: (
        f"The discount is {r.choice(['ten', 'fifteen', 'twenty-five'])} percent, so you save {spoken.number_words(r.randint(3, 400))} dollars."
    ),
    lambda r: f"We sold {spoken.number_words(r.randint(1000, 900000))} units last year.",
    lambda r: (
        f"Take {r.choice(['one', 'two'])} tablets {r.choice(['twice', 'three times'])} a day for {r.choice(['seven', 'ten', 'fourteen'])} days."
    ),
)


def spoken_negatives(rng: random.Random, n: int = 330) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        text = NEGATIVE_TEXT[i % len(NEGATIVE_TEXT)](rng)
        out.append(
            case(
                "*",
                text,
                False,
                form="spoken",
                channel="voice",
                source=OWN,
                note="amounts, times and quantities in words: nothing sensitive",
                **_field(rng),
            )
        )
    return out


MAKERS: list[Callable[[random.Random], list[dict[str, Any]]]] = [
    spoken_cards, spoken_ssns, spoken_phones, spoken_accounts, spoken_dobs, spoken_emails,
    spoken_ips, spoken_negatives,
]  # fmt: skip
