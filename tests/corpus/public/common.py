"""The shape of one corpus case, and the text-channel forms build.py writes."""

from __future__ import annotations

import random
from typing import Any


def case(
    detector: str,
    text: str,
    expect: bool,
    *,
    form: str = "plain",
    channel: str = "web",
    source: str,
    note: str,
    **extra: str,
) -> dict[str, Any]:
    return {
        "id": "",
        "detector": detector,
        "text": text,
        "expect": expect,
        "form": form,
        "channel": channel,
        "source": source,
        "note": note,
        **extra,
    }


def hard_wrap(before: str, value: str, after: str, rng: random.Random) -> str:
    """``before + value + after`` cut every N characters (an SMS gateway's fixed column),
    N chosen so that at least one cut falls inside ``value``."""
    text = before + value + after
    start, end = len(before), len(before) + len(value)
    widths = [n for n in range(16, 48) if any(start < k < end for k in range(n, len(text), n))]
    width = rng.choice(widths)
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


ENTITY_AT = ("&#64;", "&commat;", "&#x40;")
ENTITY_DOT = ("&#46;", "&period;", "&#x2E;")
DEFANGED_AT = ("[@]", "[at]", "(at)")
DEFANGED_DOT = ("[.]", "[dot]", "(.)")


def entities(value: str, rng: random.Random) -> str:
    at, dot = rng.choice(ENTITY_AT), rng.choice(ENTITY_DOT)
    value = value.replace("@", at)
    return value.replace(".", dot) if rng.random() < 0.7 else value


def defanged(value: str, rng: random.Random) -> str:
    at, dot = rng.choice(DEFANGED_AT), rng.choice(DEFANGED_DOT)
    return value.replace("@", at).replace(".", dot)
