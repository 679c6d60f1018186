"""Random tokens in the formats that a public secret scanner's rules describe.

The rule file (gitleaks' ``config/gitleaks.toml``, MIT) is read for facts only: each
rule's id, keywords and the regular expression of its secret. ``sample`` walks the
parsed expression and draws one string it matches; nothing of the file is stored.
"""

from __future__ import annotations

import random
import re
import string
import tomllib
from dataclasses import dataclass
from pathlib import Path
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser as p  # type: ignore[attr-defined]

# A scanner's open-ended repeat ({20,}, +, *) is drawn at most this much past its minimum.
OPEN_REPEAT_SPAN = 12
PRINTABLE = string.ascii_letters + string.digits + "_-+/=."
POSIX = {
    "[:alnum:]": "a-zA-Z0-9",
    "[:alpha:]": "a-zA-Z",
    "[:digit:]": "0-9",
    "[:upper:]": "A-Z",
    "[:lower:]": "a-z",
    "[:xdigit:]": "0-9A-Fa-f",
    "[:space:]": " ",
    "[:punct:]": "!-/:-@",
}


@dataclass(frozen=True, slots=True)
class Rule:
    provider: str
    pattern: str
    secret: re.Pattern[str]
    keywords: tuple[str, ...]


def go_to_python(pattern: str) -> str:
    """The rule's RE2 syntax in Python's: POSIX classes and ``\\z`` have no Python twin."""
    for posix, plain in POSIX.items():
        pattern = pattern.replace(posix, plain)
    pattern = pattern.replace(r"\z", r"\Z")
    # RE2 lets (?i) open anywhere (it reaches to the end of its group); Python wants it first.
    if "(?i)" in pattern[1:]:
        pattern = "(?i)" + pattern.replace("(?i)", "")
    return pattern


# Rules whose secret is no token of a provider (a password field, a file, a generic
# assignment) or whose shape build.py draws itself (key blocks, signed tokens).
SKIPPED = frozenset(
    {
        "generic-api-key",
        "curl-auth-user",
        "curl-auth-header",
        "kubernetes-secret-yaml",
        "hashicorp-tf-password",
        "nuget-config-password",
        "private-key",
        "jwt",
        "jwt-base64",
        "pkcs12-file",
    }
)
# A public identifier or a publishable key is meant to be seen: no reviewer flags it.
NOT_SECRET = (
    "client-id",
    "access-id",
    "api-id",
    "pub-key",
    "public-key",
    "pub-api-key",
    "browser-api",
)


def load_rules(path: Path) -> list[Rule]:
    rules = []
    for raw in tomllib.loads(path.read_text(encoding="utf-8"))["rules"]:
        if "regex" not in raw or raw["id"] in SKIPPED or any(n in raw["id"] for n in NOT_SECRET):
            continue
        pattern = go_to_python(raw["regex"])
        group = raw.get("secretGroup", 1)
        try:
            whole = re.compile(pattern)
        except re.error:
            continue
        secret = _group_pattern(pattern, group if whole.groups >= group else 0)
        rules.append(Rule(raw["id"], pattern, re.compile(secret), tuple(raw.get("keywords", ()))))
    return rules


def _group_pattern(pattern: str, group: int) -> str:
    """The source text of capture group ``group`` (0: the whole pattern), flags kept."""
    if group == 0:
        return pattern
    flags = re.match(r"^\(\?[a-z]+\)", pattern)
    depth_starts: list[tuple[int, bool]] = []
    count = 0
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            i = _class_end(pattern, i)
            continue
        if ch == "(":
            capturing = not pattern.startswith("(?", i) or pattern.startswith("(?P<", i)
            if capturing:
                count += 1
            depth_starts.append((i, capturing and count == group))
        elif ch == ")":
            start, wanted = depth_starts.pop()
            if wanted:
                body = pattern[start + 1 : i]
                if body.startswith("?P<"):
                    body = body[body.index(">") + 1 :]
                return (flags.group(0) if flags else "") + body
        i += 1
    return pattern


def _class_end(pattern: str, i: int) -> int:
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j + 1


def sample(secret: re.Pattern[str], rng: random.Random, tries: int = 40) -> str | None:
    """One string that ``secret`` matches whole, or None when none was drawn in ``tries``."""
    tree = p.parse(secret.pattern, secret.flags)
    for _ in range(tries):
        text = _walk(tree, rng)
        if secret.fullmatch(text) and len(text) >= 8:
            return text
    return None


def _walk(items: object, rng: random.Random) -> str:
    out = []
    for op, arg in items:  # type: ignore[attr-defined]
        if op is c.LITERAL:
            out.append(chr(arg))
        elif op is c.NOT_LITERAL:
            out.append(rng.choice([ch for ch in PRINTABLE if ord(ch) != arg]))
        elif op is c.ANY:
            out.append(".")  # rules write a literal dot unescaped more often than not
        elif op is c.IN:
            out.append(_pick_in(arg, rng))
        elif op is c.BRANCH:
            out.append(_walk(rng.choice(arg[1]), rng))
        elif op is c.SUBPATTERN:
            out.append(_walk(arg[-1], rng))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
            low, high, body = arg
            top = low + OPEN_REPEAT_SPAN if high == c.MAXREPEAT else high
            if low == 0 and top > 0 and op is c.MIN_REPEAT:
                top = min(top, 1)  # a lazy filler: keep it short
            out.extend(_walk(body, rng) for _ in range(rng.randint(low, top)))
        # anchors, boundaries and lookarounds draw nothing
    return "".join(out)


def _pick_in(arg: list[tuple[object, object]], rng: random.Random) -> str:
    allowed: list[str] = []
    negate = False
    for op, value in arg:
        if op is c.NEGATE:
            negate = True
        elif op is c.LITERAL:
            allowed.append(chr(value))  # type: ignore[arg-type]
        elif op is c.RANGE:
            low, high = value  # type: ignore[misc]
            allowed.extend(chr(x) for x in range(low, high + 1))
        elif op is c.CATEGORY:
            allowed.extend(_category(value))
    if negate:
        return rng.choice([ch for ch in PRINTABLE if ch not in allowed])
    printable = [ch for ch in allowed if ch.isprintable() and not ch.isspace()]
    return rng.choice(printable or allowed or ["a"])


def _category(value: object) -> str:
    if value is c.CATEGORY_DIGIT:
        return string.digits
    if value is c.CATEGORY_WORD:
        return string.ascii_letters + string.digits + "_"
    if value is c.CATEGORY_SPACE:
        return " "
    return string.ascii_letters
