"""The gates of the ``facts`` extractors on the answer: what each extractor's matches hold.

They take the place of the cheap tests ``extract`` made one by one ("@" in
the text, a TLD after a dot, "cent" for money in words) and add gates to the
extractors that had none; with gates off, ``extract`` runs its own tests.
Where an extractor's pattern reads Unicode (``\\s``, ``\\w``, a curly quote),
the atom also takes ``?``, which stands for any character outside ASCII.

The same scan reports where three scans can start (``FACT_SEEDS``, read with
``Gates.read``): ``CARD_ENDING`` at its "end" or "last", a date led by a month
at the month's first three letters (``dates.find_dates``), and an email address
before its "@" (``patterns.email_starts``), which the extractors then try there
alone (``checks.candidates``) instead of reading the whole text again. The seeds
are written in ASCII letters and "@": a match reads them as such (letters in any
case), and in ASCII text (the dates' seeded path reads only that) or in the gate
text a character folds to, they are those characters.
"""

from __future__ import annotations

from turncheck.worker.checks.facts.dates import MONTH_STARTS
from turncheck.worker.checks.facts.patterns import TLDS
from turncheck.worker.checks.facts.words import TEN_OR_MORE_WORDS
from turncheck.worker.checks.gates import Atom, Gate, Seed

_DIGIT = (Atom("[0-9]"),)
# What ``\s`` matches in a str pattern, as the gate text writes it: ASCII white
# space, the separators \x1c-\x1f, and "?" for the rest of Unicode's.
_SPACE = r"[\t-\r\x1c-\x20?]"


def _words() -> Atom:
    """A number word of ten or more after a character that is not a letter (the gate
    text starts with a space). ``extract`` keeps a number in words only from ten up,
    and only when its first word is not inside a word; any other word of it follows a
    space or a hyphen, and a value of ten or more takes a word worth ten or more. For
    ``re``, the lower-cased text read from the word's first letter, which it skips ahead
    to, looking back from there for the non-letter."""
    words = TEN_OR_MORE_WORDS
    firsts = sorted({w[0] for w in words})
    by_first = "|".join(
        f"(?<={f})(?:{'|'.join(w[1:] for w in words if w[0] == f)})" for f in firsts
    )
    return Atom(
        f"[^A-Za-z](?:{'|'.join(words)})",
        caseless=True,
        python=f"[{''.join(firsts)}](?<![a-z].)(?:{by_first})",
        view="lowered",
    )


FACT_GATES: dict[str, Gate] = {
    "link": ((Atom.literal("://"), Atom.literal("www.", caseless=True)),),
    "email": ((Atom.literal("@"),),),
    "domain": ((Atom(rf"\x2e(?:{TLDS}|[a-z][a-z]+/)"),),),
    "phone": ((Atom.literal("+"), Atom(rf"[0-9]{{3}}(?:{_SPACE}|[.\-])[0-9]{{3}}")),),
    # A code with a capital, one space, then a group with a digit ("MTR 0041", "1Z 999").
    "spaced_id": ((Atom("[A-Z][A-Z0-9]{0,3} [A-Z]*[0-9]"),),),
    "digits": (_DIGIT,),
    "card_ending": (
        tuple(Atom.literal(w, caseless=True) for w in ("ending", "ends", "last")),
        _DIGIT,
    ),
    "money_words": (
        (Atom.literal("cent", caseless=True), Atom.literal("pence", caseless=True)),
        tuple(Atom.literal(w, caseless=True) for w in ("dollar", "euro", "pound", "buck")),
    ),
    "words": ((_words(),),),
    "quote": ((Atom("[\"'?]"),),),
}


def _caseless(word: str) -> Seed:
    return Seed.of("".join(f"[{c.upper()}{c}]" for c in word))


FACT_SEEDS: dict[str, tuple[Seed, ...]] = {
    # Every ``EMAIL`` match holds an "@": ``patterns.email_starts`` walks back from it.
    "email": (Seed.of("@"),),
    # ``CARD_ENDING`` opens with "end" ("ending", "ends") or "last", in any case.
    "card_ending": (_caseless("end"), _caseless("last")),
    # Every month name (``dates``) opens with one of these, in any case.
    "months": tuple(_caseless(m) for m in MONTH_STARTS),
}
"""Per extractor, where its matches start (``Seed``)."""
