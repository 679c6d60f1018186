"""``find_private_values``: a value the customer entered privately, repeated word for word.

The context holds only salted SHA-256 digests (``sha256(salt + value)``), so
candidates from the text are hashed and compared. A candidate is a run of 1
to ``MAX_VALUE_WORDS`` whitespace-separated words, joined by single spaces
(so line breaks and double spaces between the words do not matter), as
written and with surrounding punctuation (quotes, brackets, backticks,
``*``...) stripped; when it holds a digit, also without spaces and hyphens
(``4111 1111-1111 1111`` ~ ``4111111111111111``). A run may also begin just
after, or end just before, a separator inside a word (``: = & / ? ( )`` and
the like; not ``- _ @ + '``, nor a dot between letters or digits or a comma
between digits): ``PIN:0417.``, ``?token=R7QK-22LP``, ``answer=Maple Street``.

The value in another letter case (``JOHN`` for ``john``) counts only when the
producer also sent ``sha256_casefold``, the digest of the case-folded value.

Does not count: the value in another spelling or grouping than these
(``41111111 11111111``). Nor part of a word (``0417`` in ``904172``, in ``$4.17`` or in
``04.17``), a run cut inside both its first and its last word, values longer
than ``MAX_VALUE_WORDS`` words, and candidates shorter than two characters.
Candidates are never logged or kept.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from itertools import accumulate, compress, count, islice, repeat

import regex

from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.spans import merged

MAX_VALUE_WORDS = 6
"""Longest value looked for, in words: enough for a name, phone, card or street address."""

MAX_PIECE_SEPARATORS = 4
"""Most punctuation marks a piece of a word may span: ``jane@example.com`` spans one."""

_WORD = regex.compile(r"\S+")
_PUNCTUATION = ".,;:!?\"'()[]{}<>«»“”‘’*`"  # noqa: RUF001 -- typographic quotes on purpose
_S = r".,;:!?\"()\[\]{}<>«»“”*`=&/\\|"
# Marks that glue a value to what is around it inside a word: ``PIN:0417.``,
# ``?token=R7QK-22LP``. Not apostrophes (``I've``), hyphens, ``@``, ``_`` or ``+``,
# which are far more often inside a value or a word than around one.
# A dot between letters or digits and a comma between digits are part of a name or
# number (``example.com``, ``$1,248.21`` holds no ``4821``), not separators.
_SEPARATOR = regex.compile(rf"(?!(?<=[\p{{L}}0-9])\.[\p{{L}}0-9]|(?<=[0-9]),[0-9])[{_S}]")
_P = regex.escape(_PUNCTUATION)
# Separators between two characters that are not punctuation: inside a word.
# (The stdlib engine scans for this three times faster than ``regex``.)
_GLUE = re.compile(rf"[{_S}](?=[{_S}]*[^\s{_P}])(?<=[^\s{_P}][{_S}])")
_WORD_BEFORE = regex.compile(r"\S*", regex.REVERSE)
_MAX_SEPARATORS = 64  # in one word: a minified JSON blob is not searched to its end
_DIGIT = regex.compile(r"[0-9]")


def find_private_values(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of each run of words whose salted digest is a private value."""
    if not ctx.private_values:
        return
    # One hash per salt, not per value: values entered together often share a salt.
    by_salt: dict[str, set[bytes]] = {}
    folded_by_salt: dict[str, set[bytes]] = {}
    for value in ctx.private_values:
        by_salt.setdefault(value.salt, set()).add(bytes.fromhex(value.sha256))
        if value.sha256_casefold:
            folded_by_salt.setdefault(value.salt, set()).add(bytes.fromhex(value.sha256_casefold))
    tokens = _WORD.findall(text)
    runs = _runs(tokens)
    stripped = [list(map(str.strip, run, repeat(_PUNCTUATION))) for run in runs]
    pieces = _pieces(text, tokens, runs)
    # Hashing is the cost: each distinct form is hashed once per salt, up front,
    # and the search below compares forms with the few that hit.
    forms = _forms(runs, stripped, _with_digits(tokens, stripped), pieces)
    hits = _hits(forms, by_salt, ctx)
    if folded_by_salt:
        hits |= _hits(forms, folded_by_salt, ctx, fold=True)
    if not hits:
        return
    spans = [(start, end) for form, start, end in pieces if form in hits]
    words = [m.span() for m in _WORD.finditer(text)]
    last_end = -1
    for i in _starts(hits, runs, stripped):
        ctx.budget.check()
        if words[i][0] < last_end:
            continue
        # Longest first, so "4111 1111 1111 1111" wins over its first group.
        for k in range(min(MAX_VALUE_WORDS, len(words) - i), 0, -1):
            span = _matching_span(runs[k - 1][i], words[i][0], words[i + k - 1][1], hits)
            if span is not None:
                spans.append(span)
                last_end = span[1]
                break
    yield from merged(spans)


def _runs(tokens: list[str]) -> list[list[str]]:
    """``runs[k - 1][i]``: words ``i`` to ``i + k - 1`` joined by single spaces."""
    flat = " ".join(tokens)
    # Where each word starts and ends in ``flat``: a run is then one slice, not a join.
    starts = list(accumulate((len(t) + 1 for t in tokens), initial=0))
    ends = [start - 1 for start in starts[1:]]
    return [
        list(map(flat.__getitem__, map(slice, starts, ends[k - 1 :])))
        for k in range(1, min(MAX_VALUE_WORDS, len(tokens)) + 1)
    ]


def _pieces(text: str, tokens: list[str], runs: list[list[str]]) -> list[tuple[str, int, int]]:
    """``(form, start, end)`` of the runs that begin or end inside a word, at punctuation.

    Within a word, a piece runs from its start or just after a separator to its
    end or just before one, over at most ``MAX_PIECE_SEPARATORS`` separators:
    ``PIN:0417.`` gives ``0417``, ``?token=R7QK-22LP`` gives ``R7QK-22LP``. A
    run of several words may begin after a separator in its first word or end
    before one in its last (``answer=Maple Street``), not both. A digit form is
    also given compact. Only words with a separator inside cost anything here.
    """
    out: list[tuple[str, int, int]] = []
    index, word_end = -1, -1
    for glue in _GLUE.finditer(text):
        at = glue.start()
        if at < word_end or _joins(text, at):
            continue  # a separator of a word already cut, or a dot in a name
        word_start, word_end = _word_around(text, at)
        # Words with a separator inside are tokens too, met in the same order.
        index = tokens.index(text[word_start:word_end], index + 1)
        start, end = _stripped(text, word_start, word_end)
        inner = [m.start() for m in islice(_SEPARATOR.finditer(text, start, end), _MAX_SEPARATORS)]
        bounds = [start - 1, *inner, end]
        for a in range(len(bounds) - 1):
            for b in range(a + 1, min(a + MAX_PIECE_SEPARATORS + 2, len(bounds))):
                st, en = bounds[a] + 1, bounds[b]
                if len(piece := text[st:en].strip(_PUNCTUATION)) >= 2:
                    out.append((text[st:en], st, en))
                    if "-" in piece and _DIGIT.search(piece):
                        out.append((piece.replace("-", ""), st, en))
        heads = [c + 1 for c in inner[-MAX_PIECE_SEPARATORS:]]
        tails = inner[:MAX_PIECE_SEPARATORS]
        across = _across(text, tokens, runs, index, (word_start, word_end), heads, tails)
        for form, st, en in across:
            out.append((form, st, en))
            if _DIGIT.search(form):
                out.append((form.replace(" ", "").replace("-", ""), st, en))
    return out


def _word_around(text: str, at: int) -> tuple[int, int]:
    """Start and end of the word holding the non-space character at ``at``."""
    before, after = _WORD_BEFORE.match(text, 0, at), _WORD.match(text, at)
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
    runs: list[list[str]],
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
    for k in range(2, min(len(runs), len(tokens) - index) + 1):
        token = tokens[index + k - 1]
        word_start = text.find(token, pos)
        pos = word_start + len(token)
        last_end = _stripped(text, word_start, pos)[1]
        rest = f" {runs[k - 2][index + 1][: last_end - pos or None]}"
        for head in heads:
            yield f"{text[head:end]}{rest}", head, last_end
    # The words before it, found backwards the same way.
    pos = start
    for k in range(2, min(len(runs), index + 1) + 1):
        token = tokens[index - k + 1]
        pos = text.rfind(token, 0, pos)
        first_start = _stripped(text, pos, pos + len(token))[0]
        lead = f"{runs[k - 2][index - k + 1][first_start - pos :]} "
        for tail in tails:
            yield f"{lead}{text[start:tail]}", first_start, tail


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    """``start, end`` moved inwards past punctuation around the word."""
    word = text[start:end]
    return (
        start + len(word) - len(word.lstrip(_PUNCTUATION)),
        end - (len(word) - len(word.rstrip(_PUNCTUATION))),
    )


def _with_digits(tokens: list[str], stripped: list[list[str]]) -> list[str]:
    """The stripped runs that hold a digit: those over a word with one."""
    # Digits before each word: a run holds one where the count rises over it.
    before = list(accumulate(map(bool, map(_DIGIT.search, tokens)), initial=0))
    return [
        form
        for k, bare in enumerate(stripped, 1)
        for form in compress(bare, map(int.__lt__, before, before[k:]))
    ]


def _compact(forms: Iterable[str]) -> list[str]:
    return [form.replace(" ", "").replace("-", "") for form in forms]


def _forms(
    runs: list[list[str]],
    stripped: list[list[str]],
    with_digits: list[str],
    pieces: list[tuple[str, int, int]],
) -> list[str]:
    """Every distinct form of the runs: as written, stripped, compact, cut."""
    distinct: set[str] = set()
    for joined, bare in zip(runs, stripped, strict=True):
        distinct.update(joined, bare)
    distinct.update(_compact(with_digits))
    distinct.update(form for form, _, _ in pieces)
    return list(distinct)


def _hits(
    forms: list[str], by_salt: dict[str, set[bytes]], ctx: DetectorContext, fold: bool = False
) -> set[str]:
    """Which forms (case-folded first, with ``fold``) have one of the digests."""
    encoded = [(form.casefold() if fold else form).encode("utf-8") for form in forms]
    found: set[str] = set()
    for salt, digests in by_salt.items():
        ctx.budget.check()
        # Copying the salted state is cheaper than a new hash of salt + form.
        copy = hashlib.sha256(salt.encode("utf-8")).copy
        for form, data in zip(forms, encoded, strict=True):
            digest = copy()
            digest.update(data)
            if digest.digest() in digests:
                found.add(form)
    return found


def _starts(hits: set[str], runs: list[list[str]], stripped: list[list[str]]) -> list[int]:
    """The words that start a run with a form in ``hits``; no other word can start a finding."""
    starts: set[int] = set()
    for joined, bare in zip(runs, stripped, strict=True):
        for forms in (joined, bare, _compact(bare)):
            starts.update(compress(count(), map(hits.__contains__, forms)))
    return sorted(starts)


def _matching_span(joined: str, start: int, end: int, hits: set[str]) -> tuple[int, int] | None:
    """The span of the first form of ``joined`` (at ``start:end``) in ``hits``."""
    stripped = joined.strip(_PUNCTUATION)
    if len(stripped) < 2:
        return None
    if joined in hits:
        return start, end
    # Punctuation is stripped inside the first and last word, where offsets agree.
    inner_start = start + len(joined) - len(joined.lstrip(_PUNCTUATION))
    inner_end = end - (len(joined) - len(joined.rstrip(_PUNCTUATION)))
    if stripped != joined and stripped in hits:
        return inner_start, inner_end
    if _DIGIT.search(stripped):
        compact = stripped.replace(" ", "").replace("-", "")
        if compact != stripped and compact in hits:
            return inner_start, inner_end
    return None
