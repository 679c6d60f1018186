"""``sensitive_data``: ready-made detectors, each turned on by name.

On ``output`` a check reads the answer and the text the model wrote beside its
tool calls (``rounds[i].text``): the customer sees both. Each detector reads the
normalised text (``textmap.normalize``: NFKC, dashes and other scripts' digits
made ASCII, invisible and bidi control characters removed), with written
disguises undone (``disguises``: character references, defanged addresses, hard
wraps, and on the SMS channel a gateway's wrap at any column) and spoken numbers
read as digits (``spoken``: on the voice channel and in transcripts, and anywhere
a run of number words is as long as a phone number); its findings are mapped back
to offsets in the text as stored; a finding's span is labelled with the detector's
name. The matched text is never kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from turncheck.schemas.checkfile import SensitiveDataCheck
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.disguises import undisguise
from turncheck.worker.checks.gates import Gates, engine_name
from turncheck.worker.checks.gates.detectors import detector_gates, detector_seeds
from turncheck.worker.checks.result import Outcome, Span, Verdict
from turncheck.worker.checks.sensitive import DETECTORS, DetectorContext, phone
from turncheck.worker.checks.spoken import read_spoken, widen
from turncheck.worker.checks.textmap import MappedText, compose, normalize
from turncheck.worker.checks.texts import stage_texts
from turncheck.worker.turns.structs import Turn


def compile_check(definition: SensitiveDataCheck) -> Callable[[Turn, Budget], Outcome]:
    detectors = [(name, DETECTORS[name]) for name in dict.fromkeys(definition.detectors)]
    if "phone" in definition.detectors:
        phone.warm_up()  # loads every country's number data: ~30 ms once, not on a turn
    stage = definition.stage
    leak_words = definition.instructions_leak_words
    internal_domains = tuple(d.lower().strip(".") for d in definition.internal_domains)
    every_gate = detector_gates(internal_domains)
    gated = engine_name() == "hyperscan"  # the leak gate and the seeds run on Hyperscan alone
    # The seeds spare the detectors scans of their own; the pure-Python engine would
    # only do those scans another way, slower (it is the reference the tests hold to).
    seeds = detector_seeds(definition.detectors) if gated else {}
    gates = Gates({name: every_gate.get(name, ()) for name, _ in detectors}, seeds=seeds)

    reads_instructions = "instructions_leak" in definition.detectors

    def run(turn: Turn, budget: Budget) -> Outcome:
        instructions = turn.instructions if reads_instructions else None
        context = DetectorContext(
            instructions=normalize(instructions or "", budget).text,
            private_values=tuple(turn.private_values),
            instructions_leak_words=leak_words,
            knowledge=tuple(p.content for p in turn.knowledge) if reads_instructions else (),
            internal_domains=internal_domains,
            budget=budget,
            gated=gated,
        )
        spans: list[Span] = []
        for field, text in stage_texts(turn, stage, with_rounds=True):
            budget.check()
            spoken = turn.channel == "voice" or field == "input.transcript"
            mapped, words_read = _reading(text, budget, spoken=spoken, sms=turn.channel == "sms")
            opened, candidates = gates.read(mapped.text)
            reading = context if candidates is None else replace(context, candidates=candidates)
            for name, find in detectors:
                if name not in opened:
                    continue  # a gate shuts only on a text its detector finds nothing in
                budget.check()
                for start, end in find(mapped.text, reading):
                    if end > start:
                        at = mapped.span(start, end)
                        spans.append(Span(field, *(widen(text, *at) if words_read else at), name))
        found = {span.label for span in spans}
        parts = tuple(
            (name, Verdict.FAILED if name in found else Verdict.PASSED) for name, _ in detectors
        )
        if not spans:
            return Outcome(Verdict.PASSED, parts=parts)
        spans.sort(key=lambda s: (s.field != "output.text", s.field, s.start, s.end))
        reason = f"The text contains {_DESCRIPTIONS[spans[0].label]}."
        return Outcome(Verdict.FAILED, reason, tuple(spans), parts=parts)

    return run


def _reading(
    text: str, budget: Budget, *, spoken: bool, sms: bool = False
) -> tuple[MappedText, bool]:
    """What the detectors read of ``text``, mapped back to it, and whether number words
    were read as digits (a span then ends inside a word, and is widened to it). ``sms``:
    the text came over SMS, whose gateways wrap lines at any column."""
    mapped = normalize(text, budget)
    mapped = compose(undisguise(mapped.text, budget, sms=sms), mapped)
    read = read_spoken(mapped.text, budget, spoken=spoken)
    if read.text == mapped.text:
        return mapped, False
    return compose(read, mapped), True


_DESCRIPTIONS = {
    "ssn": "a Social Security number",
    "card": "a payment card number",
    "bank_account": "a bank account number",
    "routing_number": "a bank routing number",
    "drivers_license": "a driver's license number",
    "email": "an email address",
    "phone": "a phone number",
    "ip_address": "an IP address",
    "iban": "an IBAN",
    "date_of_birth": "a date of birth",
    "credentials": "a credential (key, token or private key)",
    "private_values": "a value the customer entered privately",
    "instructions_leak": "text copied from the agent's instructions",
    "internal_links": "an internal link or address",
}
