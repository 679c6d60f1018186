"""Write the public-data corpus: ``seen.jsonl`` and ``unseen.jsonl`` beside this file.

Run by hand, from the repository root, after changing a generator here:

    .venv/bin/python -m tests.corpus.public.build --rules PATH/TO/gitleaks.toml

``--rules`` is the secret scanner's rule file (gitleaks ``config/gitleaks.toml``, MIT;
SOURCES.md names the commit read), read for its token formats only. The output depends
only on SEED, the rule file and the pinned Faker and python-stdnum: the same inputs
write the same two files. A random 40% of the cases (stratified by detector and form)
goes to ``unseen.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.corpus.public import negatives, positives, voice
from tests.corpus.public.tokens import load_rules

HERE = Path(__file__).resolve().parent
SEED = 19
UNSEEN_SHARE = 0.4
# Every Nth character of a stored credential is a JSON \u escape, so a secret scanner
# reading the repository's bytes sees no token; json.loads gives the token back whole.
ESCAPE_EVERY = 6


def build(rules_path: Path) -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    cases: list[dict[str, Any]] = []
    makers: list[Callable[[random.Random], list[dict[str, Any]]]] = [
        *positives.MAKERS,
        *voice.MAKERS,
        *negatives.MAKERS,
    ]
    for make in makers:
        cases.extend(make(random.Random(rng.getrandbits(64))))
    cases.extend(positives.credentials(random.Random(rng.getrandbits(64)), load_rules(rules_path)))
    counters: dict[str, int] = defaultdict(int)
    for case in cases:
        name = "any" if case["detector"] == "*" else case["detector"]
        counters[name] += 1
        case["id"] = f"pub-{name.replace('_', '-')}-{counters[name]:04d}"
    return cases


def split(cases: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A random UNSEEN_SHARE of each (detector, expect, form) stratum goes unseen."""
    rng = random.Random(SEED + 1)
    strata: dict[tuple[str, bool, str], list[dict[str, Any]]] = defaultdict(list)
    for case in cases:
        strata[(case["detector"], case["expect"], case["form"])].append(case)
    unseen_ids: set[str] = set()
    for members in strata.values():
        chosen = rng.sample(members, round(len(members) * UNSEEN_SHARE))
        unseen_ids.update(case["id"] for case in chosen)
    seen = [c for c in cases if c["id"] not in unseen_ids]
    unseen = [c for c in cases if c["id"] in unseen_ids]
    return seen, unseen


def dump(case: dict[str, Any]) -> str:
    if case["detector"] != "credentials":
        return json.dumps(case, ensure_ascii=True)
    fields = dict(case, text="\x00")
    written = json.dumps(case["text"], ensure_ascii=True)
    return json.dumps(fields, ensure_ascii=True).replace('"\\u0000"', _escaped(written), 1)


def _escaped(written: str) -> str:
    """``written`` (a JSON string) with every ESCAPE_EVERY-th letter or digit as ``\\uXXXX``."""
    parts = re.findall(r"\\u[0-9a-f]{4}|\\.|.", written, re.DOTALL)
    out = []
    for i, part in enumerate(parts):
        if i % ESCAPE_EVERY == 0 and re.fullmatch(r"[A-Za-z0-9]", part):
            part = f"\\u{ord(part):04x}"
        out.append(part)
    return "".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=Path, required=True, help="gitleaks config/gitleaks.toml")
    args = parser.parse_args()
    cases = build(args.rules)
    for name, part in zip(("seen.jsonl", "unseen.jsonl"), split(cases), strict=True):
        with (HERE / name).open("w", encoding="utf-8") as handle:
            for case in part:
                handle.write(dump(case) + "\n")
        print(f"{name}: {len(part)} cases")


if __name__ == "__main__":
    main()
