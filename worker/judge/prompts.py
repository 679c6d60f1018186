"""The judge's prompt: the jinja2 templates that put a check and a turn into words.

A template's context is the check's own words (rule or questions) and what
``worker.judge.views`` takes from the turn, nothing else: no template, shipped or
overridden, can show the judge more of the turn than the views give it.

A template defines two blocks, ``system`` and ``user``. ``system`` holds only
what the check's author wrote (rule, questions, reply format), its ``@@{name}``
placeholders turned into references (``variables``); ``user`` holds the turn's
texts, the values of those variables among them. A template that cannot be read,
parsed or rendered is refused when the check is compiled: ``PromptError``, which the
check loader turns into a ``CheckDefinitionError``. Whether an overridden template
mentions JSON is noted (``Prompt.mentions_json``): OpenAI's JSON mode refuses messages
without the word, which ``judge.config.require_judges`` checks against the judges it
may be sent to.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path

import jinja2
import msgspec
from jinja2 import nodes

from turncheck.schemas.judged import JudgeCheck, RubricCheck
from turncheck.worker.errors import PromptError
from turncheck.worker.judge import variables
from turncheck.worker.judge.criteria import CRITERIA, CRITERION_SHOWS, Rule
from turncheck.worker.judge.views import FIELD_VIEWS, JudgeShows, judge_view
from turncheck.worker.turns.structs import (
    Agent,
    HistoryMessage,
    InputMessage,
    Instant,
    KnowledgePassage,
    Output,
    Round,
    ToolCall,
    ToolResult,
    Turn,
    TurnInput,
)

JUDGE_TEMPLATES = {"output": "judge_output.j2", "input": "judge_input.j2"}
RUBRIC_TEMPLATE = "rubric.j2"
BLOCKS = ("system", "user")

# Section tags the shipped templates put around the turn's texts.
_TAGS = (
    "customer_message|answer|caller_text|text|conversation|message|sources|source"
    "|tool_results|tool_result|instructions|input|prompt_variables|variable"
)
_CLOSING_TAG = re.compile(rf"</(?=(?:{_TAGS})\b)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    type: str
    text: str
    answers: tuple[str, ...]
    """Allowed answers, exactly; a scale's run worst to best."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """A check's compiled prompt: ``render(turn)`` gives the system and user parts."""

    template: jinja2.Template
    source: str
    fixed: Mapping[str, object]
    view: Callable[[Turn], dict[str, object]]
    overridden: bool = False
    """The check's own template, not a shipped one."""
    mentions_json: bool = True
    """Every rendered prompt holds the word JSON (any case), as OpenAI's JSON mode requires."""
    system_line: int | None = None
    """The line of ``{% block system %}`` in an overridden template."""
    variables: tuple[str, ...] = ()
    """The prompt variables the check's texts name; a turn must hold each
    (``variables.unusable``)."""

    def render(self, turn: Turn) -> tuple[str, str]:
        """Raises ``PromptError`` naming the template and the error's type, not the text."""
        try:
            return self.parts(turn)
        except Exception as exc:  # a template may raise anything; the caller records one error
            raise PromptError(f"{self.source}: cannot render: {type(exc).__name__}") from None

    def parts(self, turn: Turn) -> tuple[str, str]:
        context = self.template.new_context({**self.fixed, **self.view(turn)})
        system, user = ("".join(self.template.blocks[b](context)).strip() for b in BLOCKS)
        return system, user


def judge_prompt(definition: JudgeCheck, base_dir: Path | None = None) -> Prompt:
    shows = JudgeShows()
    if definition.criteria is not None:
        if definition.stage != "output":
            raise PromptError(
                "built-in criteria judge the answer; an input check needs its own 'rule'",
                field="criteria",
            )
        rule = CRITERIA[definition.criteria]
        shows = CRITERION_SHOWS.get(definition.criteria, shows)
    else:
        assert definition.rule is not None  # the schema holds exactly one of the two
        rule = Rule(tuple(definition.rule.good), tuple(definition.rule.bad))
    if definition.context is not None:
        shows = JudgeShows(definition.context.exchanges, definition.context.tool_results)
    wanted = variables.names((*rule.good, *rule.bad))
    written = Rule(
        tuple(map(variables.reference, rule.good)), tuple(map(variables.reference, rule.bad))
    )
    stage = definition.stage

    def view(turn: Turn) -> dict[str, object]:
        shown = variables.shown(turn, wanted)
        return {**judge_view(turn, stage, shows), "prompt_variables": shown}

    fixed = {"rule": written, "criterion": definition.criteria, "exchanges": shows.exchanges}
    return _compile(definition, base_dir, JUDGE_TEMPLATES[stage], fixed, view, wanted)


def rubric_prompt(definition: RubricCheck, base_dir: Path | None = None) -> Prompt:
    fields = tuple(dict.fromkeys(definition.fields))
    questions = [
        Question(q.id, q.type, variables.reference(q.text), tuple(q.answers))
        for q in definition.questions
    ]
    wanted = variables.names(q.text for q in definition.questions)

    def view(turn: Turn) -> dict[str, object]:
        shown = variables.shown(turn, wanted)
        return {**{field: FIELD_VIEWS[field](turn) for field in fields}, "prompt_variables": shown}

    fixed = {
        "fields": list(fields),
        "questions": questions,
        "verdict_question": definition.verdict.question,
    }
    return _compile(definition, base_dir, RUBRIC_TEMPLATE, fixed, view, wanted)


def _compile(
    definition: JudgeCheck | RubricCheck,
    base_dir: Path | None,
    shipped: str,
    fixed: Mapping[str, object],
    view: Callable[[Turn], dict[str, object]],
    wanted: tuple[str, ...],
) -> Prompt:
    env = environment()
    system_line: int | None = None
    if definition.template is None:
        source, template = shipped, env.get_template(shipped)
    else:
        source, template, text = _load_override(env, definition, base_dir)
        system_line = _block_line(env, text, "system")
    prompt = Prompt(template, source, fixed, view)

    def refuse(line: int | None, message: str) -> PromptError:
        where = f"{source}:{line}" if line is not None else source
        return PromptError(f"{where}: {message}")

    missing = [b for b in BLOCKS if b not in template.blocks]
    if missing:
        raise refuse(None, f"the template must define the blocks {BLOCKS}; missing {missing}")
    mentions_json = True
    for turn in _probe_turns():
        try:
            system, user = prompt.parts(turn)
        except Exception as exc:  # a template may raise anything; refuse it now, not per turn
            detail = f"{type(exc).__name__}: {exc}"
            raise refuse(getattr(exc, "lineno", None), f"cannot render: {detail}") from None
        # The probe turns hold no "json", so the word can only come from the template.
        mentions_json = mentions_json and "json" in f"{system}\n{user}".lower()
    return Prompt(
        template,
        source,
        fixed,
        view,
        overridden=definition.template is not None,
        mentions_json=mentions_json,
        system_line=system_line,
        variables=wanted,
    )


def _load_override(
    env: jinja2.Environment, definition: JudgeCheck | RubricCheck, base_dir: Path | None
) -> tuple[str, jinja2.Template, str]:
    assert definition.template is not None
    path = Path(definition.template)
    if not path.is_absolute():
        path = (base_dir or Path.cwd()) / path
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PromptError(f"{path}: cannot read the template: {exc}") from None
    try:
        return str(path), env.from_string(text), text
    except jinja2.TemplateSyntaxError as exc:
        raise PromptError(f"{path}:{exc.lineno}: not a valid template: {exc.message}") from None


def _block_line(env: jinja2.Environment, text: str, name: str) -> int | None:
    """The line a template's block ``name`` starts on; the text has parsed already."""
    for block in env.parse(text).find_all(nodes.Block):
        if block.name == name:
            return int(block.lineno)
    return None


@functools.cache
def environment() -> jinja2.Environment:
    """The shipped templates; autoescape off because a prompt is not HTML."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("turncheck.worker.judge", "templates"),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters["quoted"] = quoted
    env.filters["json"] = _json
    return env


def quoted(text: object) -> str:
    """A turn's text as data: it cannot close the section it stands in."""
    return _CLOSING_TAG.sub("<\\\\/", str(text))


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


@functools.cache
def _probe_turns() -> tuple[Turn, ...]:
    """A full and an empty turn: every branch a template takes on real turns."""
    base = Turn(
        schema_="turn.stored/v1",
        turn_id="probe",
        agent=Agent(id="probe", version=1),
        created_at=Instant(2026, 1, 1, tzinfo=UTC),
        output=Output(text="probe answer"),
    )
    full = msgspec.structs.replace(
        base,
        input=TurnInput(
            messages=[InputMessage(role="user", content="probe")],
            prompt_variables={"probe": "probe"},
            transcript="probe",
        ),
        instructions="probe",
        knowledge=[KnowledgePassage(source="probe", content="probe")],
        history=[
            HistoryMessage(role="user", content="probe"),
            HistoryMessage(role="assistant", name="probe", content="probe"),
        ],
        rounds=[
            Round(
                tool_calls=[ToolCall(id="c1", name="probe"), ToolCall(id="c2", name="probe")],
                tool_results=[ToolResult(call_id="c1", content={"probe": 1})],
            )
        ],
    )
    return full, base
