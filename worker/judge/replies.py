"""Read a judge's reply, strictly: one JSON object of the asked shape, or ``errored``.

The reply text is one JSON object, with only whitespace around it or inside one
fenced block (```json ... ```). Keys are exactly the asked ones, each once;
values have the asked types. Anything else, prose included, is ``UNREADABLE``:
a reply that does not parse is an error, never a pass.

A rubric answer's probability comes from the reply's token log-probabilities:
the token that covers the first character of the answer's JSON string (or else
the first token that starts inside it). It is the probability of that first
token only, which is where a model chooses between the allowed answers.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from turncheck.schemas.judged import RubricCheck
from turncheck.worker.checks.result import Outcome, Verdict
from turncheck.worker.judge.types import JudgeReply, TokenLogprob

UNREADABLE = Outcome.errored("The judge's reply did not parse.")
REASON_MAX_CHARS = 500
JUDGE_KEYS = frozenset({"verdict", "score", "reason"})
RUBRIC_KEYS = frozenset({"answers", "reason"})
VERDICTS = {"pass": Verdict.PASSED, "fail": Verdict.FAILED}


@dataclass(frozen=True, slots=True)
class RubricAnswer:
    question: str
    answer: str
    probability: float | None


@dataclass(frozen=True, slots=True)
class JudgedDecision:
    outcome: Outcome
    answers: tuple[RubricAnswer, ...] = ()


@dataclass(frozen=True, slots=True)
class RubricForm:
    """What a rubric reply must hold: an allowed answer for every question."""

    allowed: Mapping[str, tuple[str, ...]]
    """Question id to its allowed answers, in question order; a scale's worst to best."""
    verdict_question: str
    passing: frozenset[str]
    verdict_is_scale: bool

    def schema(self) -> dict[str, object]:
        """The JSON schema of a rubric reply, for structured output."""
        answers = {
            question: {"type": "string", "enum": list(allowed)}
            for question, allowed in self.allowed.items()
        }
        return _object_schema({"answers": _object_schema(answers), "reason": {"type": "string"}})

    @classmethod
    def of(cls, definition: RubricCheck) -> RubricForm:
        by_id = {q.id: q for q in definition.questions}
        return cls(
            allowed={q.id: tuple(q.answers) for q in definition.questions},
            verdict_question=definition.verdict.question,
            passing=frozenset(definition.verdict.passing),
            verdict_is_scale=by_id[definition.verdict.question].type == "scale",
        )


def judge_schema() -> dict[str, object]:
    """The JSON schema of a judge reply, for structured output. The score's range is checked
    on reading: strict schemas do not bound numbers everywhere."""
    return _object_schema(
        {
            "verdict": {"type": "string", "enum": list(VERDICTS)},
            "score": {"type": "number"},
            "reason": {"type": "string"},
        }
    )


def _object_schema(properties: Mapping[str, object]) -> dict[str, object]:
    # Strict structured output wants every key required and no other allowed.
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(properties),
        "additionalProperties": False,
    }


def read_judge(reply: JudgeReply) -> JudgedDecision:
    try:
        doc = _document(reply.text)
    except _Unreadable:
        return JudgedDecision(UNREADABLE)
    if doc.keys() != JUDGE_KEYS:
        return JudgedDecision(UNREADABLE)
    verdict, score, reason = (doc[k].value for k in ("verdict", "score", "reason"))
    if not isinstance(verdict, str) or verdict not in VERDICTS:
        return JudgedDecision(UNREADABLE)
    if isinstance(score, bool) or not isinstance(score, int | float):
        return JudgedDecision(UNREADABLE)
    if not (math.isfinite(score) and 0 <= score <= 1):
        return JudgedDecision(UNREADABLE)
    sentence = _reason(reason)
    if sentence is None:
        return JudgedDecision(UNREADABLE)
    return JudgedDecision(Outcome(VERDICTS[verdict], sentence, score=float(score)))


def read_rubric(form: RubricForm, reply: JudgeReply) -> JudgedDecision:
    try:
        doc = _document(reply.text)
    except _Unreadable:
        return JudgedDecision(UNREADABLE)
    if doc.keys() != RUBRIC_KEYS:
        return JudgedDecision(UNREADABLE)
    given, sentence = doc["answers"].value, _reason(doc["reason"].value)
    if sentence is None or not isinstance(given, dict) or given.keys() != form.allowed.keys():
        return JudgedDecision(UNREADABLE)
    answers = []
    for question, allowed in form.allowed.items():
        located = given[question]
        if not isinstance(located.value, str) or located.value not in allowed:
            return JudgedDecision(UNREADABLE)
        probability = _probability(reply.logprobs, located)
        answers.append(RubricAnswer(question, located.value, probability))
    chosen = given[form.verdict_question].value
    passed = chosen in form.passing
    if form.verdict_is_scale:
        labels = form.allowed[form.verdict_question]
        score = labels.index(chosen) / (len(labels) - 1)
    else:
        score = 1.0 if passed else 0.0
    outcome = Outcome(Verdict.PASSED if passed else Verdict.FAILED, sentence, score=score)
    return JudgedDecision(outcome, tuple(answers))


def _reason(value: object) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    sentence = " ".join(value.split())
    if len(sentence) > REASON_MAX_CHARS:
        sentence = sentence[: REASON_MAX_CHARS - 1].rstrip() + "…"
    return sentence


def _probability(logprobs: tuple[TokenLogprob, ...] | None, value: _Located) -> float | None:
    """The probability of the token that starts a JSON string value, or None."""
    if logprobs is None:
        return None
    first, stop = value.start + 1, value.end - 1  # inside the quotes
    token = next((t for t in logprobs if t.offset <= first < t.offset + len(t.token)), None)
    if token is None:
        inside = [t for t in logprobs if t.token and first <= t.offset < stop]
        token = min(inside, key=lambda t: t.offset, default=None)
    if token is None:
        return None
    return round(min(math.exp(token.logprob), 1.0), 4)


# A JSON reader that keeps where each value starts in the reply text, which the
# standard parser does not tell; values other than objects go to the standard one.


class _Unreadable(Exception):
    pass


@dataclass(frozen=True, slots=True)
class _Located:
    value: object
    """A JSON value; an object is a ``dict[str, _Located]``."""
    start: int
    end: int


_FENCED = re.compile(r"\s*```(?:json)?[ \t]*\r?\n(.*)```\s*", re.DOTALL)
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_MAX_DEPTH = 2


def _reject_constant(name: str) -> object:
    raise _Unreadable(name)


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _document(text: str) -> dict[str, _Located]:
    fenced = _FENCED.fullmatch(text)
    start, end = (fenced.start(1), fenced.end(1)) if fenced else (0, len(text))
    located = _value(text, _skip(text, start), depth=1)
    if not isinstance(located.value, dict) or _skip(text, located.end) != end:
        raise _Unreadable("not one object")
    return located.value


def _skip(text: str, i: int) -> int:
    match = _WHITESPACE.match(text, i)
    return match.end() if match else i


def _value(text: str, i: int, depth: int) -> _Located:
    if text.startswith("{", i):
        return _object(text, i, depth)
    try:
        value, end = _DECODER.raw_decode(text, i)
    except (ValueError, RecursionError):
        raise _Unreadable("not JSON") from None
    return _Located(value, i, end)


def _object(text: str, start: int, depth: int) -> _Located:
    if depth > _MAX_DEPTH:
        raise _Unreadable("too deep")
    items: dict[str, _Located] = {}
    i = _skip(text, start + 1)
    if text.startswith("}", i):
        return _Located(items, start, i + 1)
    while True:
        if not text.startswith('"', i):
            raise _Unreadable("expected a key")
        key_at = _value(text, i, depth)
        key, i = key_at.value, key_at.end
        if not isinstance(key, str) or key in items:
            raise _Unreadable("duplicate key")
        i = _skip(text, i)
        if not text.startswith(":", i):
            raise _Unreadable("expected a colon")
        items[key] = value = _value(text, _skip(text, i + 1), depth + 1)
        i = _skip(text, value.end)
        if text.startswith(",", i):
            i = _skip(text, i + 1)
        elif text.startswith("}", i):
            return _Located(items, start, i + 1)
        else:
            raise _Unreadable("expected a comma or a brace")
