"""Keep the turn's text out of a judge's reason.

A judge asked for "one sentence" sometimes quotes the answer it judged, and its reason
is stored and served (``check_results.reason``, the API, ``turncheck results``), where
no text of a turn may be. Before a judged result is built, every run of
``MIN_COPIED_CHARS`` or more characters that the reason shares with the texts the judge
was shown is replaced with ``PLACEHOLDER``; the judge's own words around it stay.

The judge was shown the turn only in its request's user message (``worker/judge/prompts.py``:
the system message holds only what the check's author wrote), so that message is the
source. The reason is compared case-sensitively, with whitespace collapsed as the reply
reader collapses it (``replies._reason``), and also with the prompt's escape of closing
tags (``<\\/``) undone, in case the judge undid it.

A character is copied when some window of ``MIN_COPIED_CHARS`` characters around it
occurs in the source: the union of such windows is exactly the union of all shared runs
of that length or more. Windows are looked up with ``str``'s own search; a window is
looked up only when the aligned block of half its length inside it occurs at all, so a
reason that quotes nothing costs a few searches per block of it.
"""

from __future__ import annotations

import asyncio
import dataclasses

from turncheck.worker.checks.result import Outcome

MIN_COPIED_CHARS = 12
PLACEHOLDER = "[quoted]"
_BLOCK = MIN_COPIED_CHARS // 2
"""Every window of ``MIN_COPIED_CHARS`` holds a whole block of this length aligned on it."""
IN_THREAD_CHARS = 100_000
"""Past this many characters shown (a search of 1 MB takes about a millisecond, a reason
up to a few hundred), the reason is redacted in a thread, off the event loop."""


async def unquoted(outcome: Outcome, shown: str) -> Outcome:
    """``without_quotes``, in a thread when ``shown`` is long enough to hold the loop."""
    if len(shown) > IN_THREAD_CHARS and outcome.reason is not None:
        return await asyncio.to_thread(without_quotes, outcome, shown)
    return without_quotes(outcome, shown)


def without_quotes(outcome: Outcome, shown: str) -> Outcome:
    """``outcome`` with what its reason copied from ``shown`` replaced by ``PLACEHOLDER``."""
    if outcome.reason is None:
        return outcome
    redacted = redact(outcome.reason, shown)
    return outcome if redacted == outcome.reason else dataclasses.replace(outcome, reason=redacted)


def redact(reason: str, shown: str) -> str:
    """``reason`` with each run of ``MIN_COPIED_CHARS`` or more characters that also occurs
    in ``shown`` (whitespace collapsed) replaced by ``PLACEHOLDER``."""
    if len(reason) < MIN_COPIED_CHARS:
        return reason
    collapsed = " ".join(shown.split())
    sources = (collapsed, collapsed.replace("<\\/", "</"))
    parts: list[str] = []
    done = 0
    for start, end in _copied(reason, sources):
        parts += [reason[done:start], PLACEHOLDER]
        done = end
    parts.append(reason[done:])
    return "".join(parts)


def _copied(reason: str, sources: tuple[str, ...]) -> list[tuple[int, int]]:
    """The spans of ``reason`` covered by windows found in a source, merged, in order."""

    def found(text: str) -> bool:
        return any(text in source for source in sources)

    blocks = {
        at for at in range(0, len(reason) - _BLOCK + 1, _BLOCK) if found(reason[at : at + _BLOCK])
    }
    spans: list[tuple[int, int]] = []
    for start in range(len(reason) - MIN_COPIED_CHARS + 1):
        if -(-start // _BLOCK) * _BLOCK not in blocks:
            continue
        end = start + MIN_COPIED_CHARS
        if not found(reason[start:end]):
            continue
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans
