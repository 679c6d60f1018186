"""The cases from the product page (seed 000) and the false alarms of seed 004."""

from tests.checks.facts.turns import check, spans_text, support_turn, tool_round
from turncheck.worker.checks.result import Span, Verdict

ORDER_LOOKUP = tool_round(
    "lookup_order",
    {"order_id": "A-88213", "total": 42.50, "status": "packed"},
    {"order_id": "A-88213"},
)


def test_an_invented_total_fails_on_the_amount_only() -> None:
    """The tool said $42.50; "$45.00" fails with its span, the order ID passes."""
    turn = support_turn("Your order A-88213 for $45.00 ships Friday.", rounds=[ORDER_LOOKUP])
    outcome = check(turn)
    assert outcome.verdict is Verdict.FAILED
    assert outcome.reason == "An amount is not supported by the conversation."
    assert outcome.spans == (Span("output.text", 23, 29, "amount"),)
    assert spans_text(turn, outcome) == ["$45.00"]


def test_the_total_the_tool_returned_passes() -> None:
    """The same reply with the tool's $42.50 passes."""
    turn = support_turn("Your order A-88213 for $42.50 ships Friday.", rounds=[ORDER_LOOKUP])
    assert check(turn).verdict is Verdict.PASSED


def test_a_figure_the_customer_gave_passes() -> None:
    """Customer: "I have 500k"; the bot's "with 500k" came from the customer, not a tool."""
    turn = support_turn(
        "With 500k you can get the Premium plan at 380,000.",
        customer="I have 500k, what can I get?",
        rounds=[tool_round("plans", [{"name": "Premium", "price": 380000}])],
    )
    assert check(turn).verdict is Verdict.PASSED


def test_a_figure_quoted_two_messages_earlier_passes() -> None:
    """The bot quoted a phone and a price earlier in the thread and repeats them now."""
    turn = support_turn(
        "As I mentioned, the store line is (555) 010-2030 and the repair is $129.",
        customer="Sorry, what was the number again?",
        history=[
            {"role": "user", "content": "How much to fix my screen?"},
            {"role": "assistant", "content": "A screen repair is $129. Call 555-010-2030 to book."},
            {"role": "user", "content": "ok thanks"},
            {"role": "assistant", "content": "Anything else?"},
        ],
    )
    assert check(turn).verdict is Verdict.PASSED


def test_a_number_in_words_matches_its_digits() -> None:
    """Customer: "nine hundred"; the bot's "900" is the same number."""
    turn = support_turn(
        "Sure, a budget of $900 covers the Standard desk.",
        customer="My budget is nine hundred dollars.",
    )
    assert check(turn).verdict is Verdict.PASSED
