"""Is an amount the sum of a few source amounts? A bounded search.

A total is supported when it adds up 2..``max_terms`` source amounts ("$40 +
$5 shipping = $45"). A value may be used as many times as the sources state it:
two charges of $240 are $480, one price of $240 is not. Differences, products
and instalments are not sums: a figure the agent worked out in its head is
what the check exists to catch.

The unbounded version of this search once tried every combination of the
figures on a receipt and ran the process out of memory (seed 004). Here:

* at most ``MAX_TERMS_CONSIDERED`` distinct source amounts are considered (the
  caller passes them most recent first; the rest are dropped), each at most
  ``max_terms`` times;
* terms are positive and smaller than the total, and the total has at most
  ``MAX_TOTAL_DIGITS`` digits before the point;
* the search is depth first over sorted terms, stops a branch as soon as its
  smallest completion overshoots, and calls ``budget.check()`` at every branching node,
  so it ends or raises ``BudgetSpent``; it never grows memory beyond the
  recursion depth (``max_terms``).

Arithmetic is on integers scaled to the finest decimal place present (up to
``MAX_PLACES``), never on floats: 0.1 + 0.2 is 0.3 here.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from turncheck.worker.checks.budget import Budget

MAX_TERMS_CONSIDERED = 40
MAX_PLACES = 4
# No total a person reads has more digits; past it, the conversion to an integer
# alone costs time quadratic in the length (a megabyte of "1,111,111,...").
MAX_TOTAL_DIGITS = 30
# Reading the amounts checks the budget once per so many.
_CHECK_EVERY = 1024


def _places(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def adds_up(total: Decimal, amounts: Iterable[Decimal], max_terms: int, budget: Budget) -> bool:
    """True when ``total`` is a sum of 2..``max_terms`` of ``amounts``, each used at most as
    often as it occurs there; ``amounts`` come most recent first, and only the first
    ``MAX_TERMS_CONSIDERED`` distinct ones are used."""
    if max_terms < 2 or total <= 0 or _places(total) > MAX_PLACES:
        return False
    if total.adjusted() >= MAX_TOTAL_DIGITS:
        return False
    counts: dict[Decimal, int] = {}
    for seen, amount in enumerate(amounts):
        if not seen % _CHECK_EVERY:
            budget.check()
        if amount in counts:
            counts[amount] = min(counts[amount] + 1, max_terms)
        elif amount > 0 and _places(amount) <= MAX_PLACES:
            if len(counts) == MAX_TERMS_CONSIDERED:
                break
            counts[amount] = 1
    if sum(counts.values()) < 2:
        return False
    places = max(_places(total), *(_places(c) for c in counts))
    target = int(total.scaleb(places))
    scaled: dict[int, int] = {}
    for amount, count in counts.items():
        if amount.adjusted() > total.adjusted():
            continue  # larger than the total: never a term, and maybe too long to convert
        term = int(amount.scaleb(places))
        scaled[term] = scaled.get(term, 0) + count
    terms = sorted(t for term, count in scaled.items() if term < target for t in [term] * count)
    # The last index of each value: a leaf needs one copy at or after ``start``.
    last = {term: i for i, term in enumerate(terms)}

    def search(start: int, remaining: int, left: int) -> bool:
        if left == 1:
            return last.get(remaining, -1) >= start
        # Leaves are one dict lookup; checking the clock per branch is enough.
        budget.check()
        previous = None
        for i in range(start, len(terms) - left + 1):
            term = terms[i]
            if term == previous:
                continue  # the same value at this depth: the same branch again
            previous = term
            # The other terms are as large or larger: ``left`` of them overshoot.
            if term * left > remaining:
                return False
            if search(i + 1, remaining - term, left - 1):
                return True
        return False

    return any(search(0, target, count) for count in range(2, max_terms + 1))
