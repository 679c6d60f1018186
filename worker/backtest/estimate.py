"""What a judged backtest would ask, said before it asks anything: the turns in range,
each judged check's sample, how many judgements that makes (capped), their input tokens
(the prompts the checks would send for the first sampled turns, in characters over 4: the
project has no tokenizer) and at most how many output tokens (the reply's allowance), and
the cost when the judges file gives prices (``input_price_per_million``,
``output_price_per_million``). It reads the first ``PROBE_TURNS`` turns of the range and
asks no judge.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from turncheck.worker.backtest.judging import (
    DEFAULT_MAX_JUDGEMENTS,
    JudgeOptions,
    judges_for,
    plan_for_draft,
)
from turncheck.worker.backtest.request import BacktestRequest
from turncheck.worker.errors import InvalidTurn
from turncheck.worker.judge.config import JudgeEndpoint
from turncheck.worker.judge.kinds import CompiledJudged
from turncheck.worker.judge.plan import JudgeJob
from turncheck.worker.settings import Settings
from turncheck.worker.turns.decode import decode_turn
from turncheck.worker.turns.structs import Turn

PROBE_TURNS = 500
"""Turns read before a run to estimate it."""
MEASURED_PROMPTS = 20
"""Prompts rendered per check for the token estimate."""
CHARS_PER_TOKEN = 4


@dataclass(frozen=True, slots=True)
class CheckEstimate:
    agent_id: str
    check: str
    mode: str
    sample_rate: float
    sampled: int
    """Of the turns probed, how many the check would have judged."""
    judgements: int
    """Expected over the whole range, before the cap."""
    input_tokens_each: float
    output_tokens_each: float
    cost_each: float | None


@dataclass(frozen=True, slots=True)
class JudgeEstimate:
    turns_in_range: int | None
    turns_probed: int
    max_judgements: int
    checks: tuple[CheckEstimate, ...] = field(default=())

    @property
    def uncapped(self) -> int:
        return sum(c.judgements for c in self.checks)

    @property
    def judgements(self) -> int:
        return min(self.uncapped, self.max_judgements)

    def _total(self, each: Iterable[float]) -> float:
        scale = self.judgements / self.uncapped if self.uncapped else 0.0
        return sum(n * c.judgements * scale for n, c in zip(each, self.checks, strict=True))

    @property
    def input_tokens(self) -> int:
        return round(self._total(c.input_tokens_each for c in self.checks))

    @property
    def output_tokens(self) -> int:
        return round(self._total(c.output_tokens_each for c in self.checks))

    @property
    def cost(self) -> float | None:
        costs = [c.cost_each for c in self.checks if c.judgements]
        if any(cost is None for cost in costs):
            return None
        return self._total(c.cost_each or 0.0 for c in self.checks)

    def as_dict(self) -> dict[str, Any]:
        cost = self.cost
        return {
            "turns_in_range": self.turns_in_range,
            "turns_probed": self.turns_probed,
            "checks": [
                {
                    "agent_id": c.agent_id,
                    "check": c.check,
                    "mode": c.mode,
                    "sample_rate": c.sample_rate,
                    "judgements": c.judgements,
                }
                for c in self.checks
            ],
            "judgements": self.judgements,
            "max_judgements": self.max_judgements,
            "capped": self.uncapped > self.max_judgements,
            "input_tokens": self.input_tokens,
            "output_tokens_at_most": self.output_tokens,
            "cost": None if cost is None else round(cost, 4),
        }

    def lines(self) -> list[str]:
        """What the command line prints before asking to go on."""
        turns = "unknown" if self.turns_in_range is None else f"{self.turns_in_range:,}"
        lines = [f"turns in range: {turns} (first {self.turns_probed:,} read to estimate)"]
        for c in self.checks:
            sample = "every turn" if c.mode != "background" else f"sample {c.sample_rate:g}"
            lines.append(f"  {c.agent_id}/{c.check}: {sample}, about {c.judgements:,} judgements")
        if self.uncapped > self.max_judgements:
            asked = (
                f"judgements: {self.judgements:,}, the cap (--max-judgements); "
                f"about {self.uncapped:,} without it"
            )
        else:
            asked = f"judgements: about {self.judgements:,} (cap {self.max_judgements:,})"
        lines.append(asked)
        lines.append(f"tokens: about {self.input_tokens:,} in, at most {self.output_tokens:,} out")
        cost = self.cost
        lines.append(
            "cost: unknown (no prices in TURNCHECK_JUDGES)"
            if cost is None
            else f"cost: about {cost:,.4f} (at the judges file's prices)"
        )
        return lines


@dataclass(slots=True)
class _Probe:
    agent_id: str
    check: CompiledJudged
    sampled: int = 0
    measured: int = 0
    input_tokens: float = 0.0
    output_tokens: float = 0.0
    cost: float | None = 0.0


def estimate(request: BacktestRequest, settings: Settings) -> JudgeEstimate:
    """What judging ``request`` would ask; reads the first turns of its range, asks no
    judge. Blocks (runs its own event loop): call it in a thread from a loop."""
    options = request.judge
    cap = options.max_judgements if isinstance(options, JudgeOptions) else DEFAULT_MAX_JUDGEMENTS
    judges = judges_for(settings, request.draft)
    in_range, turns, whole = asyncio.run(_probe(request, settings))
    probes: dict[tuple[str, str], _Probe] = {}
    for turn in turns:
        checks = request.draft.judged_for_agent(turn.agent.id, turn.agent.version)
        for check in checks:
            probes.setdefault((turn.agent.id, check.name), _Probe(turn.agent.id, check))
        for job in plan_for_draft(turn, checks, judges).jobs:
            probe = probes[turn.agent.id, job.check.name]
            probe.sampled += 1
            if probe.measured < MEASURED_PROMPTS:
                _measure(probe, job, judges[job.request.model])
    if whole:
        in_range = len(turns)  # the probe read the whole range
    found = []
    for (agent, _), probe in sorted(probes.items()):
        share = probe.sampled / len(turns) if turns else 0.0
        each = max(probe.measured, 1)
        found.append(
            CheckEstimate(
                agent_id=agent,
                check=probe.check.name,
                mode=probe.check.mode,
                sample_rate=probe.check.sample_rate,
                sampled=probe.sampled,
                judgements=round(share * (in_range if in_range is not None else len(turns))),
                input_tokens_each=probe.input_tokens / each,
                output_tokens_each=probe.output_tokens / each,
                cost_each=None if probe.cost is None else probe.cost / each,
            )
        )
    return JudgeEstimate(in_range, len(turns), cap, tuple(found))


def _measure(probe: _Probe, job: JudgeJob, endpoint: JudgeEndpoint) -> None:
    request = job.request
    tokens_in = (len(request.system) + len(request.user)) / CHARS_PER_TOKEN
    tokens_out = float(request.max_tokens)
    if endpoint.provider == "openai" and endpoint.is_reasoning(request.model):
        tokens_out += endpoint.reasoning_tokens  # thinking counts as output
    probe.measured += 1
    probe.input_tokens += tokens_in
    probe.output_tokens += tokens_out
    if probe.cost is not None:
        prices = (endpoint.input_price_per_million, endpoint.output_price_per_million)
        if prices[0] is None or prices[1] is None:
            probe.cost = None
        else:
            probe.cost += (tokens_in * prices[0] + tokens_out * prices[1]) / 1_000_000


async def _probe(
    request: BacktestRequest, settings: Settings
) -> tuple[int | None, list[Turn], bool]:
    """The number of messages in range (None: unknown), the first turns of it, and
    whether those are all of it."""
    from turncheck.worker.backtest import sources

    want = PROBE_TURNS if request.limit is None else min(PROBE_TURNS, request.limit)
    raw: list[bytes | None] = []
    if request.file is not None:
        in_range = _lines(request.file, request.limit)
        for batch in sources.file_batches(request.file, want):
            raw.extend(message.value for message in batch)
            break
    else:
        assert settings.kafka_bootstrap is not None
        ranges = await sources.plan_topic(
            settings.kafka_bootstrap,
            settings.topic_turns,
            request.partitions,
            request.since,
            request.until,
        )
        in_range = sum(r.size for r in ranges)
        if request.limit is not None:
            in_range = min(in_range, request.limit)
        # Closed on the way out, so its consumer stops at the break.
        batches = sources.topic_batches(
            settings.kafka_bootstrap, settings.topic_turns, ranges, want
        )
        async with contextlib.aclosing(batches):
            async for batch in batches:
                raw.extend(message.value for message in batch)
                if len(raw) >= want:
                    break
    return in_range, list(itertools.islice(_decoded(raw), want)), len(raw) < want


def _decoded(raw: Iterable[bytes | None]) -> Iterable[Turn]:
    for value in raw:
        with contextlib.suppress(InvalidTurn):
            yield decode_turn(value)


def _lines(path: Any, limit: int | None) -> int | None:
    """Non-blank lines of a turns file; None for standard input (it is read once)."""
    if str(path) == "-":
        return None
    with open(path, "rb") as stream:
        count = sum(1 for line in stream if line.strip())
    return count if limit is None else min(count, limit)


def estimate_json(request: BacktestRequest, settings: Settings) -> Mapping[str, Any]:
    """The estimate as the API shows it while the backtest is queued."""
    return estimate(request, settings).as_dict()
