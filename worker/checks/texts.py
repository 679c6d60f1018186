"""Which texts of a turn a check reads at each stage, named by their field path."""

from __future__ import annotations

from collections.abc import Iterator

from turncheck.worker.turns.structs import Turn


def stage_texts(turn: Turn, stage: str, *, with_rounds: bool) -> Iterator[tuple[str, str]]:
    """Yield ``(field, text)`` pairs.

    ``output`` is the answer and, when ``with_rounds``, the text the model wrote
    beside its tool calls (customers see it too). ``input`` is what the caller
    wrote in this request: its messages, transcript and prompt variables.
    """
    if stage == "output":
        yield "output.text", turn.output.text
        if with_rounds:
            for i, round_ in enumerate(turn.rounds):
                if round_.text:
                    yield f"rounds[{i}].text", round_.text
        return
    for i, message in enumerate(turn.input.messages):
        yield f"input.messages[{i}].content", message.content
    if turn.input.transcript:
        yield "input.transcript", turn.input.transcript
    for name, value in turn.input.prompt_variables.items():
        if isinstance(value, str) and value:
            yield f"input.prompt_variables.{name}", value
