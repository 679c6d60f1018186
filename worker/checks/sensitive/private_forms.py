"""The candidate forms of a text's runs of words, for ``private_values`` to hash.

A run is 1 to ``MAX_VALUE_WORDS`` words (runs of non-space) joined by single
spaces; its forms are the run as written, stripped of punctuation around it,
compact (without spaces and hyphens) when it holds a digit, regrouped when it
is digit groups between separators (``grouped``), and the pieces of
it that begin or end at a separator inside a word (``PIN:0417.``,
``answer=Maple Street``). See ``private_values`` for what counts and why.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import accumulate, compress, islice

import regex

from turncheck.worker.checks.budget import Budget

MAX_VALUE_WORDS = 6
"""Longest value looked for, in words: enough for a name, phone, card or street address."""

MAX_PIECE_SEPARATORS = 4
"""Most punctuation marks a piece of a word may span: ``jane@example.com`` spans one."""

# A run of what is not white space, as ``regex`` reads ``\S+``, on the stdlib engine (twice
# as fast): white space spelt out as Unicode's White_Space, which ``regex`` reads ``\s``
# as (``re``'s own ``\s`` adds \x1c-\x1f), so the words stay those ``_WORD_BEFORE`` reads.
WORD = re.compile(r"[^\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
PUNCTUATION = ".,;:!?\"'()[]{}<>«»“”‘’*`"  # noqa: RUF001 -- typographic quotes on purpose
_S = r".,;:!?\"()\[\]{}<>«»“”*`=&/\\|"
# Marks that glue a value to what is around it inside a word: ``PIN:0417.``,
# ``?token=R7QK-22LP``. Not apostrophes (``I've``), hyphens, ``@``, ``_`` or ``+``,
# which are far more often inside a value or a word than around one.
# A dot between letters or digits and a comma between digits are part of a name or
# number (``example.com``, ``$1,248.21`` holds no ``4821``), not separators.
_SEPARATOR = regex.compile(rf"(?!(?<=[\p{{L}}0-9])\.[\p{{L}}0-9]|(?<=[0-9]),[0-9])[{_S}]")
_P = regex.escape(PUNCTUATION)
# Separators between two characters that are not punctuation: inside a word.
# (The stdlib engine scans for this three times faster than ``regex``.)
_GLUE = re.compile(rf"[{_S}](?=[{_S}]*[^\s{_P}])(?<=[^\s{_P}][{_S}])")
_WORD_BEFORE = regex.compile(r"\S*", regex.REVERSE)
_MAX_SEPARATORS = 64  # in one word: a minified JSON blob is not searched to its end
DIGIT = regex.compile(r"[0-9]")
# A number written as digit groups: ``4821/0417``, ``+1 555/123 - 4567``. (Tabs and
# double spaces are single spaces in a run already; every dash is '-' by now.)
_GROUPED = re.compile(r"\+?[0-9]+(?:[ ./-]+[0-9]+)+")
_GROUP_SEPARATOR = re.compile(r"[ ./-]+")


def runs_of(tokens: list[str]) -> list[list[str]]:
    """``runs[k - 1][i]``: words ``i`` to ``i + k - 1`` joined by single spaces."""
    flat = " ".join(tokens)
    # Where each word starts and ends in ``flat``: a run is then one slice, not a join.
    starts = list(accumulate((len(t) + 1 for t in tokens), initial=0))
    ends = [start - 1 for start in starts[1:]]
    return [
        list(map(flat.__getitem__, map(slice, starts, ends[k - 1 :])))
        for k in range(1, min(MAX_VALUE_WORDS, len(tokens)) + 1)
    ]


def pieces(text: str, own: tuple[int, int, int], budget: Budget) -> list[tuple[str, int, int]]:
    """``(form, start, end)`` of the runs that begin or end inside a word, at punctuation.

    Only of the words in ``text[own_start:own_end]``, the first of which is
    word ``first`` of ``text`` (``own``: ``(own_start, own_end, first)``); the
    words around them are context.

    Within a word, a piece runs from its start or just after a separator to its
    end or just before one, over at most ``MAX_PIECE_SEPARATORS`` separators:
    ``PIN:0417.`` gives ``0417``, ``?token=R7QK-22LP`` gives ``R7QK-22LP``. A
    run of several words may begin after a separator in its first word or end
    before one in its last (``answer=Maple Street``), not both. A digit form is
    also given compact. Only words with a separator inside cost anything here.
    """
    own_start, own_end, first = own
    out: list[tuple[str, int, int]] = []
    index, word_end = first - 1, -1
    tokens: list[str] = []  # the words, split only once a word is cut: most texts have none
    for glue in _GLUE.finditer(text, own_start, own_end):
        budget.check()
        at = glue.start()
        if at < word_end or _joins(text, at):
            continue  # a separator of a word already cut, or a dot in a name
        tokens = tokens or WORD.findall(text)
        word_start, word_end = _word_around(text, at)
        # Words with a separator inside are tokens too, met in the same order.
        index = tokens.index(text[word_start:word_end], index + 1)
        start, end = stripped_span(text, word_start, word_end)
        inner = [m.start() for m in islice(_SEPARATOR.finditer(text, start, end), _MAX_SEPARATORS)]
        bounds = [start - 1, *inner, end]
        for a in range(len(bounds) - 1):
            for b in range(a + 1, min(a + MAX_PIECE_SEPARATORS + 2, len(bounds))):
                st, en = bounds[a] + 1, bounds[b]
                if len(piece := text[st:en].strip(PUNCTUATION)) >= 2:
                    out.append((text[st:en], st, en))
                    if "-" in piece and DIGIT.search(piece):
                        out.append((piece.replace("-", ""), st, en))
                    out.extend((form, st, en) for form in grouped(piece))
        heads = [c + 1 for c in inner[-MAX_PIECE_SEPARATORS:]]
        tails = inner[:MAX_PIECE_SEPARATORS]
        across = _across(text, tokens, index, (word_start, word_end), heads, tails)
        for form, st, en in across:
            out.append((form, st, en))
            if DIGIT.search(form):
                out.append((form.replace(" ", "").replace("-", ""), st, en))
                out.extend((regrouped, st, en) for regrouped in grouped(form))
    return out


def _word_around(text: str, at: int) -> tuple[int, int]:
    """Start and end of the word holding the non-space character at ``at``."""
    before, after = _WORD_BEFORE.match(text, 0, at), WORD.match(text, at)
    return (before.start() if before else at), (after.end() if after else at + 1)


def _joins(text: str, at: int) -> bool:
    """Whether ``text[at]`` is a dot between letters or digits or a comma between digits."""
    before, after = text[at - 1], text[at + 1 : at + 2]
    if text[at] == ".":
        return before.isalnum() and after.isalnum()
    return text[at] == "," and "0" <= before <= "9" and "0" <= after <= "9"


def _across(
    text: str,
    tokens: list[str],
    index: int,
    span: tuple[int, int],
    heads: list[int],
    tails: list[int],
) -> Iterator[tuple[str, int, int]]:
    """Runs of 2 or more words that begin at one of ``heads`` or end at one of ``tails``
    of word ``index`` (at ``span``)."""
    start, end = span
    # The words after it: the next word is the first match of its text past this one.
    pos = end
    for k in range(2, min(MAX_VALUE_WORDS, len(tokens) - index) + 1):
        token = tokens[index + k - 1]
        word_start = text.find(token, pos)
        pos = word_start + len(token)
        last_end = stripped_span(text, word_start, pos)[1]
        rest = f" {' '.join(tokens[index + 1 : index + k])[: last_end - pos or None]}"
        for head in heads:
            yield f"{text[head:end]}{rest}", head, last_end
    # The words before it, found backwards the same way.
    pos = start
    for k in range(2, min(MAX_VALUE_WORDS, index + 1) + 1):
        token = tokens[index - k + 1]
        pos = text.rfind(token, 0, pos)
        first_start = stripped_span(text, pos, pos + len(token))[0]
        lead = f"{' '.join(tokens[index - k + 1 : index])[first_start - pos :]} "
        for tail in tails:
            yield f"{lead}{text[start:tail]}", first_start, tail


def stripped_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``start, end`` moved inwards past punctuation around the word."""
    word = text[start:end]
    return (
        start + len(word) - len(word.lstrip(PUNCTUATION)),
        end - (len(word) - len(word.rstrip(PUNCTUATION))),
    )


def with_digits(tokens: list[str], stripped: list[list[str]]) -> list[str]:
    """The stripped runs that hold a digit: those over a word with one."""
    # Digits before each word: a run holds one where the count rises over it.
    before = list(accumulate(map(bool, map(DIGIT.search, tokens)), initial=0))
    return [
        form
        for k, bare in enumerate(stripped, 1)
        for form in compress(bare, map(int.__lt__, before, before[k:]))
    ]


def compact(forms: Iterable[str]) -> list[str]:
    return [form.replace(" ", "").replace("-", "") for form in forms]


def grouped(form: str) -> list[str]:
    """A number's digit groups joined as a customer types them: by nothing, a space, a hyphen.

    ``555.010.2030``, ``555 / 010/2030`` or ``555 - 010 - 2030`` give ``5550102030``,
    ``555 010 2030`` and ``555-010-2030``, whatever the separators between the groups;
    ``[]`` for anything but digit groups (an optional ``+`` first) between spaces, dots,
    slashes and hyphens. A lone dot is a decimal point, not a separator: ``48.21`` gives nothing.
    """
    if not _GROUPED.fullmatch(form) or _GROUP_SEPARATOR.findall(form) == ["."]:
        return []
    groups = _GROUP_SEPARATOR.split(form)
    return ["".join(groups), " ".join(groups), "-".join(groups)]


# Digit groups with separators and white space between them, as long as they go; not
# glued to a letter, digit or separator before (nor a letter or digit after).
_SPREAD = re.compile(r"(?<![0-9A-Za-z+./-])\+?[0-9]+(?:[\s./-]+[0-9]+)+(?![0-9A-Za-z])")
_GROUP = re.compile(r"\+?[0-9]+")
# Before a group, a separator word ends: every spread number has one, few texts do.
_SPREAD_HINT = re.compile(r"[./-]\s+[0-9]")
MAX_SPREAD_GROUPS = 8
"""Most digit groups in a number spread over more than ``MAX_VALUE_WORDS`` words."""


def spread_numbers(
    text: str, own_start: int, own_end: int, budget: Budget
) -> list[tuple[str, int, int]]:
    """``(form, start, end)``: numbers too many words long to be runs, regrouped.

    A card with spaced hyphens (``4111 - 1111 - 1111 - 1111``) is seven words: each
    of its 2 to ``MAX_SPREAD_GROUPS`` consecutive groups over more words than a run
    holds, with a word of separators only among them, gives the ``grouped`` forms.
    Only numbers starting in ``text[own_start:own_end]``.
    """
    out: list[tuple[str, int, int]] = []
    if not _SPREAD_HINT.search(text, own_start):
        return out
    for number in _SPREAD.finditer(text, own_start):
        if number.start() >= own_end:
            break
        if len(number[0].split()) <= MAX_VALUE_WORDS:
            continue  # runs of words hold it
        budget.check()
        groups = list(_GROUP.finditer(text, number.start(), number.end()))
        for i in range(len(groups)):
            for j in range(i + 1, min(i + MAX_SPREAD_GROUPS, len(groups))):
                st, en = groups[i].start(), groups[j].end()
                words = text[st:en].split()
                if len(words) > MAX_VALUE_WORDS and any(not w.strip("./-") for w in words):
                    digits = [g[0] for g in groups[i : j + 1]]
                    out.extend((sep.join(digits), st, en) for sep in ("", " ", "-"))
    return out


def distinct_forms(
    runs: list[list[str]],
    stripped: list[list[str]],
    digit_forms: list[str],
    cut: list[str],
) -> list[str]:
    """Every distinct form of the runs: as written, stripped, compact, regrouped, cut."""
    distinct: set[str] = set()
    for joined, bare in zip(runs, stripped, strict=True):
        distinct.update(joined, bare)
    distinct.update(compact(digit_forms))
    for form in digit_forms:
        distinct.update(grouped(form))
    distinct.update(cut)
    return list(distinct)
