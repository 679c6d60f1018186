"""Written disguises of a number or an address, undone before the detectors read.

``undisguise`` returns a ``MappedText`` whose ``span`` leads back to the text it
was given. It undoes:

* HTML character references that stand for a character of an address or a
  number: ASCII letters and digits and ``@ . : / - _ + %`` (``&#64;``,
  ``&#x40;``, ``&commat;``, ``&period;``, ``&#46;``, ``&#52;``); other
  references (``&amp;``, ``&lt;``, ``&nbsp;``) stay as written. The decoding is
  ``markup``'s own (``markup.decode_reference``);
* defanged addresses and links: ``[.]``, ``(.)``, ``{.}`` between two letters or
  digits (``192[.]168[.]0[.]1``, ``10(.)0(.)0(.)1``), ``[dot]``, ``(dot)``,
  ``{dot}`` between two digits (``133[dot]151[dot]203[dot]12``), ``[@]``, ``(@)``, ``{@}``
  (``name[@]example[.]com``), ``[:]`` and ``[://]`` (``https[:]//``), and
  ``hxxp``/``hxxps`` before ``://`` (``hxxps://``);
* a hard wrap at a fixed column (an SMS gateway or a mail client breaking a long
  line every N characters): when every line but the last is N characters long
  (N >= 16; three lines or more, or two when N is a column such tools use: 32,
  40, 60, 64, 67, 70, 72, 76, 80, 153, 160) and the last one no longer, a line
  break between two characters that are not spaces is taken out, so a card or a
  key cut mid-token reads whole. A text with a PEM block (``-----BEGIN``) keeps
  its lines: they are 64 characters by design;
* on the ``sms`` channel, a gateway's wrap at any column: a single line break
  (not a blank line between paragraphs) with no space on one side of it is
  inside a token the gateway cut (``158.239.44\n.168``, ``(01\n) 29248 775``)
  and is taken out; one with a space beside it is taken out too, the space
  staying as the separator (``08-952 889 \n08``). An SMS is one stream of text:
  its writer does not break a line in the middle of a number.

Not undone: ``[dot]`` between letters and ``[at]`` (the email detector reads those
itself, as it reads an address's words),
``h**p``, wraps at varying widths, percent-encoding outside a URL.

Cost: a text with no ``&``, no bracket around ``.``/``@``/``:``, no ``hxxp``
and no line break pays a few substring searches.
"""

from __future__ import annotations

import re
import string

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.markup import REFERENCE, decode_reference
from turncheck.worker.checks.textmap import Edit, MappedText, edited

MIN_WRAP_COLUMN = 16
WRAP_COLUMNS = frozenset({32, 40, 60, 64, 67, 70, 72, 76, 80, 153, 160})

_DECODED = frozenset(string.ascii_letters + string.digits + "@.:/-_+%")
_DISGUISE = re.compile(
    rf"(?P<reference>{REFERENCE})"
    r"|(?<=[A-Za-z0-9])(?P<bracketed>\[[.@:]\]|\([.@]\)|\{[.@]\})(?=[A-Za-z0-9/])"
    # Between two digits a written-out dot is a defanged IP address's; between letters
    # the email detector reads it itself, with the at.
    r"|(?<=[0-9])(?P<dot>\[dot\]|\(dot\)|\{dot\})(?=[0-9])"
    r"|(?P<scheme>\[://\])"
    r"|(?P<hxxp>\bh[xX]{2}p)(?=s?(?:://|\[:\]//|\[://\]))",
    re.IGNORECASE,
)
_NEWLINE = re.compile(r"\r?\n")
# A single line break: not one of a blank line's (a paragraph the writer made).
_SINGLE_BREAK = re.compile(r"(?<!\n)(?<!\n\r)\r?\n(?!\r?\n)")


def may_be_disguised(text: str) -> bool:
    """Whether ``text`` may hold a disguise ``undisguise`` undoes; if not, it returns it."""
    return (
        "&" in text
        or "\n" in text
        or any(sign in text for sign in (".]", ".)", ".}", "@]", "@)", "@}", ":]"))
        or "xxp" in text
        or "XXp" in text
        or any(sign in text for sign in ("t]", "t)", "t}", "T]", "T)", "T}"))  # [dot]
    )


def undisguise(text: str, budget: Budget, *, sms: bool = False) -> MappedText:
    """``text`` with its disguises undone (see the module); ``span`` maps back into it.
    ``sms``: the text came over the SMS channel, whose gateways wrap at any column."""
    if not may_be_disguised(text):
        return MappedText(text)
    edits: list[Edit] = []
    if "&" in text or "[" in text or "(" in text or "{" in text or "xp" in text.lower():
        for match in scan.finditer(_DISGUISE, text, budget):
            edit = _edit(match)
            if edit is not None:
                edits.append(edit)
    breaks = _sms_breaks(text, budget) if sms else _wrap_breaks(text, budget)
    edits.extend((at, end, "", ()) for at, end in breaks)
    edits.sort(key=lambda edit: edit[0])
    return edited(text, edits)


def _edit(match: re.Match[str]) -> Edit | None:
    start, end = match.span()
    kind = match.lastgroup
    if kind == "reference":
        decoded = decode_reference(match.group())
        if len(decoded) != 1 or decoded not in _DECODED:
            return None
        return start, end, decoded, ()
    if kind == "bracketed":
        return start, end, match.group()[1], (start + 1,)
    if kind == "dot":
        return start, end, ".", (start + 1,)
    if kind == "scheme":
        return start, end, "://", (start + 1, start + 2, start + 3)
    return start, end, "http", (start, start + 1, start + 2, start + 3)


def _wrap_breaks(text: str, budget: Budget) -> list[tuple[int, int]]:
    """The line breaks of a hard wrap to take out, as ``(start, end)``."""
    if "\n" not in text or "-----BEGIN" in text:
        return []
    lines = text.split("\n")
    widths = {len(line.removesuffix("\r")) for line in lines[:-1]}
    if len(widths) != 1:
        return []
    [column] = widths
    if column < MIN_WRAP_COLUMN or len(lines[-1]) > column or not lines[-1]:
        return []
    if len(lines) == 2 and column not in WRAP_COLUMNS:
        return []
    breaks = []
    for match in scan.finditer(_NEWLINE, text, budget):
        start, end = match.span()
        if start and end < len(text) and not text[start - 1].isspace() and not text[end].isspace():
            breaks.append((start, end))
    return breaks


def _sms_breaks(text: str, budget: Budget) -> list[tuple[int, int]]:
    """The single line breaks of an SMS to take out, as ``(start, end)``: each one a
    gateway made (see the module), so the token it cut reads whole."""
    if "\n" not in text:
        return []
    return [match.span() for match in scan.finditer(_SINGLE_BREAK, text, budget)]
