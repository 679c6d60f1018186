"""Is an amount the sum of a few source amounts? A bounded search.

A total is supported when it adds up 2..``max_terms`` distinct source amounts
("$40 + $5 shipping = $45"). Differences, products and instalments are not:
a figure the agent worked out in its head is what the check exists to catch.

The unbounded version of this search once tried every combination of the
figures on a receipt and ran the process out of memory (seed 004). Here:

* at most ``MAX_TERMS_CONSIDERED`` source amounts are considered (the caller
  passes them most recent first; the rest are dropped);
* terms are distinct values, positive and smaller than the total;
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

from worker.checks.budget import Budget

MAX_TERMS_CONSIDERED = 40
MAX_PLACES = 4


def _places(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def adds_up(total: Decimal, amounts: Iterable[Decimal], max_terms: int, budget: Budget) -> bool:
    """True when ``total`` is a sum of 2..``max_terms`` distinct ``amounts``; ``amounts`` come
    most recent first, and only the first ``MAX_TERMS_CONSIDERED`` distinct ones are used."""
    if max_terms < 2 or total <= 0 or _places(total) > MAX_PLACES:
        return False
    candidates: list[Decimal] = []
    for amount in dict.fromkeys(amounts):
        if amount > 0 and _places(amount) <= MAX_PLACES:
            candidates.append(amount)
            if len(candidates) == MAX_TERMS_CONSIDERED:
                break
    if len(candidates) < 2:
        return False
    places = max(_places(total), *(_places(c) for c in candidates))
    target = int(total.scaleb(places))
    scaled = {int(c.scaleb(places)) for c in candidates}
    terms = sorted(term for term in scaled if term < target)
    where = {term: i for i, term in enumerate(terms)}

    def search(start: int, remaining: int, left: int) -> bool:
        if left == 1:
            return where.get(remaining, -1) >= start
        # Leaves are one dict lookup; checking the clock per branch is enough.
        budget.check()
        for i in range(start, len(terms) - left + 1):
            term = terms[i]
            # The other terms are larger still: ``left`` of them overshoot.
            if term * left > remaining:
                return False
            if search(i + 1, remaining - term, left - 1):
                return True
        return False

    return any(search(0, target, count) for count in range(2, max_terms + 1))
