"""``@@{name}`` placeholders in a judged check's own texts (a rule's good and bad
items, a rubric's question texts), after seed 000's AI review.

A placeholder names one of the turn's ``input.prompt_variables``, never an
environment variable: the worker's environment holds its database URL, broker
and judge credentials, and a check author's text is sent to a judge provider.
A name is letters, digits, ``_``, ``-`` and ``.``, starting with a letter or ``_``;
any other ``@@{`` (``@@{}``, ``@@{a b}``, one never closed) is refused at load.
"""

from __future__ import annotations

import re

PLACEHOLDER = re.compile(r"@@\{([A-Za-z_][A-Za-z0-9_.-]{0,63})\}")
OPENING = "@@{"


def names_in(text: str) -> tuple[str, ...]:
    """The variables ``text`` names, each once, in order of first use."""
    return tuple(dict.fromkeys(PLACEHOLDER.findall(text)))


def well_formed(text: str) -> str:
    """``text`` unchanged; raises ``ValueError`` if it holds a malformed placeholder."""
    if OPENING in PLACEHOLDER.sub("", text):
        raise ValueError(
            "a placeholder is written @@{name}: a prompt variable's name of letters, digits,"
            " '_', '-' and '.', starting with a letter or '_'"
        )
    return text
