"""Structured output: the model must answer with a validated ContactCard; its first answer fails validation and is sent back.

Offline on the scripted model.  ``create_agent(response_format=ToolStrategy(ContactCard))``
turns the pydantic schema into a tool the model has to call.  The user pastes an email
signature; the model looks the company up, then answers:

    model   lookup_company("Initech")               -> a tool call like any other
    tools   lookup_company                          -> "Initech: software, Austin TX"
    model   ContactCard(name=..., email="bill at initech")   -> invalid: not an email address;
            the error goes back to the model as the tool's result (handle_errors)
    model   ContactCard(... valid ...)              -> state["structured_response"] is set

Inspect ``structured_response`` in the State dock at the end.  Set ``STEPWISE_MODEL`` to run it
on a real model instead.
"""

from __future__ import annotations

import os
import re
from typing import Any

from pydantic import BaseModel, Field, field_validator

from engine.agents import ToolStrategy, create_agent
from engine.checkpoint.memory import InMemorySaver
from engine.graph.compiled import CompiledStateGraph
from engine.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from engine.models import ScriptedChatModel, init_chat_model
from engine.tools import BaseTool, tool

__all__ = ["INPUT", "ContactCard", "agent", "build_agent", "reply"]

INPUT = (
    "Make a contact card from this signature:\n"
    "Bill Lumbergh | Division VP | Initech | bill.lumbergh@initech.example | +1 512 555 0100"
)
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class ContactCard(BaseModel):
    """A person's contact details, extracted from text."""

    name: str = Field(description="full name")
    title: str = Field(description="job title")
    company: str
    industry: str = Field(description="the company's industry, from lookup_company")
    email: str
    phone: str | None = None

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        if not EMAIL.match(value):
            raise ValueError(f"{value!r} is not an email address")
        return value


def make_tools() -> list[BaseTool]:
    @tool
    def lookup_company(name: str) -> str:
        """Look a company up: its industry and where it is based.

        Args:
            name: the company's name
        """
        known = {"initech": "Initech: software, Austin TX"}
        return known.get(name.lower(), f"{name}: unknown")

    return [lookup_company]


def _card(email: str) -> dict[str, Any]:
    return {
        "name": "Bill Lumbergh",
        "title": "Division VP",
        "company": "Initech",
        "industry": "software",
        "email": email,
        "phone": "+1 512 555 0100",
    }


def reply(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> AIMessage:
    """The scripted model's policy: look up, answer sloppily once, then answer correctly."""
    last = messages[-1] if messages else None
    card_tool = ContactCard.__name__  # ToolStrategy names the tool after the schema
    if isinstance(last, HumanMessage):
        return AIMessage(
            content="",
            tool_calls=[
                {"name": "lookup_company", "args": {"name": "Initech"}, "id": "call_lookup"}
            ],
        )
    if isinstance(last, ToolMessage) and last.name == "lookup_company":
        args = _card("bill.lumbergh at initech")
        return AIMessage(
            content="", tool_calls=[{"name": card_tool, "args": args, "id": "call_card_1"}]
        )
    args = _card("bill.lumbergh@initech.example")
    return AIMessage(
        content="", tool_calls=[{"name": card_tool, "args": args, "id": "call_card_2"}]
    )


def _model() -> Any:
    spec = os.environ.get("STEPWISE_MODEL")
    if spec:
        return init_chat_model(spec, base_url=os.environ.get("STEPWISE_BASE_URL") or None)
    return ScriptedChatModel([reply] * 50, name="scripted-extractor")


def build_agent(*, model: Any = None) -> CompiledStateGraph:
    return create_agent(
        model or _model(),
        make_tools(),
        system_prompt="Extract contact cards. Look the company up first.",
        response_format=ToolStrategy(ContactCard),
        checkpointer=InMemorySaver(),
        name="structured_output",
    )


agent = build_agent()
