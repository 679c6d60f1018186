"""What the gates let through and what they rule out, engine by engine."""

from __future__ import annotations

import threading

import pytest
from stdnum import iban

from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.gates import GATED_CHARS, Atom, Gates, available, engine_name, use
from turncheck.worker.checks.gates.detectors import detector_gates
from turncheck.worker.checks.gates.literals import pattern_gate, phrase_gates
from turncheck.worker.checks.sensitive import DETECTORS, DetectorContext
from turncheck.worker.checks.textmap import fold, normalize

ENGINES = available()
CLEAN = (
    "Hi Jane, thanks for your patience while I looked into this. Your order SW-482113 for "
    "the standing desk was placed on March 4, 2026 and came to $412.50. It shipped with UPS "
    "on March 6 and should arrive by March 9. Refunds usually show up within 5 to 10 "
    "business days. Is there anything else I can help you with today?"
)


def _opened(text: str, engine: str, domains: tuple[str, ...] = ()) -> frozenset[str]:
    return Gates(detector_gates(domains), engine).open(normalize(text, Budget.unlimited()).text)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_answer_with_nothing_sensitive_runs_few_detectors(engine: str) -> None:
    """A plain support answer shuts the gates of every detector that needs what it lacks."""
    opened = _opened(CLEAN, engine)
    shut = {"ssn", "card", "bank_account", "routing_number", "drivers_license", "email"}
    shut |= {"ip_address", "date_of_birth", "credentials", "internal_links"}
    assert not opened & shut
    assert {"private_values", "instructions_leak"} <= opened  # no gate: they always run


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("detector", "text"),
    [
        ("card", "card 4111\t1111\t1111\t1111"),
        ("card", "card 4111.1111/1111 - 1111"),
        ("card", "card 4111 1111\n        1111 1111"),  # wrapped and indented
        ("card", "card \u0664\u0661\u0661\u0661 1111 1111 1111"),  # Arabic-Indic digits
        ("card", "card 4111\u20111111\u20111111\u20111111"),  # non-breaking hyphens
        ("card", "4 1 1 1, 1 1 1 1, 1 1 1 1, 1 1 1 1"),
        ("ssn", "SSN 536\u201421\u20149874"),  # em dashes
        ("ssn", "SSN 536 - 21 - 9874"),
        ("iban", "IBAN DE89 3704.0044/0532 0130 00"),
        ("routing_number", "routing 021 000 021"),
        ("bank_account", "Acct\u00a0#\u00a04839-2017"),
        ("email", "write to jane [at] example [dot] com"),
        ("email", "jane(at)example.com"),
        ("email", "jane @ example.com"),
        ("email", "JANE AT EXAMPLE DOT COM"),
        ("phone", "call 1-800-FLOWERS"),
        ("phone", "call +49 30 901820"),
        ("date_of_birth", "D\u0130L date of birth: 3/4/85"),
        ("drivers_license", "DRIVER\u2019S LICENSE A1234567"),
        ("credentials", "key sk_live_abc"),
        ("credentials", "Authorization: BEARER abc"),
        ("ip_address", "from 10.0.0.1"),
        ("ip_address", "from fe80::1"),
        ("internal_links", "see grafana.CORP"),
        ("internal_links", "see wiki.acme.example"),
    ],
)
def test_gates_open_for_disguised_forms(engine: str, detector: str, text: str) -> None:
    """Disguises detectors are taught to read (other dashes, digits and separators,
    obfuscated emails, odd case) never shut a gate."""
    assert detector in _opened(text, engine, ("acme.example",))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("detector", "text"),
    [
        ("iban", "IBAN be {} 7310 1866 4084".format(iban.calc_check_digits("BE00731018664084"))),
        (
            "iban",
            "GB-{}-NWBK-6016-1331-9268-19".format(iban.calc_check_digits("GB00NWBK60161331926819")),
        ),
        ("phone", "Mobile: 0465188289"),
        ("phone", "(0116) 4960924"),
        ("phone", "386.848.1591x976"),
        ("date_of_birth", "Please tell me your date of birth. It's 6/24/1991"),
        ("date_of_birth", "DOB: March 4th '82"),
        ("drivers_license", "DL# 1234567A"),
        ("drivers_license", "Driving licence: MORGA753116SM9IJ"),
        ("internal_links", "ping my-nas.local"),
    ],
)
def test_gates_open_for_the_widened_formats(engine: str, detector: str, text: str) -> None:
    """Every format a detector was widened to read is found by it and opens its gate."""
    found = DETECTORS[detector](normalize(text, Budget.unlimited()).text, DetectorContext())
    assert list(found)
    assert detector in _opened(text, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_phrase_gate_needs_every_word_of_the_phrase(engine: str) -> None:
    """A phrase's gate opens only when each of its words is in the text, in any case."""
    gates = Gates(phrase_gates(["acme support", "helpco"]), engine)
    assert gates.open(fold("**ACME** Support\u2122", Budget.unlimited()).text) == {"acme support"}
    assert gates.open("our support team") == frozenset()


def test_a_phrase_with_a_word_outside_ascii_always_runs() -> None:
    """A word the gate text cannot spell leaves the phrase's gate open."""
    assert phrase_gates(["\u65e5\u672c support"]) == {"\u65e5\u672c support": ()}


@pytest.mark.parametrize(
    ("pattern", "ignorecase", "literals"),
    [
        (r"(?<![A-Za-z0-9])TCK-[0-9]{6}(?![0-9])", True, {"TCK-"}),
        (r"\b(?:[a-z0-9-]+\.)+(?:internal|corp|svc\.cluster\.local)\b", False, None),
        (r"\b(?:damn(?:ed|it)?|crap(?:py)?|stupid|sucks?)\b", False, None),
        (r"(foo)?barbaz", False, {"barbaz"}),
        (r"(?i:abc)d", False, {"abc"}),
    ],
)
def test_a_pattern_gate_is_a_literal_every_match_holds(
    pattern: str, ignorecase: bool, literals: set[str] | None
) -> None:
    """The literals come from the pattern's syntax: required ones only, in its case."""
    (clause,) = pattern_gate(pattern, ignorecase, verbose=False)
    if literals is not None:
        assert {a.pattern.replace("\\x2d", "-") for a in clause} == literals
    assert all(a.caseless == (ignorecase or "(?i" in pattern) for a in clause)


@pytest.mark.parametrize(
    "pattern",
    [
        r"[0-9a-f]{3}[ .][0-9]{4}",  # no literal, and letters among the digits
        r"[0-9]{3}.[0-9]{4}",  # any character between the digits
        r"(?:acme){e<=1}",  # fuzzy: the regex module reads braces re does not
        r"\p{Lu}+corp",  # regex-only syntax
        r"(?V1)[[a-z]--[aeiou]]+corp",
        r"[[:alpha:]]+corp",
    ],
)
def test_a_pattern_without_a_sure_literal_always_runs(pattern: str) -> None:
    """Where the literals cannot be read for sure, the pattern has no gate."""
    assert pattern_gate(pattern, False, False) == ()


@pytest.mark.parametrize(
    ("pattern", "digits"),
    [
        (r"[0-9]{3}[ .][0-9]{4}", 7),
        (r"(?<![0-9])(?:\+1[ .-]?)?(?:\([2-79][0-9]{2}\) ?|[2-79][0-9]{2}[ .-])[0-9]{3}", 6),
        (r"(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])", 13),
        (r"\d{2}\s*\d{2}", 4),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_a_pattern_of_digits_and_punctuation_needs_its_digits_in_a_run(
    pattern: str, digits: int, engine: str
) -> None:
    """A pattern that matches nothing but digits, punctuation and spaces opens only on a
    text with as many digits in a row, whatever separates them."""
    gates = Gates({"p": pattern_gate(pattern, False, False)}, engine)
    run = "1" * digits
    assert gates.open(f"call {'-'.join(run)} now") == {"p"}
    assert gates.open(f"call {run[:-1]} now, in 5 days") == frozenset()


@pytest.mark.parametrize("engine", ENGINES)
def test_literal_atoms_match_only_themselves(engine: str) -> None:
    """Special characters, a NUL and a backslash in a literal are matched as written."""
    atoms = {"a": ((Atom.literal("a.b\\c\x00*"),),), "b": ((Atom.literal("a.b", True),),)}
    gates = Gates(atoms, engine)
    assert gates.open("x a.b\\c\x00* y") == {"a", "b"}
    assert gates.open("x aXb\\c\x00* A.B") == {"b"}
    assert gates.open("axb") == frozenset()


def test_gates_answer_the_same_from_many_threads() -> None:
    """Each thread scans with its own scratch space."""
    gates = Gates(detector_gates(()))
    expected = gates.open(CLEAN + " card 4111 1111 1111 1111")
    seen: list[frozenset[str]] = []

    def scan() -> None:
        for _ in range(200):
            seen.append(gates.open(CLEAN + " card 4111 1111 1111 1111"))

    threads = [threading.Thread(target=scan) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [expected] * 800


def test_the_engine_is_chosen_when_checks_are_compiled() -> None:
    """``use`` picks the engine of checks compiled inside it; ``off`` opens every gate."""
    assert engine_name() == ENGINES[0]
    with use("python"):
        assert Gates(detector_gates(())).engine == "python"
    with use("off"):
        assert Gates(detector_gates(())).open("") == set(detector_gates(()))
    with pytest.raises(ValueError, match="not available"):
        use("nonesuch").__enter__()


@pytest.mark.parametrize("domains", [("",), ("b\u00fccher.example",)])
def test_internal_domains_a_gate_cannot_spell_leave_the_gate_open(
    domains: tuple[str, ...],
) -> None:
    """An empty or non-ASCII internal domain keeps ``internal_links`` running on every text."""
    assert detector_gates(domains)["internal_links"] == ()


def test_a_pasted_document_opens_every_gate() -> None:
    """Past ``GATED_CHARS`` the detectors' own budgeted scans decide, not a gate."""
    gates = Gates(detector_gates(()))
    assert gates.open("x" * (GATED_CHARS + 1)) == set(detector_gates(()))
