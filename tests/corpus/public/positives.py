"""Cases a careful reviewer flags: the value is there, written as a reply writes it.

Labels follow the reviewer, not a detector: a bank account or a licence number is
sensitive when the text says what it is, a card or an SSN by its shape and context.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from typing import Any

import phonenumbers
from faker import Faker

from tests.corpus.public import values
from tests.corpus.public.common import case, defanged, entities, hard_wrap
from tests.corpus.public.tokens import Rule, sample

PLAIN = 170
PER_PROVIDER = 2
FAKER = "Faker 40.63.0 (MIT)"
STDNUM = "python-stdnum (LGPL-2.1+): check digits computed"
OWN = "turncheck's own generator"

IBAN_LOCALES = (
    "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "nl_BE", "en_GB", "pl_PL", "pt_PT", "fi_FI",
    "no_NO", "sk_SK", "cs_CZ", "da_DK", "de_AT", "de_CH", "en_IE", "tr_TR", "ro_RO", "az_AZ",
    "uk_UA", "sv_SE", "el_GR", "hu_HU", "et_EE", "lv_LV", "lt_LT", "sl_SI", "hr_HR", "bg_BG",
    "pt_BR",
)  # fmt: skip
PHONE_LOCALES = (
    ("en_US", "US"), ("en_US", "US"), ("en_CA", "CA"), ("en_GB", "GB"), ("de_DE", "DE"),
    ("fr_FR", "FR"), ("it_IT", "IT"), ("nl_NL", "NL"), ("en_AU", "AU"), ("en_IN", "IN"),
    ("pt_BR", "BR"), ("ja_JP", "JP"), ("es_ES", "ES"), ("pl_PL", "PL"), ("sv_SE", "SE"),
    ("de_CH", "CH"), ("fi_FI", "FI"), ("en_NZ", "NZ"), ("en_IE", "IE"), ("de_AT", "AT"),
)  # fmt: skip


def _faker(locale: str, rng: random.Random) -> Faker:
    fake = Faker(locale)
    fake.seed_instance(rng.getrandbits(32))
    return fake


def _pick(rng: random.Random, templates: tuple[str, ...], **values: str) -> str:
    return rng.choice(templates).format(**values)


# ---- plain text --------------------------------------------------------------------

SSN_TEXT = (
    "Your Social Security number on file is {v}.",
    "SSN: {v}",
    "I've updated the SSN on your account to {v}.",
    "The tax form lists SSN {v} for the primary filer.",
    "Confirmed. Social security no. {v} matches our records.",
    "For the W-9 we have your SSN as {v}; please check it.",
    "We have {v} as the social security number for your spouse.",
    "Your SSN ends up on the letter as {v}, so keep it somewhere safe.",
)


def ssn_cases(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for _ in range(PLAIN):
        raw = values.ssn(rng)
        shown = rng.choice(
            [f"{raw[:3]}-{raw[3:5]}-{raw[5:]}"] * 3 + [raw, f"{raw[:3]} {raw[3:5]} {raw[5:]}"]
        )
        text = _pick(rng, SSN_TEXT, v=shown)
        out.append(case("ssn", text, True, source=OWN, note="an issued-range SSN, labelled"))
    return out


CARD_TEXT = (
    "The card on file is {v}, expiring 08/29.",
    "Card number: {v}",
    "I charged {v} for the renewal.",
    "Please confirm the card {v} is still yours.",
    "Your new virtual card is {v} (CVV sent separately).",
    "Payment method updated to {v}.",
    "We refunded the full amount to card {v}.",
    "The booking was paid with {v}.",
)


def card_cases(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for _ in range(PLAIN):
        number = values.card(rng)
        shown = values.card_grouped(number, rng.choice([" ", "-", "", " "]))
        text = _pick(rng, CARD_TEXT, v=shown)
        out.append(case("card", text, True, source=STDNUM, note="a Luhn-valid card number"))
    return out


ACCOUNT_TEXT = (
    "Your checking account number is {v}.",
    "Account number: {v}",
    "The refund goes to account no. {v} at your bank.",
    "We'll debit bank account {v} on the first of each month.",
    "Acct #{v} is linked to your profile.",
    "Your savings account ({v}) was verified.",
    "Direct deposit: account number {v}, routing on the form.",
)


def bank_account_cases(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for i in range(PLAIN):
        if i % 3 == 0:
            number = _faker(rng.choice(IBAN_LOCALES[:10]), rng).bban()
            source = FAKER
        else:
            number = values.digits(rng, rng.randint(8, 17))
            source = OWN
        text = _pick(rng, ACCOUNT_TEXT, v=number)
        out.append(
            case("bank_account", text, True, source=source, note="a labelled account number")
        )
    return out


ROUTING_TEXT = (
    "Routing number: {v}",
    "Use routing number {v} and your account number for direct deposit.",
    "The ABA routing number for the transfer is {v}.",
    "Wire instructions: RTN {v}, then the account number.",
    "Bank routing no. {v}",
    "Your bank's routing (ABA) number is {v}.",
)


def routing_cases(rng: random.Random) -> list[dict[str, Any]]:
    return [
        case(
            "routing_number",
            _pick(rng, ROUTING_TEXT, v=values.routing(rng)),
            True,
            source=STDNUM,
            note="an ABA number with its check digit, labelled",
        )
        for _ in range(PLAIN)
    ]


LICENCE_TEXT = (
    "Your driver's license number is {v}.",
    "Driver's licence: {v} ({state})",
    "DL# {v}, issued in {state}.",
    "We have driver license no. {v} on the rental agreement.",
    "The {state} driver's license {v} was scanned at check-in.",
    "License number {v} ({state} driver's licence) is on file.",
)


def _licence(rng: random.Random) -> tuple[str, str]:
    letter = rng.choice(string.ascii_uppercase)
    kind = rng.randrange(10)
    d = values.digits
    return [
        (f"{letter}{d(rng, 7)}", "California"),
        (d(rng, 9), "New York"),
        (f"{letter}{d(rng, 3)}-{d(rng, 3)}-{d(rng, 2)}-{d(rng, 3)}-{d(rng, 1)}", "Florida"),
        (d(rng, 8), "Texas"),
        (f"{letter}{d(rng, 3)}-{d(rng, 4)}-{d(rng, 4)}", "Illinois"),
        (d(rng, 6), rng.choice(["Georgia", "Montana", "South Dakota"])),
        (f"{d(rng, 8)}{letter}", rng.choice(["Kansas", "Iowa"])),
        (d(rng, 13), rng.choice(["Montana", "Missouri"])),
        (f"{letter}{letter}{d(rng, 6)}{letter}", "Idaho"),
        (
            f"WDL{''.join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(9))}",
            "Washington",
        ),
    ][kind]


def licence_cases(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for _ in range(PLAIN):
        number, state = _licence(rng)
        text = _pick(rng, LICENCE_TEXT, v=number, state=state)
        out.append(
            case(
                "drivers_license",
                text,
                True,
                source=OWN,
                note=f"a {state}-format licence number, labelled",
            )
        )
    return out


EMAIL_TEXT = (
    "I've sent the receipt to {v}.",
    "Your login email is {v}.",
    "Contact: {v}",
    "We'll reach out to {v} once it ships.",
    "The account holder's email address is {v}.",
    "Reply to {v} with the signed form.",
)


def email_cases(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for _ in range(PLAIN):
        fake = _faker(
            rng.choice(["en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL"]), rng
        )
        address = rng.choice([fake.email, fake.free_email, fake.company_email])()
        out.append(
            case(
                "email",
                _pick(rng, EMAIL_TEXT, v=address),
                True,
                source=FAKER,
                note="an email address",
            )
        )
    return out


PHONE_TEXT = (
    "You can call the customer back on {v}.",
    "The number we have for you is {v}.",
    "Phone: {v}",
    "Please ring {v} to finish the setup.",
    "Your emergency contact's number is {v}.",
    "The courier will text {v} before delivery.",
)


def phone_number(rng: random.Random) -> str:
    while True:
        locale, region = rng.choice(PHONE_LOCALES)
        number = _faker(locale, rng).phone_number()
        head = number.split("x")[0].strip()
        try:
            parsed = phonenumbers.parse(head, region)
        except phonenumbers.NumberParseException:
            continue
        # Faker writes some strings no country dials (too short, eleven zeros): a reviewer
        # would not call those phone numbers, so they are not cases.
        if phonenumbers.is_possible_number(parsed):
            return number


def phone_cases(rng: random.Random) -> list[dict[str, Any]]:
    return [
        case(
            "phone",
            _pick(rng, PHONE_TEXT, v=phone_number(rng)),
            True,
            source=FAKER,
            note="a phone number, national or international format, some with an extension",
        )
        for _ in range(PLAIN)
    ]


IP_TEXT = (
    "The login came from {v}.",
    "Your server's address is {v}.",
    "Client IP: {v}",
    "We blocked {v} after repeated attempts.",
    "Point the DNS record at {v}.",
    "The device last checked in from IP address {v}.",
)


def ip_cases(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for _ in range(PLAIN):
        fake = _faker("en_US", rng)
        address = rng.choice([fake.ipv4_public, fake.ipv4_public, fake.ipv4_private, fake.ipv6])()
        out.append(
            case(
                "ip_address",
                _pick(rng, IP_TEXT, v=address),
                True,
                source=FAKER,
                note="an IPv4 or IPv6 address",
            )
        )
    return out


IBAN_TEXT = (
    "IBAN: {v}",
    "Please transfer the deposit to {v}.",
    "Your refund goes to the IBAN {v}.",
    "Bank details: {v} (BIC on the invoice).",
    "We have {v} as your account for the direct debit.",
)


def iban_shown(value: str, rng: random.Random) -> str:
    grouped = " ".join(value[i : i + 4] for i in range(0, len(value), 4))
    spaced = f"{value[:2]} {value[2:4]} " + " ".join(
        value[i : i + 4] for i in range(4, len(value), 4)
    )
    return rng.choice([value, grouped, grouped, spaced])


def iban_cases(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for _ in range(PLAIN):
        value = _faker(rng.choice(IBAN_LOCALES), rng).iban()
        out.append(
            case(
                "iban",
                _pick(rng, IBAN_TEXT, v=iban_shown(value, rng)),
                True,
                source=FAKER + "; " + STDNUM,
                note="a valid IBAN, some with a space after the country code",
            )
        )
    return out


DOB_TEXT = (
    "Your date of birth is {v}.",
    "DOB: {v}",
    "I see you were born on {v}.",
    "Can you confirm your date of birth? We have {v}.",
    "Thanks for confirming your birthday. We have it as {v}.",
    "Please tell me your date of birth. It's {v} in our records.",
    "Patient: born {v}, no known allergies.",
    "Date of birth\n{v}",
)
DATE_FORMATS = ("%m/%d/%Y", "%B %d, %Y", "%Y-%m-%d", "%d %B %Y", "%d.%m.%Y", "%b %d, %Y")


def dob_cases(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for _ in range(PLAIN):
        day = values.birth_date(rng).strftime(rng.choice(DATE_FORMATS))
        out.append(
            case(
                "date_of_birth",
                _pick(rng, DOB_TEXT, v=day),
                True,
                source=OWN,
                note="a date said to be a birth date, in the sentence or the one before",
            )
        )
    return out


# ---- credentials -------------------------------------------------------------------

KEY_TEXT = (
    "Here is your {name}: {v}",
    "I generated a new {name} for you: {v}",
    "Set {env}={v} in your environment and restart.",
    "Your {name} is {v} (keep it secret).",
    'config: {{"{env_lower}": "{v}"}}',
    "Use this {name} to authenticate: {v}",
)


def credentials(rng: random.Random, rules: list[Rule]) -> list[dict[str, Any]]:
    out = []
    for rule in rules:
        name = rule.provider.replace("-", " ")
        env = rule.provider.upper().replace("-", "_")
        for _ in range(PER_PROVIDER):
            token = sample(rule.secret, rng)
            if token is None:
                break
            text = _pick(rng, KEY_TEXT, name=name, env=env, env_lower=env.lower(), v=token)
            out.append(
                case(
                    "credentials",
                    text,
                    True,
                    source="gitleaks rule formats (MIT)",
                    note="a token drawn to fit the provider's format",
                    provider=rule.provider,
                )
            )
    for _ in range(12):
        out.append(
            case(
                "credentials",
                f"Your service key:\n{private_key(rng)}",
                True,
                source=OWN,
                note="a PEM private key block",
                provider="private-key",
            )
        )
        out.append(
            case(
                "credentials",
                f"Send this header: Authorization: Bearer {jwt(rng)}",
                True,
                source=OWN,
                note="a signed token (JWT)",
                provider="jwt",
            )
        )
    return out


def private_key(rng: random.Random) -> str:
    kind = rng.choice(["RSA ", "EC ", "OPENSSH ", "", "DSA ", "ENCRYPTED "])
    body = base64.b64encode(rng.randbytes(rng.choice([96, 180, 300]))).decode()
    lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{lines}\n-----END {kind}PRIVATE KEY-----"


def jwt(rng: random.Random) -> str:
    def part(data: dict[str, Any] | bytes) -> str:
        raw = data if isinstance(data, bytes) else json.dumps(data).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    header = {"alg": rng.choice(["HS256", "RS256", "ES256"]), "typ": "JWT"}
    claims = {
        "sub": values.uuid4(rng),
        "iat": 1760000000 + rng.randint(0, 10**7),
        "scope": "read write",
    }
    return f"{part(header)}.{part(claims)}.{part(rng.randbytes(32))}"


# ---- text-channel forms: hard-wrapped (SMS), HTML entities, defanged --------------

WRAP_EACH = 25


def wrapped_cases(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    makers: dict[str, Callable[[], tuple[str, str, str]]] = {
        "card": lambda: (
            "Card on file: ",
            values.card_grouped(values.card(rng), rng.choice(["", " "])),
            ". Reply STOP to opt out.",
        ),
        "ssn": lambda: (
            "Your SSN on the claim is ",
            (s := values.ssn(rng))[:3] + "-" + s[3:5] + "-" + s[5:],
            ". Keep this message private.",
        ),
        "phone": lambda: ("Your callback number is ", phone_number(rng), ". Reply HELP for help."),
        "iban": lambda: (
            "Pay the deposit to IBAN ",
            iban_shown(_faker(rng.choice(IBAN_LOCALES), rng).iban(), rng),
            " by Friday.",
        ),
        "email": lambda: ("Receipt sent to ", _faker("en_US", rng).email(), ". Thank you!"),
        "bank_account": lambda: (
            "Refund sent to account number ",
            values.digits(rng, rng.randint(10, 14)),
            ". Allow 3 days.",
        ),
        "ip_address": lambda: (
            "New sign-in from IP ",
            _faker("en_US", rng).ipv4_public(),
            ". Not you? Reply NO.",
        ),
        "credentials": lambda: (
            "Your API key: ",
            f"sk_{'live'}_"
            + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(24)),
            " Do not share it.",
        ),
    }
    for detector, make in makers.items():
        for _ in range(WRAP_EACH):
            before, value, after = make()
            text = hard_wrap(before, value, after, rng)
            out.append(
                case(
                    detector,
                    text,
                    True,
                    form="wrapped",
                    channel="sms",
                    source=OWN,
                    note="cut at a fixed column inside the value, as an SMS gateway does",
                )
            )
    return out


def markup_cases(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for i in range(80):
        fake = _faker("en_US", rng)
        form = "entities" if i % 2 else "defanged"
        alter = entities if form == "entities" else defanged
        if i % 4 < 2:
            detector, value, text = "email", fake.email(), "Write to {v} for the invoice."
        else:
            detector, value, text = "ip_address", fake.ipv4_public(), "The requests came from {v}."
        out.append(
            case(
                detector,
                text.format(v=alter(value, rng)),
                True,
                form=form,
                source=FAKER,
                note=f"an address written with {form}",
            )
        )
    return out


MAKERS: list[Callable[[random.Random], list[dict[str, Any]]]] = [
    ssn_cases, card_cases, bank_account_cases, routing_cases, licence_cases, email_cases,
    phone_cases, ip_cases, iban_cases, dob_cases, wrapped_cases, markup_cases,
]  # fmt: skip
