"""The gate of each ``sensitive_data`` detector: what every finding of it must hold.

Written loose on purpose. Detectors widen (any separators between the digit
groups of a checksum number, obfuscated emails, dashes and digits of every
script normalised first), and a gate must never shut on what they find:

* numbers: N digits, any run of characters that are not letters or digits
  between each two (``4111 - 1111``, ``123\\t45\\t6789``, ``4 5 3 9, 1 4 8 8``,
  a card wrapped over an indented line);
* labelled numbers also need their label: the detector's own keyword set,
  by the literal pieces it already tests for (``Keywords.needles``);
* emails: ``@``, ``%40``, or "at" followed by a domain label and a dot or
  "dot" (``name [at] domain [dot] com``, ``name (at) domain.com``), with up
  to eight characters of brackets and spaces around the label (bounded, so
  the ``re`` engine stays linear on a hostile text);
* credentials: one of the providers' prefixes, or the words the detector
  needs nearby.

A detector without a gate here always runs: ``private_values`` (any words
may be a private value) and ``instructions_leak`` (the instructions change
per turn; it gates itself on each agent's instructions, ``leak_gate``).

``detector_seeds``: where the patterns that a detector would otherwise run
over the whole text can start, found in the same scan (``Seed``). Each seed
list matches at least at every start of its pattern (the detector module
defines both side by side), so the detector's findings stay the same.
"""

from __future__ import annotations

from collections.abc import Iterable

from turncheck.worker.checks.gates import Atom, Clause, Gate, Seed
from turncheck.worker.checks.sensitive import (
    bank,
    credential_formats,
    date_of_birth,
    drivers_license,
    iban,
    internal_links,
    labelled_tokens,
    phone,
    phone_labels,
)
from turncheck.worker.checks.sensitive.nearby import Keywords

# Between two digits of one number: anything but letters and digits, however long.
_GAP = "[^0-9A-Za-z]*"


def digits(count: int) -> Atom:
    """``count`` digits with anything but letters between each two."""
    return Atom.digit_run(count)


def words(keywords: Keywords) -> Clause | None:
    """Any of a keyword set's needles, in any case; None when one is not ASCII."""
    if not all(n.isascii() for n in keywords.needles):
        return None
    return tuple(Atom.literal(n, caseless=True) for n in sorted(keywords.needles))


def _all(*clauses: Clause | None) -> Gate:
    """Every clause; one that cannot be written makes the gate always open."""
    if any(c is None for c in clauses):
        return ()
    return tuple(c for c in clauses if c is not None)


_ANY_DIGIT = (Atom("[0-9]"),)
# A country code and check digits, any separators between the four.
_IBAN = Atom(
    f"[A-Za-z]{_GAP}[A-Za-z]{_GAP}[0-9]{_GAP}[0-9]",
    python="[0-9](?<=[A-Za-z][A-Za-z][0-9])[0-9]",
    view="stripped",
)
# The ``python`` forms open with a literal, which ``re`` skips ahead to.
_IPV4 = Atom(
    r"[0-9]\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]",
    python=r"\.(?<=[0-9]\.)[0-9]{1,3}\.[0-9]{1,3}\.[0-9]",
)
# An IPv6 address has "::" or eight groups, so three groups in a row.
_IPV6 = Atom(
    "::|[0-9A-Fa-f]:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]",
    python=":(?::|(?<=[0-9A-Fa-f]:)[0-9A-Fa-f]{1,4}:[0-9A-Fa-f])",
)
_EMAIL = (
    Atom("@"),
    Atom("%40"),
    Atom(
        r"at[^A-Za-z0-9]{1,8}[^ \t\n\r\f\v.]{1,64}[^A-Za-z0-9]{0,8}(?:\.|dot)",
        caseless=True,
        python=r"at[^a-z0-9]{1,8}[^ \t\n\r\f\v.]{1,64}[^a-z0-9]{0,8}(?:\.|dot)",
        view="lowered",
    ),
)
# Every format of ``credentials``: its anchors from the formats' table (case as issued),
# the providers' names its labelled tokens follow (any case), the openings of the key
# blocks and JWTs it finds by code, or the words its context-dependent finds need nearby.
_CREDENTIALS = (
    *(Atom.literal(anchor) for fmt in credential_formats.FORMATS for anchor in fmt.anchors),
    *(Atom.literal(name, caseless=True) for name in labelled_tokens.NAMES),
    *(Atom.literal(opening) for opening in ("eyJ", "-----BEGIN", "PuTTY-User-Key-File-", "://")),
    Atom("(?:SK|AC)[0-9a-fA-F]{32}"),
    *(Atom.literal(word, caseless=True) for word in ("bearer", "twilio", "secret")),
)


def detector_gates(internal_domains: tuple[str, ...]) -> dict[str, Gate]:
    """Each detector's gate; ``()`` for a detector that always runs."""
    hosts: Clause | None = None  # an empty domain is in every text; nor can a gate spell
    if all(d and d.isascii() for d in internal_domains):  # a domain outside ASCII
        hosts = (
            Atom.literal("://"),
            Atom.literal("\\\\"),
            _IPV4,
            _IPV6,
            *(Atom.literal(h, caseless=True) for h in internal_links.HOST_HINTS),
            *(Atom.literal(d, caseless=True) for d in internal_domains),
        )
    return {
        "ssn": ((digits(9),),),
        "card": ((digits(13),),),
        "bank_account": _all((digits(4),), words(bank.ACCOUNT_WORDS)),
        "routing_number": _all((digits(9),), words(bank.ROUTING_WORDS)),
        "drivers_license": _all(words(drivers_license.LICENSE_WORDS)),
        "email": (_EMAIL,),
        # Seven digits at least, or a toll-free code before a vanity word (1-800-FLOWERS).
        "phone": ((digits(7), Atom("8(?:00|33|44|55|66|77|88)")),),
        "ip_address": ((_IPV4, _IPV6),),
        "iban": ((_IBAN,),),
        "date_of_birth": _all(_ANY_DIGIT, words(date_of_birth.BIRTH_WORDS)),
        "credentials": (_CREDENTIALS,),
        "private_values": (),
        "instructions_leak": (),
        "internal_links": _all(hosts),
    }


# Each detector's seeds by the name it asks for them (``DetectorContext.candidates``);
# ``phone`` reads IBANs too, to leave their digits alone.
_SEEDS: dict[str, dict[str, tuple[Seed, ...]]] = {
    "phone": {
        "phone.runs": phone_labels.DIGIT_RUN_SEEDS,
        "phone.toll_free": phone.TOLL_FREE_SEEDS,
        "iban": iban.SEEDS,
    },
    "iban": {"iban": iban.SEEDS},
    "bank_account": {"bank.needles": bank.NEEDLE_SEEDS},
}


def detector_seeds(detectors: Iterable[str]) -> dict[str, tuple[Seed, ...]]:
    """The seeds that ``detectors`` read their candidates from, by name."""
    return {name: seeds for d in detectors for name, seeds in _SEEDS.get(d, {}).items()}
