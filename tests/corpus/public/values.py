"""Synthetic values with their check digits computed (python-stdnum) or drawn by Faker.

No value is copied from anywhere: every number is drawn from a seeded generator and
completed with its checksum, so it is valid in form and belongs to nobody known.
"""

from __future__ import annotations

import random
import string
import uuid
from datetime import date, timedelta

from stdnum import ean, isbn, luhn
from stdnum.us import rtn

CARD_PREFIXES = (
    ("4", 16), ("4", 16), ("51", 16), ("53", 16), ("55", 16), ("2221", 16), ("2720", 16),
    ("34", 15), ("37", 15), ("6011", 16), ("65", 16), ("3528", 16), ("36", 14), ("4", 19),
)  # fmt: skip


def digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def card(rng: random.Random) -> str:
    prefix, length = rng.choice(CARD_PREFIXES)
    body = prefix + digits(rng, length - len(prefix) - 1)
    return body + luhn.calc_check_digit(body)


def card_grouped(number: str, sep: str) -> str:
    if len(number) == 15:
        sizes = (4, 6, 5)
    elif len(number) == 14:
        sizes = (4, 6, 4)
    else:
        sizes = (4,) * (len(number) // 4) + ((len(number) % 4,) if len(number) % 4 else ())
    out, i = [], 0
    for size in sizes:
        out.append(number[i : i + size])
        i += size
    return sep.join(out)


def ssn(rng: random.Random) -> str:
    """Area 001-899 but not 666, group 01-99, serial 0001-9999: the issued ranges."""
    area = rng.choice([a for a in range(1, 900) if a != 666])
    return f"{area:03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"


def not_ssn(rng: random.Random) -> str:
    """SSN-shaped but never issued (area 000, 666 or 900-999)."""
    area = rng.choice([0, 666, rng.randint(900, 999)])
    return f"{area:03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"


def routing(rng: random.Random) -> str:
    # the first two digits of an ABA number name a Federal Reserve district (01-12, 21-32)
    head = f"{rng.choice([*range(1, 13), *range(21, 33)]):02d}" + digits(rng, 6)
    return head + rtn.calc_check_digit(head)


def luhn_ean13(rng: random.Random) -> str:
    """A product barcode (EAN-13, its own check digit) that also passes the Luhn check."""
    while True:
        body = rng.choice(["40", "50", "69", "76", "87", "93"]) + digits(rng, 10)
        code = body + ean.calc_check_digit(body)
        if luhn.is_valid(code):
            return code


def isbn13(rng: random.Random) -> str:
    body = "978" + digits(rng, 9)
    return isbn.format(body + ean.calc_check_digit(body))


def imei(rng: random.Random) -> str:
    body = rng.choice(["35", "86", "01"]) + digits(rng, 12)
    return body + luhn.calc_check_digit(body)


def luhn_invalid(rng: random.Random, length: int) -> str:
    number = card(rng)[: length - 1] if length <= 16 else digits(rng, length - 1)
    number = number.ljust(length - 1, "0")
    wrong = (int(luhn.calc_check_digit(number)) + rng.randint(1, 9)) % 10
    return number + str(wrong)


def birth_date(rng: random.Random) -> date:
    return date(1940, 1, 1) + timedelta(days=rng.randint(0, 365 * 65))


def recent_date(rng: random.Random) -> date:
    return date(2025, 1, 1) + timedelta(days=rng.randint(0, 700))


def hex_string(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def uuid4(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))
