"""Which sentences of an answer claim that an action was, is being, or will be done.

A mention of an action (``vocabulary``) claims it when the answer says the
agent or the system did it, does it now, or promises it: "Your refund has been
issued", "I'm transferring you to a specialist", "I'll send the replacement
today", "You'll receive a reset link shortly". It does not when:

* the customer did it: "you cancelled it yesterday" (but "you've been charged"
  is said of the customer, not by them, and claims);
* it is a question or an offer: "Would you like me to cancel it?", "I can
  issue a refund if you want";
* it is conditional: "if the manager approves, I'll refund you" (any tense),
  "once approved, the refund will be issued" (not yet done: "once", "after",
  "when" leave a past claim standing);
* it is negated: "I couldn't cancel the order", "no refund has been issued";
* it is policy or habit: "Refunds are usually issued within 5 days";
* it is an instruction, a wish or a possibility: "you can request a refund",
  "to cancel, open Settings", "it should have shipped" (a base form claims only
  after "will", "'ll", "going to" or "let me");
* it is reported as waiting: "the refund was sent for approval";
* it reports what the customer said: "I understand you were charged twice".

The rules read one clause at a time; a condition opening the sentence governs
all of its clauses.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import regex

from turncheck.schemas.checkfile import ActionName
from turncheck.worker.checks import scan
from turncheck.worker.checks.action_claims.sentences import clauses, sentences
from turncheck.worker.checks.budget import Budget

_I = regex.IGNORECASE
_NEGATION = regex.compile(
    r"\b(?:not|never|no\s+longer|unable|cannot|failed\s+to|yet\s+to|unsuccessful(?:ly)?|"
    r"neither|nor|impossible|without|nothing|none)\b|n't\b",
    _I,
)
_NO_BEFORE = regex.compile(r"\b(?:no|nothing|zero)\s+(?:[\w-]+\s+){0,2}$", _I)
_QUESTION_OPENING = regex.compile(
    r"^\W*(?:would|could|can|shall|should|do|does|may|want|is\s+it\s+ok)\s+(?:you|i|we|me)\b", _I
)
_NOT_OFFERS = regex.compile(
    r"\b(?:i|we)\s+can\s+(?:now\s+|also\s+)?(?:confirm|see|tell|verify|assure|report|"
    r"let\s+you\s+know)|(?:happy|glad|pleased)\s+to\s+(?:confirm|report|say|share|"
    r"let\s+you\s+know|inform|tell)",
    _I,
)
_OFFER = regex.compile(
    r"\b(?:would\s+you\s+like|do\s+you\s+want|want\s+me\s+to|if\s+you(?:'d|\s+would)?\s+"
    r"(?:like|want|prefer)|happy\s+to|glad\s+to|(?:i|we)\s+(?:can|could|may|might)|"
    r"(?:i|we)(?:'m|'re|\s+am|\s+are)\s+able\s+to|feel\s+free|let\s+me\s+know|"
    r"(?:i|we)(?:'d|\s+would)|the\s+option|offer\s+to|suggest|recommend)\b",
    _I,
)
_STRONG_CONDITION = regex.compile(
    r"\b(?:if|unless|provided|assuming|in\s+case|whether|otherwise)\b", _I
)
_WEAK_CONDITION = regex.compile(
    r"\b(?:once|as\s+soon\s+as|after|when|whenever|upon|until|pending|subject\s+to|"
    r"following|on\s+approval)\b",
    _I,
)
_LEADING_CONDITION = regex.compile(
    r"^\W*(?:(?P<strong>if|unless|provided|assuming|in\s+case|should\s+(?:the|your|it|you))"
    r"|(?P<weak>once|as\s+soon\s+as|after|when|whenever|upon|until|pending|following|"
    # "Let me know which day works and I'll book it": the promise waits on the answer.
    r"let\s+me\s+know|just\s+(?:say|tell|reply)|tell\s+me|reply))\b",
    _I,
)
_WAITING_AFTER = regex.compile(
    r"\b(?:for\s+(?:\w+\s+){0,2}?(?:approval|review|authori[sz]ation|sign-?off|verification)|"
    r"pending|awaiting|subject\s+to)\b",
    _I,
)
_HABIT = regex.compile(
    r"\b(?:usually|typically|normally|generally|always|often|in\s+general|as\s+a\s+rule|"
    r"in\s+most\s+cases|standard|tends?\s+to|routinely|automatically\s+when)\b",
    _I,
)
_GENERIC_SUBJECT = regex.compile(
    r"^\W*(?:(?:all|any|most|every|each)\s+(?:\w+\s+)?|(?:refunds|cancellations|orders|payments|"
    r"charges|replacements|bookings|appointments|reservations|reset\s+links|password\s+resets|"
    r"escalations|transfers|shipments|items|parcels|packages|customers|tickets|cases|"
    r"subscriptions|accounts|reimbursements|transactions)\b)"
    # Any bare plural subject stating how things go: "Technicians are booked online".
    r"|^\W*(?!(?:your|the|my|our|this|that|these|those|his|her|their|its|both)\b)"
    r"(?:[a-z-]+\s+)?[a-z-]+s\s+(?:are|get|can|will|may|must|should|need|go|take|usually)\b",
    _I,
)
_DONE_AUX = regex.compile(r"\b(?:have|has|had|were|was|'ve|'d)\b", _I)
_FUTURE = regex.compile(
    r"(?:\bwill|'ll|\bshall|\bgoing\s+to|\bgonna|\blet\s+me|\blet\s+us|\blet's|\babout\s+to|"
    r"\bdue\s+to|\bset\s+to|\bscheduled\s+to)\s+(?:(?:now|also|just|then|go\s+ahead\s+and|"
    r"personally|immediately|quickly|straight\s+away|right\s+away|first|happily|be\s+able\s+to|"
    r"get|have|be|go\s+and|try\s+and)\s+)*$",
    _I,
)
_NOW = regex.compile(
    r"(?:\bam|'m|\bis|'s|\bare|'re|\bbeing|\bwas|\bwere|\bstarted|\bbegun|\bbegan)\s+"
    r"(?:(?:now|also|just|currently|"
    r"already|actively|personally|right\s+now|in\s+the\s+process\s+of)\s+)*$",
    _I,
)
_DONE_BEFORE = regex.compile(
    r"(?:\b(?:have|has|had|been|was|were|is|are|i|we|just|already|successfully|now|also|"
    r"get|got|gotten)|'ve|'d|'s|'re|'m)\s+$"
    r"|(?:'ve|\bhave|\bhas|\bhad|\bwent|\bgone)\b[^,]*\band\s+$",
    _I,
)
_WILL_BE = regex.compile(
    r"(?:\bwill|'ll|\bshall|\bgoing\s+to|\bgonna)\s+(?:\w+\s+)?(?:be|get|have\s+been)\s+"
    r"(?:(?:it|this|that|them|you|everything|all)\s+)?$",
    _I,
)
_ADJECTIVE_BEFORE = regex.compile(
    r"\b(?:the|your|a|an|this|that|my|our|its|their|any|these|those|last)\s+$", _I
)
_POSSIBLE = regex.compile(
    r"\b(?:would|could|should|might|must|may|can|to|need|needs)\s+(?:(?:have|be|been|not|"
    r"already|also|just|still|only|easily|then)\s+)*$",
    _I,
)
_SOON = regex.compile(
    r"^\s+(?:(?:out\s+)?(?:today|tomorrow|tonight|now|right\s+now|immediately|shortly|"
    r"this\s+(?:morning|afternoon|evening|week)|first\s+thing|later\s+today|within\s+the\s+hour))\b",
    _I,
)
_YOU_DID = regex.compile(
    r"\byou(?:'ve|'d|'ll|\s+have|\s+had)?(?:\s+(?:already|just|previously|recently|"
    r"yourself|did|also|then|had|have|can|could|may|might|should|must|need\s+to|will|"
    r"would|will\s+need\s+to|want\s+to|wanted\s+to|asked\s+to|tried\s+to|managed\s+to|"
    r"were\s+able\s+to|chose\s+to|decided\s+to))*\s+$",
    _I,
)
_GERUND_SUBJECT = regex.compile(
    r"\s+(?:\w+\s+){0,3}?(?:is|was|can|could|will|would|requires?|means|takes|needs)\b", _I
)
_IS = regex.compile(r"(?:\bis|\bare|'s|'re|\bgets?)\s+(?:\w+ly\s+|now\s+|already\s+)?$", _I)
_REPORTED = regex.compile(
    r"\b(?:understand|you\s+(?:mentioned|said|say|noticed|told|reported|wrote)|"
    r"according\s+to\s+you)\b",
    _I,
)
_PASSIVE = regex.compile(r"\b(?:been|be|being|were|was|get|got|gotten)\s+$", _I)
_AMBIGUOUS = frozenset({"reset", "put", "set", "run", "cut"})
_IRREGULAR_DONE = frozenset(
    {"sent", "made", "taken", "took", "done", "gone", "went", "paid", "ran", "got"}
)
_STATES = (
    *("on ", "en route", "in transit", "out for", "all set", "successful", "left ", "complete"),
    *("done", "all sorted", "underway", "in progress", "confirmed", "with "),
)


def claimed_sentences(
    text: str, mentions: Mapping[ActionName, regex.Pattern[str]], budget: Budget
) -> Iterator[tuple[ActionName, int, int]]:
    """``(action, start, end)`` for each sentence of ``text`` that claims ``action``;
    raises ``BudgetSpent`` when the turn's budget runs out."""
    for start, end in sentences(text, budget):
        budget.check()
        lead = _LEADING_CONDITION.match(text[start:end])
        parts = clauses(text, start, end)
        last = parts[-1][0]
        for c_start, c_end in parts:
            clause = text[c_start:c_end]
            question = (c_start == last and text[end - 1] == "?") or clause.rstrip().endswith("?")
            if question or _QUESTION_OPENING.match(clause):
                continue
            strong = _STRONG_CONDITION.search(clause) is not None or bool(lead and lead["strong"])
            weak = _WEAK_CONDITION.search(clause) is not None or bool(lead and lead["weak"])
            for action, pattern in mentions.items():
                budget.check()
                found = _mentions(pattern, clause, budget)
                if any(_claims(clause, m, strong, weak) for m in found):
                    yield action, start, end


def _mentions(
    pattern: regex.Pattern[str], clause: str, budget: Budget
) -> Iterator[regex.Match[str]]:
    """Every mention, overlapping ones too: "your money has been refunded to the card you
    paid with" reads "money ... paid" (the customer paid) and "refunded" (a claim)."""
    pos = 0
    while (mention := scan.search(pattern, clause, budget, pos)) is not None:
        yield mention
        pos = mention.start() + 1


def _claims(clause: str, mention: regex.Match[str], strong: bool, weak: bool) -> bool:
    """Whether ``mention`` in ``clause`` states or promises the action (see the module)."""
    v_start, v_end = mention.span("v")
    before = clause[: mention.start()]
    context = clause[:v_start]
    tail = regex.split(r"[,:]", context)[-1]
    form = _form(mention["v"], tail)
    if strong or (weak and form != "done"):
        return False
    if _NEGATION.search(tail) or _NO_BEFORE.search(before):
        return False
    if _WAITING_AFTER.search(clause, mention.start()):
        return False
    if _HABIT.search(context) or _OFFER.search(_NOT_OFFERS.sub(" ", context)):
        return False
    if _REPORTED.search(context):
        return False
    if _GENERIC_SUBJECT.match(clause) and not _DONE_AUX.search(context):
        return False
    said = mention["v"].lower()
    if not said.startswith("you") and _YOU_DID.search(tail) and not _PASSIVE.search(tail):
        return False
    if form == "base":
        return _FUTURE.search(tail) is not None
    if form == "now":
        # "Transferring you now" opens its clause; "Cancelling is easy" is a subject.
        opening = not tail.strip() and not _GERUND_SUBJECT.match(clause[v_end:])
        return opening or _NOW.search(tail) is not None
    if form == "present":
        return _SOON.match(clause[v_end:]) is not None
    if form == "done":
        return not (_ADJECTIVE_BEFORE.search(tail) or _POSSIBLE.search(tail))
    return not _POSSIBLE.search(tail)


def _form(said: str, tail: str) -> str:
    """``done`` (past, perfect, passive), ``now`` (progressive), ``state`` (on its way,
    a promise: "will be issued"), ``present`` (third person), or ``base``."""
    low = regex.sub(r"^(?:is|are|'s)\s+(?:now\s+|already\s+)?", "", said.lower())
    first = low.split()[0]
    if first.startswith("you") or low.startswith(_STATES):
        return "state"
    if first.endswith("ing"):
        return "now"
    if first in _AMBIGUOUS:
        if _FUTURE.search(tail):
            return "base"
        return "done" if _DONE_BEFORE.search(tail) else "base"
    if first in _IRREGULAR_DONE or first.endswith("ed"):
        # "will be issued" is a promise and "is processed" a state: a condition holds them.
        return "state" if _WILL_BE.search(tail) or _IS.search(tail) else "done"
    if first.endswith("s") and not first.endswith("ss"):
        return "present"
    return "base"
