"""The shipped example script checks (examples/script-checks.yaml) load, and each decides
the turns it is written for: failing what it is about, passing the rest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.factories import make_turn
from turncheck.worker.checks import CheckSet, Verdict, load_checks
from turncheck.worker.checks.result import CheckResult
from turncheck.worker.pipeline.evaluate import evaluate

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture(scope="module")
def checks() -> CheckSet:
    return load_checks([EXAMPLES / "script-checks.yaml"])


def result(checks: CheckSet, name: str, output: str, **turn: Any) -> CheckResult:
    [found] = [
        r for r in evaluate(make_turn(output=output, **turn), checks) if r.check.name == name
    ]
    return found


def user(*texts: str) -> dict[str, list[dict[str, str]]]:
    return {"messages": [{"role": "user", "content": t} for t in texts]}


def stock_tool(*products: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "tool_calls": [{"id": "c1", "name": "search_stock", "arguments": {}}],
            "tool_results": [
                {"call_id": "c1", "name": "search_stock", "content": {"products": list(products)}}
            ],
        }
    ]


def test_the_examples_load_for_the_example_agent(checks: CheckSet) -> None:
    """The file loads beside turns.jsonl's agent, with its three script checks."""
    agent = json.loads((EXAMPLES / "turns.jsonl").read_text().splitlines()[0])["agent"]["id"]
    assert [c.name for c in checks.by_agent[agent]] == [
        "no-competitors-script",
        "trade-in-quote-without-details",
        "sold-out-offered",
    ]


def test_every_mention_of_a_competitor_is_marked(checks: CheckSet) -> None:
    """Each mention, in any case, is a span; a reply naming none passes."""
    text = "HelpCo is fine, and helpco again, or Acme Support."
    found = result(checks, "no-competitors-script", text)
    assert found.verdict is Verdict.FAILED
    assert [text[s.start : s.end] for s in found.spans] == ["HelpCo", "helpco", "Acme Support"]
    assert result(checks, "no-competitors-script", "We help.").verdict is Verdict.PASSED


QUOTE = "We can offer you $240 as a trade-in credit for it."


def test_a_trade_in_quote_before_the_details_fails(checks: CheckSet) -> None:
    """A quote while the battery's health was never asked or given fails, quote marked."""
    found = result(
        checks,
        "trade-in-quote-without-details",
        QUOTE,
        input=user("Trade in my iPhone 13, 128 GB?"),
    )
    assert found.verdict is Verdict.FAILED
    [span] = found.spans
    assert QUOTE[span.start : span.end].startswith("We can offer you $240")


def test_a_trade_in_quote_after_the_details_passes(checks: CheckSet) -> None:
    """Model, capacity and battery known from the thread: the quote passes."""
    history = [
        {"role": "assistant", "content": "Which model, what storage capacity, and battery health?"}
    ]
    turn = {"history": history, "input": user("iPhone 13, 128 GB, battery at 91%.")}
    assert result(checks, "trade-in-quote-without-details", QUOTE, **turn).verdict is Verdict.PASSED


def test_a_reply_without_a_quote_passes_whatever_was_asked(checks: CheckSet) -> None:
    """Asking for the details is not a quote."""
    ask = "Which model is it, how much storage, and what is the battery health?"
    found = result(checks, "trade-in-quote-without-details", ask, input=user("Trade in?"))
    assert found.verdict is Verdict.PASSED


def test_a_sold_out_product_offered_as_available_fails(checks: CheckSet) -> None:
    """The tool says stock 0; the reply says it is in stock: failed, the product marked."""
    text = "Good news: the Pixel 8 is in stock and ships today."
    rounds = stock_tool({"name": "Pixel 8", "stock": 0}, {"name": "Pixel 9", "stock": 4})
    found = result(checks, "sold-out-offered", text, rounds=rounds)
    assert found.verdict is Verdict.FAILED
    assert [text[s.start : s.end] for s in found.spans] == ["Pixel 8"]


@pytest.mark.parametrize(
    "text",
    [
        "Sorry, the Pixel 8 is sold out, but the Pixel 9 is in stock.",
        "The Pixel 9 is available today.",
    ],
)
def test_a_sold_out_product_said_to_be_sold_out_passes(checks: CheckSet, text: str) -> None:
    """Saying a sold-out product is gone, or offering one in stock, passes."""
    rounds = stock_tool({"name": "Pixel 8", "status": "Sold out"}, {"name": "Pixel 9", "stock": 4})
    assert result(checks, "sold-out-offered", text, rounds=rounds).verdict is Verdict.PASSED
