"""Sentences of real documentation prose: the docstrings of installed modules.

Python's standard library (PSF licence) and a few well-known packages (named in
SOURCES.md with their licences). A sentence that holds what a detector is there to
find (an address, a long number, a URL, an assignment of a quoted value) is left out,
so every sentence kept is a true negative for every detector.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterator

MODULES = (
    # the standard library
    "abc", "argparse", "ast", "asyncio", "bisect", "calendar", "collections", "configparser",
    "contextlib", "copy", "csv", "dataclasses", "datetime", "decimal", "difflib", "enum",
    "fractions", "functools", "gettext", "heapq", "html", "http.client", "importlib",
    "inspect", "io", "itertools", "json", "locale", "logging", "mailbox", "operator",
    "os", "pathlib", "pickle", "pprint", "queue", "random", "sched", "selectors", "shlex",
    "shutil", "signal", "sqlite3", "statistics", "string", "subprocess", "tarfile",
    "tempfile", "textwrap", "threading", "tokenize", "traceback", "typing", "unittest",
    "urllib.parse", "uuid", "warnings", "weakref", "zipfile",
    # well-known packages installed beside turncheck
    "pydantic", "sqlalchemy.orm", "sqlalchemy.sql", "httpx", "jinja2", "yaml", "rich.console",
    "rich.table", "click", "typer", "stdnum.iban", "stdnum.luhn", "phonenumbers", "alembic",
    "regex", "starlette.requests", "fastapi", "hypothesis", "aiohttp",
)  # fmt: skip

# What a kept sentence must not hold: each is something a detector rightly finds.
SENSITIVE_LOOK = re.compile(
    r"@|://|localhost|www\.|\b\d{1,3}(?:\.\d{1,3}){3}\b|BEGIN|[=:]\s*[\"'][^\"']{8,}"
    r"|\b[0-9a-f]{16,}\b|\b[A-Za-z0-9_-]{24,}\b|\bbirth|\bSSN\b|[a-z0-9-]+\.(?:internal|corp|local|lan)\b",
    re.IGNORECASE,
)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")


def sentences() -> Iterator[tuple[str, str]]:
    """(module, sentence) for each usable sentence, in a fixed order, without repeats."""
    seen: set[str] = set()
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except Exception:
            continue
        for doc in filter(lambda d: isinstance(d, str), _docstrings(module)):
            text = re.sub(r"\s+", " ", doc)
            for sentence in SENTENCE_END.split(text):
                sentence = sentence.strip()
                if _usable(sentence) and sentence not in seen:
                    seen.add(sentence)
                    yield name, sentence


def _docstrings(module: object) -> Iterator[str]:
    if module.__doc__:
        yield module.__doc__
    for attr in sorted(vars(module)):
        member = getattr(module, attr, None)
        if not (inspect.isclass(member) or inspect.isfunction(member)):
            continue
        if getattr(member, "__module__", "").split(".")[0] != module.__name__.split(".")[0]:
            continue
        if member.__doc__:
            yield member.__doc__
        if inspect.isclass(member):
            for sub in sorted(vars(member)):
                doc = getattr(vars(member)[sub], "__doc__", None)
                if inspect.isfunction(vars(member)[sub]) and doc:
                    yield doc


def _usable(sentence: str) -> bool:
    if not 40 <= len(sentence) <= 320 or not sentence[0].isupper():
        return False
    if sum(ch.isdigit() for ch in sentence) >= 6 or ">>>" in sentence:
        return False
    letters = sum(ch.isalpha() for ch in sentence)
    return (
        letters / len(sentence) > 0.6
        and not SENTENCE_END.search(sentence)
        and not (SENSITIVE_LOOK.search(sentence))
    )
