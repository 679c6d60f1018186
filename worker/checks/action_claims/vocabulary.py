"""How each action is said: the words whose use can claim it, and the tools that do it.

A mention is found by one of three shapes, each with a ``v`` group on the verb
(or the verb-like phrase) whose tense and context decide whether it claims
(``claims.py``):

* the action's own verb: "cancelled", "I'm transferring you to a specialist";
* the action's noun, then a verb that completes it: "your refund has been
  issued", "the replacement is on its way";
* a verb that completes it, then the noun: "I've issued a full refund", "you'll
  receive a reset link".

Only the noun's head word is matched; a noun followed by a word that makes it
something else ("refund request", "order status") is not the action.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import regex

from turncheck.schemas.checkfile import ActionName

DEFAULT_TOOLS: dict[ActionName, tuple[str, ...]] = {
    "refund": ("*refund*",),
    "cancellation": ("*cancel*",),
    "charge": ("*charge*", "*payment*", "*bill*"),
    "shipment": ("*ship*", "*dispatch*", "*replace*"),
    "booking": ("*book*", "*reserve*", "*schedule*", "*appointment*"),
    "password_reset": ("*password*", "*reset*", "*unlock*"),
    "escalation": ("*escalat*", "*transfer*", "*handoff*", "*human*", "*agent*"),
}
"""Tool-name globs that perform each action when a check names none of its own."""

_TARGET = (
    r"(?!(?:me|us)\b)(?:a|an|the|our|my|one\s+of\s+our|your)?\s*(?:[\w-]+\s+){0,4}?"
    r"(?:person|people|human|agent|specialist|supervisor|manager|"
    r"colleague|representative|rep|team|department|expert|someone|"
    r"tier[\s-]*(?:2|two)|escalations?\s+team|staff|advisor|adviser|lead)s?\b"
)
_NOUN_FOLLOWERS = (
    r"(?:request|requests|application|form|policy|policies|status|details|number|summary|"
    r"history|page|option|options|eligibility|window|process|inquiry|enquiry|amount|"
    r"confirmation|question|claim|terms|rules|fee|portal|button|settings|time|times|"
    r"date|info|information|reference)\b"
)


@dataclass(frozen=True, slots=True)
class Words:
    """How one action is said."""

    verbs: str
    """Its own verb in every form, with what must follow it (a target, an object)."""
    nouns: str
    noun_verbs: str
    """Verbs and phrases that complete the noun, in every form."""
    stems: str
    """Words one of which every mention holds (its noun, its verb or its target): a
    plain search for them spares most answers the full reading."""


_COMPLETE = (
    r"issu(?:e|ed|es|ing)|process(?:ed|es|ing)?|sen[dt]|sending|sends|"
    r"complet(?:e|ed|es|ing)|initiat(?:e|ed|es|ing)|appl(?:y|ied|ies|ying)|"
    r"put\s+through|putting\s+through|go(?:ne|es)?\s+through|went\s+through|going\s+through|"
    r"done|complete|all\s+sorted|"
    r"finali[sz](?:e|ed|es|ing)|action(?:ed|ing)|execut(?:e|ed|es|ing)|"
    r"submitted\s+for\s+processing"
)

WORDS: dict[ActionName, Words] = {
    "refund": Words(
        verbs=r"refund(?:ed|ing|s)?|reimburs(?:e|ed|es|ing)|"
        # A charge reversed or voided is money given back.
        r"revers(?:e|ed|ing)\s+(?:the|your|that|this)\s+(?:[\w$.,-]+\s+){0,2}?"
        r"(?:charge|payment|transaction|fee)s?|"
        r"(?=(?:revers|void)ed)(?<=\b(?:charge|payment|transaction|fee)s?\b"
        r"(?:[^.!?;\n]|\.(?=\d)){0,40})(?:revers|void)ed|"
        r"credit(?:ed|ing)\s+(?:you|your\s+(?:account|card|balance|wallet))|"
        r"(?:return(?:ed|ing)|sent\s+back)\s+(?:[\w$.,-]+\s+){0,3}?to\s+your\s+(?:original\s+)?"
        r"(?:payment|card|account|bank|wallet)|"
        r"credit(?:ed|ing)?\s+(?:back|"
        r"(?:it|the\s+\w+|\$?[\d.,]+)\s+(?:back\s+)?to\s+your)|paid\s+(?:you\s+)?back",
        nouns=r"refund|reimbursement|money(?:\s+back)?|(?:store\s+)?credit(?!\s+card)|credit\s+note",
        noun_verbs=_COMPLETE + r"|credit(?:ed|ing)|pa(?:id|ying)\s+out|releas(?:e|ed|ing)|"
        r"on\s+(?:its|the)\s+way|arrang(?:e|ed|ing)|approved\s+and\s+issued|"
        r"reach(?:es)?|arrive|arrives|appear|appears|show\s+up|land|hit|cleared|follow|"
        r"paid(?!\s+for)",
        stems=r"refund|reimburs|credit|money|revers|void|return|sent\s+back|paid\s+back",
    ),
    "cancellation": Words(
        verbs=r"cancell?(?:ed|ing|s)?|terminat(?:e|ed|es|ing)|deactivat(?:e|ed|es|ing)|"
        r"called\s+off|call(?:ing)?\s+off|clos(?:e|ed|ing)\s+(?:your|the)\s+(?:[\w-]+\s+)?account",
        nouns=r"cancellation|termination",
        noun_verbs=_COMPLETE
        + r"|done|confirm(?:ed|ing)?|went\s+through|clos(?:e|ed|ing)(?:\s+out)?",
        stems=r"cancel|terminat|deactivat|call|clos",
    ),
    "charge": Words(
        verbs=r"charg(?:e|ed|es|ing)|bill(?:ed|ing)|debit(?:ed|ing)|"
        r"put(?:ting)?\s+(?:the|your)\s+(?:[\w$.,-]+\s+)?(?:payment|charge|transaction)\s+through|"
        r"(?:ran|run|running|processed|processing)\s+(?:your|the)\s+(?:[\w-]+\s+)?card\b",
        nouns=r"payment|charge|transaction|invoice\s+payment|balance|deposit|fee",
        noun_verbs=_COMPLETE + r"|tak(?:e|en|ing)|took|made|mak(?:e|ing)|captur(?:e|ed|ing)|"
        r"collect(?:ed|ing)?|successful|received|accepted|posted|run|ran",
        stems=r"charg|bill|debit|card|payment|transaction|balance|deposit|fee",
    ),
    "shipment": Words(
        verbs=r"ship(?:ped|ping|s)?|dispatch(?:ed|es|ing)?|couriered|mailed|"
        r"sen[dt]\s+you\s+(?:a|an)\s+(?:brand[\s-]+)?new\b(?!\s+(?:[\w-]+\s+)?(?:link|code|password|"
        r"email|message|invoice|receipt|bill|statement|quote|form))|"
        # Whatever is on its way, unless the sentence names another action's thing.
        r"(?=(?:is|are|'s)\s)(?<!\b(?:refund|money|link|email|code|credit|reimbursement|password|agent|specialist|"
        r"supervisor|technician|engineer|someone|person|help|temporary|one-time|otp|text|sms|"
        r"message|confirmation|receipt|invoice|response|reply|update|answer|callback|call)\b(?:[^.!?;\n]|\.(?=\d)){0,40})"
        r"(?:is|are|'s)\s+(?:now\s+|already\s+)?(?:on\s+(?:its|the|their)\s+way|in\s+transit|"
        r"out\s+for\s+delivery|en\s+route)|"
        r"sen[dt]\s+(?:\w+\s+){0,3}?out",
        nouns=r"replacement|package|parcel|shipment|order|item|items|new\s+card|"
        r"tracking\s+(?:number|label|link)|delivery",
        noun_verbs=r"sen[dt]|sending|sends|mailed|posted|on\s+(?:its|the|their)\s+way|"
        r"en\s+route|in\s+transit|out\s+for\s+delivery|left\s+(?:our|the)\s+warehouse|"
        r"handed\s+(?:over\s+)?to\s+the\s+(?:courier|carrier)|arrang(?:e|ed|ing)(?:\s+for)?|"
        r"generat(?:e|ed|ing)|creat(?:e|ed|ing)|issu(?:e|ed|ing)|(?:be\s+)?arriving|"
        r"go(?:es|ing)?\s+out|went\s+out|gone\s+out|arrive|be\s+delivered|reach\s+you|"
        r"order(?:ed|ing)|with\s+the\s+(?:courier|carrier)",
        stems=r"ship|dispatch|courier|mail|sen[dt]|replacement|package|parcel|order|item|card|"
        r"tracking|deliver|way|transit|route",
    ),
    "booking": Words(
        verbs=r"(?=(?:re-?)?book)(?<!fully\s|completely\s)(?:re-?)?book(?:ed|ing|s)?(?!\s+up\b)|"
        r"put(?:ting)?\s+you\s+down\s+for|pencil(?:led|ed)?\s+you\s+in|"
        r"(?=confirmed\s+for)(?<=\byou're\s|\byou\s+are\s|\byou're\s+all\s|\byou\s+are\s+all\s)"
        r"confirmed\s+for|"
        r"register(?:ed|ing)|enrol(?:l|led|ling)|sign(?:ed|ing)\s+(?:you\s+)?up|"
        r"reserv(?:e|ed|es|ing)|(?:re-?)?schedul(?:e|ed|es|ing)"
        r"(?!\s+(?:to\b|for\s+(?:delivery|pickup|collection|dispatch|shipping)))",
        nouns=r"(?:appointment|reservation|booking|table|flight|seat|room|visit|consultation|"
        r"session|slot|stay)s?",
        noun_verbs=r"confirm(?:ed|ing)?|made|mak(?:e|ing)|set\s+up|arrang(?:e|ed|ing)|chang(?:e|ed|ing)|"
        r"g[eo]t\s+you|"
        r"lock(?:ed)?\s+in|secur(?:e|ed|ing)|mov(?:e|ed|ing)|all\s+set|plac(?:e|ed|ing)",
        stems=r"book|reserv|schedul|put\s+you\s+down|pencil|confirmed|regist|enrol|sign|"
        r"appointment|table|flight|seat|room|visit|consultation|session|slot|stay",
    ),
    "password_reset": Words(
        verbs=r"reset(?:ting|s)?\s+(?:\w+\s+){0,3}?(?:password|login|credentials|pin|"
        r"passcode)|unlock(?:ed|ing|s)?",
        nouns=r"reset\s+(?:link|email|e-mail|code|instructions)|password\s+reset(?:\s+link)?|"
        r"link\s+to\s+reset|password|temporary\s+password",
        noun_verbs=r"sen[dt]|sending|emailed|texted|on\s+(?:its|the)\s+way|generat(?:e|ed|ing)|"
        r"issu(?:e|ed|ing)|trigger(?:ed|ing)?|reset|changed|updated|unlocked|restored|"
        r"complete|done|successful|"
        r"reactivated",
        stems=r"reset|unlock|password",
    ),
    "escalation": Words(
        verbs=r"escalat(?:e|ed|es|ing)|"
        r"(?=with\s)(?<=\b(?:issue|case|ticket|request|complaint|query|problem)\s+(?:is|are|'s)\s+"
        rf"(?:now\s+)?)with\s+{_TARGET}|"
        r"(?:get|getting|got|ask(?:ed)?|arrang(?:e|ed))\s+(?:a|an|the|one\s+of\s+our|our)\s+"
        r"(?:[\w-]+\s+)?(?:specialist|supervisor|manager|agent|colleague|person|human|"
        r"engineer)s?\s+to\s+(?:call|contact|reach|follow|get\s+in\s+touch|look|review|ring)|"
        r"(?:rais|open|logg|creat|fil)(?:ed|ing)\s+(?:a|an|the|your)?\s*(?:[\w-]+\s+)?"
        rf"(?:ticket|case)\s+(?:with|for|to)\s+{_TARGET}|"
        r"(?:transferr?(?:ed|ing|s)?|hand(?:ed|ing|s)?|pass(?:ed|ing|es)?|forward(?:ed|ing|s)?|"
        r"connect(?:ed|ing|s)?|rout(?:e|ed|es|ing)|refer(?:red|ring|s)?|loop(?:ed|ing)\s+in|"
        r"flag(?:ged|ging|s)?|"
        r"put(?:ting)?\s+you\s+through|assign(?:ed|ing)?)"
        rf"(?:\s+[\w'-]+){{0,4}}?\s+(?:over\s+)?(?:on\s+)?(?:to|with|for)\s+{_TARGET}",
        nouns=rf"ticket|case|(?:transfer|handoff|hand-off|handover)\s+to\s+{_TARGET}|escalation|"
        r"(?:specialist|supervisor|manager|(?:human|live|senior)\s+agent|agent|colleague|"
        r"representative)s?|someone\s+from\s+(?:our|the)\s+[\w-]+(?:\s+team)?",
        noun_verbs=r"(?:rais|open|logg|creat|fil)ed\s+(?:\w+\s+){0,2}?(?:with|for|to)\s+"
        + _TARGET
        + r"|complete|done|underway|in\s+progress|confirmed|arranged|assigned|notified|alerted|"
        r"looped\s+in|be\s+with\s+you|join(?:ing)?\s+(?:you|this\s+chat|the\s+chat|the\s+call)|"
        r"contact(?:ing)?\s+you|call(?:ing)?\s+you(?:\s+back)?|be\s+in\s+touch|"
        r"reach(?:ing)?\s+out|get(?:ting)?\s+back\s+to\s+you|follow(?:ing)?\s+up",
        stems=r"escalat|handoff|hand-off|handover|person|people|human|agent|specialist|"
        r"supervisor|manager|colleague|representative|rep\b|team|department|expert|someone|tier|"
        r"staff|advis|lead",
    ),
}

_RECEIVE = (
    r"(?:you'll|you\s+will|you\s+should|you're\s+going\s+to)\s+(?:\w+\s+)?(?:receive|get|see)"
)
# Words between a noun and its verb: never a conjunction, which starts another
# statement ("your order and issued a refund"); between a verb and its noun, never a
# preposition ("issued for this order").
_AUX = r"(?:has|have|had|was|were|is|are|'s)"
_GAP_BEFORE = (
    r"(?:[^\w.!?;\n]+(?!(?:and|or|but|then|so|while)\b)[\w$#@'/-]+(?:[.,]\d+)*){0,7}?"
    r"[^\w.!?;\n]+"
)
_GAP_AFTER = (
    r"(?:\s+(?!(?:for|to|from|with|of|on|in|at|by|about|and|or|but)\b)[\w$#'-]+"
    r"(?:[.,]\d+)*){0,3}?\s+"
)


def stems_regex(words: Words) -> re.Pattern[str]:
    """The plain search that any mention of the action matches too."""
    return re.compile(words.stems, re.IGNORECASE)


def mention_regex(words: Words) -> regex.Pattern[str]:
    """One regex for every mention of the action; each match has a ``v`` group and,
    when a noun is part of it, an ``n`` group. The noun comes first: "refund" in "your
    refund has been issued" is the noun of "issued", not a verb of its own."""
    nouns = rf"(?P<n>\b(?:{words.nouns})\b)(?!\s+{_NOUN_FOLLOWERS})"
    return regex.compile(
        rf"{nouns}{_GAP_BEFORE}(?P<v>\b(?:{words.noun_verbs})\b)"
        # "was approved and sent": a second verb of the same statement.
        rf"|{nouns}\s+{_AUX}\s+(?:been\s+)?\w+\s+and\s+(?P<v>\b(?:{words.noun_verbs})\b)"
        rf"|(?P<v>\b(?:{words.verbs}))\b"
        rf"|(?P<v>\b(?:{words.noun_verbs}|{_RECEIVE}))\b{_GAP_AFTER}{nouns}",
        regex.IGNORECASE,
    )
