"""Cases a careful reviewer lets pass: real documentation prose, and look-alikes.

Prose and the look-alikes in it run with every detector on (detector ``"*"``); the
look-alikes of one detector (a barcode beside a card check, a masked key beside the
credentials check) run with that detector.
"""

from __future__ import annotations

import random
import string
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from faker import Faker

from tests.corpus.public import prose, values
from tests.corpus.public.common import case

DOC_SENTENCES = 1650
PER_MODULE = 90
OWN = "turncheck's own generator"
STDNUM = "python-stdnum (LGPL-2.1+): check digits computed"


def doc_prose(rng: random.Random) -> list[dict[str, Any]]:
    by_module: dict[str, list[str]] = defaultdict(list)
    for module, sentence in prose.sentences():
        by_module[module].append(sentence)
    pool = [
        (m, s)
        for m, items in by_module.items()
        for s in rng.sample(items, min(PER_MODULE, len(items)))
    ]
    chosen = rng.sample(pool, min(DOC_SENTENCES, len(pool)))
    return [
        case("*", sentence, False, source=f"docstring of {module}", note="documentation prose")
        for module, sentence in chosen
    ]


PACKAGES = (
    "wireguard-manager",
    "django-rest-auth",
    "numpy",
    "libfoo",
    "acme-client",
    "pyyaml",
    "grpcio-tools",
    "tzdata",
)


def _d(rng: random.Random, n: int) -> str:
    return values.digits(rng, n)


LOOK_ALIKES: tuple[tuple[str, Callable[[random.Random], str]], ...] = (
    (
        "a four-part version pin",
        lambda r: (
            f"Pin it with `{r.choice(PACKAGES)}=={r.randint(0, 3)}.{r.randint(0, 9)}.{r.randint(0, 9)}.{r.randint(1, 9)}` in requirements.txt."
        ),
    ),
    (
        "a four-part build number",
        lambda r: (
            f"This needs Windows build 10.0.{r.randint(10000, 22631)}.{r.randint(1, 4000)} or later."
        ),
    ),
    (
        "a Python attribute ending in .local",
        lambda r: (
            f"Each thread gets its own copy through {r.choice(['threading.local', 'self._local', 'werkzeug.local'])}, so nothing leaks between requests."
        ),
    ),
    (
        "a file name ending in .local",
        lambda r: (
            f"Debian runs {r.choice(['adduser.local', 'rc.local', '/etc/hosts.local'])} after the account is created, if the file exists."
        ),
    ),
    (
        "an EAN-13 barcode labelled EAN (Luhn-valid too)",
        lambda r: f"Scan the barcode, EAN {values.luhn_ean13(r)}, at the till.",
    ),
    ("an ISBN", lambda r: f"The second edition is ISBN {values.isbn13(r)}."),
    (
        "a timestamp",
        lambda r: (
            f"The job finished at {values.recent_date(r).isoformat()}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}Z."
        ),
    ),
    (
        "a Unix timestamp",
        lambda r: (
            f"The cache entry expires at {r.randint(1700000000, 1800000000)} (seconds since the epoch)."
        ),
    ),
    ("a commit hash", lambda r: f"The fix landed in commit {values.hex_string(r, 40)}."),
    ("a SHA-256 digest", lambda r: f"Verify the download: sha256 {values.hex_string(r, 64)}."),
    ("a UUID", lambda r: f"Your request ID is {values.uuid4(r)}; quote it if you contact us."),
    (
        "an amount",
        lambda r: (
            f"Your invoice total is ${r.randint(1, 99)},{r.randint(100, 999)}.{r.randint(10, 99)}, due on the 15th."
        ),
    ),
    ("an order number", lambda r: f"Order #{_d(r, 8)} has shipped."),
    (
        "a tracking number",
        lambda r: (
            f"Tracking number: 1Z{''.join(r.choice(string.ascii_uppercase + string.digits) for _ in range(16))}"
        ),
    ),
    (
        "a section number",
        lambda r: (
            f"See section {r.randint(1, 9)}.{r.randint(1, 9)}.{r.randint(1, 9)}.{r.randint(1, 9)} of the manual."
        ),
    ),
    (
        "an OID",
        lambda r: f"The attribute's OID is 1.3.6.1.4.1.{r.randint(1000, 60000)}.{r.randint(1, 9)}.",
    ),
    (
        "a date that is no birth date",
        lambda r: f"Your subscription renews on {values.recent_date(r).strftime('%m/%d/%Y')}.",
    ),
    ("a ZIP+4 code", lambda r: f"Ship it to ZIP code {_d(r, 5)}-{_d(r, 4)}."),
    (
        "a price list",
        lambda r: (
            f"Small is ${r.randint(5, 9)}.99, medium ${r.randint(10, 14)}.99 and large ${r.randint(15, 19)}.99."
        ),
    ),
    (
        "a semantic version range",
        lambda r: (
            f"Supported versions: {r.randint(1, 4)}.{r.randint(0, 20)}.{r.randint(0, 9)} to {r.randint(5, 9)}.{r.randint(0, 9)}.{r.randint(0, 9)}."
        ),
    ),
    (
        "a coordinate pair",
        lambda r: f"The store is at {r.uniform(-80, 80):.5f}, {r.uniform(-170, 170):.5f}.",
    ),
    (
        "a percentage table",
        lambda r: f"Uptime last quarter: {r.uniform(99, 100):.3f}% (target 99.9%).",
    ),
    ("a masked card", lambda r: f"The card ending in {_d(r, 4)} was charged."),
    ("a masked account", lambda r: f"Refund sent to the account ending ****{_d(r, 4)}."),
    (
        "a placeholder credential",
        lambda r: (
            f"Set API_KEY={r.choice(['<YOUR_API_KEY>', 'your-api-key-here', '${API_KEY}', 'changeme', 'xxxxxxxxxxxxxxxx'])} before running the script."
        ),
    ),
)


def look_alike_prose(rng: random.Random, n: int = 500) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        note, make = LOOK_ALIKES[i % len(LOOK_ALIKES)]
        out.append(case("*", make(rng), False, source=OWN, note=note))
    return out


# ---- one detector's look-alikes ----------------------------------------------------

PER_DETECTOR: dict[str, tuple[tuple[str, Callable[[random.Random], str]], ...]] = {
    "card": (
        ("EAN-13 labelled EAN, Luhn-valid", lambda r: f"Product EAN: {values.luhn_ean13(r)}"),
        ("an IMEI labelled IMEI (Luhn-valid)", lambda r: f"Your phone's IMEI is {values.imei(r)}."),
        (
            "a 16-digit order number that fails Luhn",
            lambda r: f"Order reference {values.luhn_invalid(r, 16)}",
        ),
        ("a masked card", lambda r: f"Card: **** **** **** {_d(r, 4)}"),
        ("an ISBN-13", lambda r: f"ISBN {values.isbn13(r).replace('-', '')}"),
    ),
    "ssn": (
        (
            "an SSN-shaped number never issued, labelled as a part",
            lambda r: (
                f"Part number {(s := values.not_ssn(r))[:3]}-{s[3:5]}-{s[5:]} is back in stock."
            ),
        ),
        ("a masked SSN", lambda r: f"SSN on file: ***-**-{_d(r, 4)}"),
        (
            "a phone-shaped number",
            lambda r: f"Call {r.randint(201, 989)}-555-01{_d(r, 2)} for help.",
        ),
        ("a date", lambda r: f"Filed on {values.recent_date(r).isoformat()}."),
    ),
    "bank_account": (
        ("an order number", lambda r: f"Your order number is {_d(r, 10)}."),
        ("a masked account", lambda r: f"Account ending in {_d(r, 4)}."),
        ("a case number", lambda r: f"Case {_d(r, 9)} is closed."),
        ("a tracking number", lambda r: f"USPS tracking {_d(r, 22)}"),
    ),
    "routing_number": (
        (
            "a nine-digit tracking number",
            lambda r: f"Tracking number {values.routing(r)} (ground shipping).",
        ),
        ("a nine-digit order number", lambda r: f"Order {_d(r, 9)} is on its way."),
        ("a ZIP+4", lambda r: f"ZIP {_d(r, 5)}-{_d(r, 4)}"),
    ),
    "drivers_license": (
        (
            "a licence plate",
            lambda r: (
                f"Your car's plate, {r.randint(1, 9)}{''.join(r.choice(string.ascii_uppercase) for _ in range(3))}{_d(r, 3)}, is on the permit."
            ),
        ),
        (
            "a software licence",
            lambda r: f"Released under the Apache License {r.choice(['2.0', 'v2'])}; see LICENSE.",
        ),
        (
            "a booking reference",
            lambda r: (
                f"Booking reference {''.join(r.choice(string.ascii_uppercase) for _ in range(2))}{_d(r, 7)}."
            ),
        ),
        ("an unlabelled number", lambda r: f"Your ticket is {_d(r, 9)}."),
    ),
    "email": (
        (
            "a decorator",
            lambda r: (
                f"Mark it with @{r.choice(['property', 'cached_property', 'staticmethod', 'dataclass'])} and call it without parentheses."
            ),
        ),
        (
            "a scoped package",
            lambda r: (
                f"Install @{r.choice(['types', 'babel', 'angular'])}/{r.choice(['node', 'core', 'cli'])} first."
            ),
        ),
        ("a handle", lambda r: f"Ping @{_faker_user(r)} on the team channel."),
    ),
    "phone": (
        ("an ISBN", lambda r: f"ISBN {values.isbn13(r)}"),
        ("an amount", lambda r: f"The balance is ${r.randint(1, 9)},{_d(r, 3)},{_d(r, 3)}."),
        (
            "a date range",
            lambda r: (
                f"Valid {values.recent_date(r).isoformat()} to {values.recent_date(r).isoformat()}."
            ),
        ),
        (
            "a version",
            lambda r: f"Requires {r.randint(1, 9)}.{r.randint(0, 40)}.{r.randint(0, 99)} or later.",
        ),
        ("a time range", lambda r: f"Open {r.randint(7, 10)}:00-{r.randint(17, 21)}:30 daily."),
    ),
    "ip_address": (
        (
            "a four-part version pin",
            lambda r: (
                f"{r.choice(PACKAGES)}=={r.randint(0, 3)}.{r.randint(0, 9)}.{r.randint(0, 9)}.{r.randint(1, 9)}"
            ),
        ),
        (
            "a section number",
            lambda r: (
                f"Clause {r.randint(1, 9)}.{r.randint(1, 9)}.{r.randint(1, 9)}.{r.randint(1, 9)} applies."
            ),
        ),
        (
            "a build number",
            lambda r: (
                f"Build {r.randint(1, 20)}.{r.randint(0, 9)}.{r.randint(1000, 9999)}.{r.randint(1, 999)}"
            ),
        ),
    ),
    "iban": (
        (
            "an invalid IBAN-shaped reference",
            lambda r: f"Reference: DE00 {_d(r, 4)} {_d(r, 4)} {_d(r, 4)} {_d(r, 4)} {_d(r, 2)}",
        ),
        ("a part number", lambda r: f"Part GB-{_d(r, 6)}-{r.choice('ABC')}"),
    ),
    "date_of_birth": (
        (
            "a delivery date",
            lambda r: f"Your parcel arrives on {values.recent_date(r).strftime('%B %d, %Y')}.",
        ),
        (
            "a renewal date",
            lambda r: f"The policy renews {values.recent_date(r).strftime('%m/%d/%Y')}.",
        ),
        (
            "a birth word without a date",
            lambda r: "Bring your birth certificate and a photo ID to the appointment.",
        ),
        (
            "a company's founding date",
            lambda r: f"The company was founded on {values.birth_date(r).strftime('%B %d, %Y')}.",
        ),
    ),
    "credentials": (
        (
            "a masked key",
            lambda r: (
                f"Your key {r.choice(['sk_' + 'live_', 'ghp_', 'xoxb-', 'AKIA', 'glpat-'])}{'*' * r.randint(4, 20)} was rotated."
            ),
        ),
        (
            "a placeholder",
            lambda r: (
                f"Authorization: Bearer {r.choice(['<YOUR_API_KEY>', '<token>', 'YOUR_TOKEN_HERE', '${GITHUB_TOKEN}', '{{ secrets.NPM_TOKEN }}'])}"
            ),
        ),
        (
            "an environment reference",
            lambda r: (
                f'api_key = os.environ["{r.choice(["STRIPE_KEY", "OPENAI_API_KEY", "SLACK_TOKEN"])}"]'
            ),
        ),
        (
            "a provider's documented example key",
            lambda r: (
                f"The docs use {r.choice(['AKIA' + 'IOSFODNN7' + 'EXAMPLE', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'EXAMPLEKEY'])} as an example."
            ),
        ),
        (
            "a redacted token",
            lambda r: f"The token {r.choice(['ghp_', 'sk-', 'xoxp-'])}[REDACTED] was revoked.",
        ),
        ("a commit hash", lambda r: f"Deployed {values.hex_string(r, 40)} to production."),
        ("a UUID request id", lambda r: f"Request {values.uuid4(r)} failed with 429."),
    ),
}
PER_DETECTOR_EACH = 60


def _faker_user(rng: random.Random) -> str:
    fake = Faker("en_US")
    fake.seed_instance(rng.getrandbits(32))
    return str(fake.user_name())


def detector_look_alikes(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for detector, kinds in PER_DETECTOR.items():
        for i in range(PER_DETECTOR_EACH):
            note, make = kinds[i % len(kinds)]
            out.append(case(detector, make(rng), False, source=OWN, note=note))
    return out


MAKERS: list[Callable[[random.Random], list[dict[str, Any]]]] = [
    doc_prose,
    look_alike_prose,
    detector_look_alikes,
]
