"""An agent that redacts personal data (the PII recording tests run it through the CLI): the
user's message and the model's answer carry an email address and a card number, and so does
a tool result."""

from __future__ import annotations

from engine.agents import create_agent
from engine.messages import AIMessage
from engine.middleware import PIIMiddleware
from engine.models import ScriptedChatModel
from engine.tools import tool

EMAIL = "kim.pii-probe@home.example"
CARD = "4111 1111 1111 1111"
INPUT = f"I am {EMAIL}, my card is {CARD}"


@tool
def billing(account: str) -> str:
    """Look up the billing details of an account."""
    return f"card on file: {CARD}, receipts to {EMAIL}"


def build() -> object:
    model = ScriptedChatModel(
        [
            AIMessage(
                content="", tool_calls=[{"name": "billing", "args": {"account": "a1"}, "id": "b1"}]
            ),
            AIMessage(content=f"Done: receipts go to {EMAIL}, card {CARD}."),
        ]
    )
    return create_agent(
        model,
        tools=[billing],
        middleware=[
            PIIMiddleware("email", apply_to_output=True, apply_to_tool_results=True),
            PIIMiddleware(
                "credit_card", strategy="mask", apply_to_output=True, apply_to_tool_results=True
            ),
        ],
        name="billing_agent",
    )


agent = build()
