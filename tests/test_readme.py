"""The README's example answers are what the shipped examples produce.

Each example is made again from ``examples/`` in a fresh folder, as a user
would: every ``console`` block's ``$`` commands run in a shell (``turncheck``
from this environment, a terminal 100 columns wide) and what they print must be
the block's text; the event and the API answers are read from the store those
commands filled. Only what varies from run to run is set aside: log and check
times (a page's cursor holds the turn's time, which does not). Retention is pinned long, so the
examples' turns, dated 2026-11-28, stay stored whatever today is.

After a change of output, ``TURNCHECK_UPDATE_README=1 python -m pytest
tests/test_readme.py`` writes what the commands now print into README.md.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from turncheck.worker.api import create_app
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store

ROOT = Path(__file__).parents[1]
README = ROOT / "README.md"
UPDATE = bool(os.environ.get("TURNCHECK_UPDATE_README"))
COLUMNS = 100
TOKEN = "readme-token"

LOG_TIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} ", re.M)
BACKTEST_SPEED = re.compile(r" in \d+\.\d s \([\d,-]+ turns/s")
"""A backtest's wall time and turns per second, which vary with the machine."""
VARYING_KEYS = {"checked_at", "occurred_at"}
BROKEN_PATTERN = re.compile(r"`(?P<check>[\w-]+)`'s pattern written `'(?P<pattern>[^`]+)'`")


@dataclass(frozen=True)
class Block:
    lang: str
    body: str
    before: str
    """The prose between the previous block and this one."""


def blocks() -> list[Block]:
    found, prose, body, lang = [], [], [], None
    for line in README.read_text().splitlines():
        if lang is None and line.startswith("```"):
            lang, body = line[3:].strip(), []
        elif lang is not None and line.startswith("```"):
            found.append(Block(lang, "\n".join(body), "\n".join(prose)))
            lang, prose = None, []
        elif lang is not None:
            body.append(line)
        else:
            prose.append(line)
    return found


def replace_in_readme(old: Block, new_body: str) -> None:
    """Write ``new_body`` over ``old``'s body (update mode)."""
    text = README.read_text()
    fence = f"```{old.lang}\n{old.body}\n```" if old.body else f"```{old.lang}\n```"
    assert text.count(fence) == 1, f"not unique in README.md: {fence[:80]}"
    README.write_text(text.replace(fence, f"```{old.lang}\n{new_body}\n```"))


def sessions(block: Block) -> list[tuple[str, str]]:
    """A console block's (command, what it printed) pairs."""
    pairs: list[tuple[str, list[str]]] = []
    for line in block.body.splitlines():
        if line.startswith("$ "):
            pairs.append((line[2:], []))
        else:
            assert pairs, f"output before any command: {line}"
            pairs[-1][1].append(line)
    return [(command, "\n".join(output)) for command, output in pairs]


def shell_env(tmp: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TURNCHECK_")}
    return {
        **clean,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{clean.get('PATH', '/usr/bin:/bin')}",
        "COLUMNS": str(COLUMNS),
        "PYTHONIOENCODING": "utf-8",
        "TURNCHECK_RETENTION_DAYS": "36500",
        "HOME": str(tmp),
    }


def run(command: str, cwd: Path) -> str:
    """What the command prints to a terminal: standard output and error, in order."""
    done = subprocess.run(
        ["sh", "-c", command],
        cwd=cwd,
        env=shell_env(cwd),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
    )
    return "\n".join(line.rstrip() for line in done.stdout.rstrip("\n").splitlines())


def json_values(text: str) -> list[Any] | None:
    """The JSON documents ``text`` holds one after another, or None when it is not JSON."""
    decoder, values, at = json.JSONDecoder(), [], 0
    text = text.strip()
    while at < len(text):
        try:
            value, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            return None
        values.append(value)
        while at < len(text) and text[at].isspace():
            at += 1
    return values or None


def stable(value: Any) -> Any:
    """``value`` with what varies between runs replaced: the times results were stored."""
    if isinstance(value, list):
        return [stable(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key in VARYING_KEYS and isinstance(item, str):
            item = "<time>"
        out[key] = stable(item)
    return out


def stable_text(text: str) -> str:
    text = LOG_TIME.sub("<time> ", "\n".join(line.rstrip() for line in text.splitlines()))
    return BACKTEST_SPEED.sub(" in <time> (<speed> turns/s", text)


def layout(value: Any, indent: int = 0, width: int = 96) -> str:
    """JSON as the README writes it: what fits on a line stays on it, and the members of
    what does not are packed onto as few lines as fit, nested ones aligned."""
    flat = json.dumps(value, ensure_ascii=False)
    if indent + len(flat) <= width or not isinstance(value, dict | list) or not value:
        return flat
    inner = indent + 1
    if isinstance(value, list):
        parts = [layout(v, inner, width) for v in value]
        opening, closing = "[", "]"
    else:
        parts = []
        for key, item in value.items():
            head = json.dumps(key) + ": "
            parts.append(head + layout(item, inner + len(head), width))
        opening, closing = "{", "}"
    lines: list[str] = []
    line = ""
    for n, part in enumerate(parts):
        piece = part + ("," if n < len(parts) - 1 else closing)
        if "\n" in piece or (line and inner + len(line) + 1 + len(piece) > width):
            lines += [line] if line else []
            line = ""
        if "\n" in piece:
            lines.append(piece)
        else:
            line = f"{line} {piece}" if line else piece
    lines += [line] if line else []
    return opening + ("\n" + " " * inner).join(lines)


def assert_printed(command: str, expected: str, actual: str) -> None:
    expected_json, actual_json = json_values(expected), json_values(actual)
    if expected_json is not None and actual_json is not None:
        assert stable(expected_json) == stable(actual_json), f"$ {command}\n{actual}"
    else:
        assert stable_text(expected) == stable_text(actual), f"$ {command}\n{actual}"


def printed_as_readme(actual: str) -> str:
    """``actual`` as the README shows it: JSON laid out to fit, anything else as printed."""
    values = json_values(actual)
    return actual if values is None else "\n".join(layout(v) for v in values)


def check_console(block: Block, printed: list[str]) -> None:
    """Compare what the block's commands printed with the block (or, updating, rewrite it)."""
    lines = []
    for (command, expected), actual in zip(sessions(block), printed, strict=True):
        lines += [f"$ {command}", printed_as_readme(actual)]
        if not UPDATE:
            assert_printed(command, expected, actual)
    if UPDATE:
        replace_in_readme(block, "\n".join(line for line in lines if line))


def run_console(block: Block, cwd: Path) -> None:
    check_console(block, [run(command, cwd) for command, _ in sessions(block)])


@pytest.fixture(scope="module")
def examples_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh folder holding a copy of examples/, as a clone has it."""
    folder = tmp_path_factory.mktemp("readme")
    shutil.copytree(ROOT / "examples", folder / "examples")
    return folder


def _first_commands() -> tuple[Block, Block]:
    first = blocks()
    [index] = [i for i, b in enumerate(first) if b.lang == "sh" and "pip install -e ." in b.body]
    return first[index], first[index + 1]


@dataclass(frozen=True)
class FirstRun:
    folder: Path
    printed: list[str]
    """What each command of the first console block printed, in order."""


@pytest.fixture(scope="module")
def first_run(examples_dir: Path) -> FirstRun:
    """The folder once the README's first commands ran in it (pip aside)."""
    _, block = _first_commands()
    return FirstRun(examples_dir, [run(command, examples_dir) for command, _ in sessions(block)])


@pytest.fixture
def stored(first_run: FirstRun) -> Path:
    return first_run.folder


def test_the_first_command_makes_a_virtualenv_and_runs_what_the_readme_shows() -> None:
    """A system Python that refuses `pip install` gets a virtualenv first; the commands after
    pip are the ones whose output the README shows next."""
    command, printed = _first_commands()
    venv, chain = command.body.splitlines()
    assert venv == "python3 -m venv .venv && . .venv/bin/activate"
    steps = [step.strip() for step in chain.split("&&")]
    assert steps[0] == "pip install -e ."
    assert printed.lang == "console"
    assert [c for c, _ in sessions(printed)] == steps[1:]


def test_the_first_commands_print_what_the_readme_shows(first_run: FirstRun) -> None:
    """`turncheck run`, `pass-rates` and `results t-1004` on the examples, as shown."""
    _, block = _first_commands()
    check_console(block, first_run.printed)


def test_every_other_console_example_prints_what_the_readme_shows(
    stored: Path, tmp_path: Path
) -> None:
    """`turncheck check` on an example turn, and the refusal of a broken example check."""
    _, first = _first_commands()
    others = [b for b in blocks() if b.lang == "console" and b != first]
    assert others
    for block in others:
        broken = BROKEN_PATTERN.search(block.before)
        if broken is None:
            run_console(block, stored)
            continue
        folder = tmp_path / broken["check"]
        (folder / "examples").mkdir(parents=True)
        checks = (ROOT / "examples" / "checks.yaml").read_text()
        at = checks.index(f"- name: {broken['check']}\n")
        line = re.compile(r"^(\s+pattern: ).*$", re.M).search(checks, at)
        assert line, broken["check"]
        edited = checks[: line.start(1)] + line[1] + f"'{broken['pattern']}'" + checks[line.end() :]
        (folder / "examples" / "checks.yaml").write_text(edited)
        (folder / "examples" / "turns.jsonl").write_bytes(
            (ROOT / "examples" / "turns.jsonl").read_bytes()
        )
        run_console(block, folder)


def _json_block_after(heading: str) -> Block:
    section = README.read_text().split(heading, 1)[1]
    body = section.split("```json\n", 1)[1].split("\n```", 1)[0]
    [block] = [b for b in blocks() if b.lang == "json" and b.body == body]
    return block


def test_the_event_example_is_the_one_the_examples_put_in_the_outbox(stored: Path) -> None:
    """The `response.check_failed` the README shows is stored for that turn and check."""
    block = _json_block_after("### `response.check_failed`")
    [shown] = json_values(block.body) or [None]
    data = shown["data"]
    with sqlite3.connect(stored / ".turncheck" / "turncheck.db") as db:
        payloads = [json.loads(p) for (p,) in db.execute("SELECT payload FROM outbox")]
    [event] = [
        e
        for e in payloads
        if (e["data"]["turn_id"], e["data"]["check"]) == (data["turn_id"], data["check"])
    ]
    if UPDATE:
        replace_in_readme(block, layout(event))
    else:
        assert stable(shown) == stable(event), json.dumps(event)


def _api_examples() -> Iterator[tuple[str, Block]]:
    every = blocks()
    for curl, answer in itertools.pairwise(every):
        if curl.lang == "sh" and curl.body.startswith("curl "):
            assert answer.lang == "json", curl.body
            [url] = re.findall(r"'(http[^']+)'", curl.body)
            yield url, answer


async def _answers(database: Path, urls: list[str]) -> list[Any]:
    url = f"sqlite+aiosqlite:///{database}"
    settings = Settings(database_url=url, api_token=TOKEN, kafka_bootstrap=None)
    store = Store.open(url, events_topic=settings.topic_events)
    try:
        app = create_app(settings, store)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            answers = []
            for full in urls:
                parts = urlsplit(full)
                path = f"{parts.path}?{parts.query}" if parts.query else parts.path
                response = await client.get(path, headers={"Authorization": f"Bearer {TOKEN}"})
                assert response.status_code == 200, response.text
                answers.append(response.json())
            return answers
    finally:
        await store.close()


def test_the_api_examples_answer_what_the_readme_shows(stored: Path) -> None:
    """Each `curl` of the HTTP API section, asked of the examples' store, answers as shown."""
    examples = list(_api_examples())
    assert len(examples) >= 2
    answers = asyncio.run(
        _answers(stored / ".turncheck" / "turncheck.db", [u for u, _ in examples])
    )
    for (url, block), answer in zip(examples, answers, strict=True):
        if UPDATE:
            replace_in_readme(block, layout(answer))
        else:
            [shown] = json_values(block.body) or [None]
            assert stable(shown) == stable(answer), f"{url}\n{json.dumps(answer)}"
