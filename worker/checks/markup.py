"""The words a reader sees: markdown and HTML markup taken out, offsets kept.

Models answer in markdown and sometimes in HTML, and a copied sentence or a
banned phrase must not hide behind it: ``**Acme** Support``, ``<b>Acme</b>
Support`` and ``Acme Support™`` read as "Acme Support". ``plain`` returns a
``MappedText`` whose ``span`` leads back to offsets of the text it was given,
so it composes with ``textmap``'s rewrites (apply it before or after them and
map back through each in turn).

Taken out (the rest of the text stays as it is):

* HTML tags and comments; a tag that breaks a line or a block (``<br>``,
  ``<p>``, ``<li>``, ...) becomes one space, an inline one (``<b>``, ``<a>``,
  ``<span>``, ...) nothing, so ``Acme<br>Support`` stays two words;
* HTML character references, decoded (``&amp;`` is ``&``, ``&nbsp;`` a space);
* emphasis and code delimiters (``*``, ``_``, ``~~``, backticks) at the edge of
  a word: ``**Acme**``, ``_Acme_``, ```Acme```, and asterisks between letters
  (``Ac**me**``); other delimiters inside a word (``snake_case``, ``2*3``) stay;
* the target of a markdown link or image, ``](https://...)``: its URL is not
  text the reader sees as words;
* the number of an ordered list item at the start of a line or after a tag
  that breaks one (``1.``, ``<br>2)``) and the info string of a code fence (```` ```python ````);
* the trademark, registered and copyright signs ™ ® © ℠.

Most texts hold none of this: one C-speed search for the characters that can
start markup (``has_markup``) spares them all the work, and ``plain`` returns
the text itself. A text that has such characters costs one regex scan, bounded
by the turn's budget like every scan (``scan.finditer``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.textmap import INVISIBLE, MappedText

SIGNS = "\u2122\u00ae\u00a9\u2120"  # ™ ® © ℠

# Tags that set words apart when rendered; any other tag (b, i, em, a, span, code, ...)
# sits inside a line, so it joins what stands on either side of it.
_BLOCK_TAGS = frozenset(
    {
        *("address", "article", "aside", "blockquote", "br", "dd", "details", "div", "dl"),
        *("dt", "fieldset", "figcaption", "figure", "footer", "form", "header", "hr", "li"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "main", "nav", "ol", "p", "pre", "section"),
        *("summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul"),
    }
)

# An HTML character reference: decimal, hexadecimal or named (``&#64;``, ``&#x40;``, ``&commat;``).
REFERENCE = r"&(?:\#[0-9]{1,7}|\#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"


def decode_reference(reference: str) -> str:
    """What the character reference ``reference`` stands for (itself if it names none)."""
    return html.unescape(reference)


# What every kind of markup but a list number starts with: a substring search for each
# is a fraction of one regex scan for the set.
_STARTS = ("<", "&", "*", "_", "`", "~~", "]", *SIGNS)
# A list number after a new line: a pattern led by a literal gets the engine's fast scan.
_ITEM_AFTER_LINE = re.compile(r"\n[ \t>]*[0-9]{1,9}[.)][ \t]")

# What starts a line: a code fence's info string, a list number. At the text's start it
# is matched alone; after a new line, as _MARKUP's "line".
_LINE_START = r"[ \t]{0,3}(?:```|~~~)[^\n`]*|[ \t>]*[0-9]{1,9}[.)](?=[ \t])"
_FIRST_LINE = re.compile(_LINE_START)
# The lookahead of every character markup starts with rejects most positions at once,
# where trying each alternative would take ten times as long. Emphasis is any run of
# delimiters here; whether it opens or closes is judged in Python, on the few runs found.
_MARKUP = re.compile(
    r"""
    (?=[<&\]\n*_`~™®©℠])
    (?:
    (?P<comment><!--.{0,2000}?-->)
  | (?P<item_after_tag><(?:br|/?li|/?p|/?div)\b[^<>]{0,2000}>[ \t]*[0-9]{1,9}[.)](?=[ \t]))
  | (?P<tag></?(?P<name>[A-Za-z][A-Za-z0-9-]{0,31})(?:\s[^<>]{0,2000})?/?>)
  | (?P<entity>"""
    + REFERENCE
    + r""")
  | (?P<target>\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"\n]*")?\))
  | (?P<line>\n(?:"""
    + _LINE_START
    + r"""))
  | (?P<sign>[™®©℠])
  | (?P<emphasis>(?:[*_`]|~~)+)
    )
    """,
    re.VERBOSE | re.DOTALL,
)


def has_markup(text: str) -> bool:
    """Whether ``text`` holds a character that can start markup; if not, ``plain`` is
    the text itself. A plain-function gate for prefilters."""
    return (
        any(start in text for start in _STARTS)
        or _FIRST_LINE.match(text) is not None
        or _ITEM_AFTER_LINE.search(text) is not None
    )


def plain(text: str, budget: Budget) -> MappedText:
    """``text`` with its markup taken out (see the module); ``span`` maps back into ``text``."""
    if not has_markup(text):
        return MappedText(text)
    pieces: list[str] = []
    breaks: list[int] = []
    shifts: list[int] = []
    done = 0  # end of what was copied from text so far
    shift = 0  # original offset minus plain offset, from the last edit on
    for start, end, replacement in _edits(text, budget):
        pieces.append(text[done:start])
        pieces.append(replacement)
        done = end
        at = start - shift  # where the replacement begins in the plain text
        # A replacement's characters all point at the start of what they replace;
        # what follows it points at the end.
        for extra in range(1, len(replacement)):
            _record(breaks, shifts, at + extra, start - at - extra)
        shift = end - at - len(replacement)
        _record(breaks, shifts, at + len(replacement), shift)
    if not pieces:
        return MappedText(text)
    pieces.append(text[done:])
    return MappedText("".join(pieces), tuple(breaks), tuple(shifts))


def _edits(text: str, budget: Budget) -> Iterator[tuple[int, int, str]]:
    """``(start, end, replacement)`` of each piece of markup, in order."""
    first = _FIRST_LINE.match(text)
    pos = 0
    if first is not None and first.end() > 0:
        yield 0, first.end(), " " if first.group().lstrip().startswith(("`", "~")) else ""
        pos = first.end()
    for match in scan.finditer(_MARKUP, text, budget, pos):
        replacement = _replacement(match, text)
        if replacement != match.group():
            yield match.start(), match.end(), replacement


def _replacement(match: re.Match[str], text: str) -> str:
    kind = match.lastgroup
    if kind == "emphasis":
        start, end = match.span()
        word_before = start > 0 and text[start - 1].isalnum()
        word_after = end < len(text) and text[end].isalnum()
        # A delimiter opens (no word before, one after) or closes (the other way round);
        # between two spaces it is part of the text ("2 * 3"). Between two letters only
        # asterisks emphasise ("Ac**me**"); underscores join words ("snake_case"), and
        # between digits a star multiplies ("2*3").
        if word_before != word_after:
            return ""
        between_letters = word_before and text[start - 1].isalpha() and text[end].isalpha()
        return "" if between_letters and set(match.group()) == {"*"} else match.group()
    if kind == "tag":
        return " " if match["name"].lower() in _BLOCK_TAGS else ""
    if kind == "entity":
        decoded = decode_reference(match.group())
        return "" if decoded in INVISIBLE or decoded in SIGNS else decoded
    if kind == "line":
        return "\n " if match.group().lstrip().startswith(("`", "~")) else "\n"
    if kind == "item_after_tag":
        return " "
    return ""


def _record(breaks: list[int], shifts: list[int], at: int, shift: int) -> None:
    if breaks and breaks[-1] == at:  # two edits back to back: the later one holds
        shifts[-1] = shift
    else:
        breaks.append(at)
        shifts.append(shift)
