"""Human in the loop: cancel_order, send_email and delete_file wait for your approval, each with its own allowed decisions.

Seed 001 section 7 (approving a cancel_order before it runs) and seed 004's
``HumanInTheLoopMiddleware`` configuration, offline on the scripted model.  The agent first
looks the order up (``lookup_order`` needs no approval), then asks to run three gated tools in
one turn, so one approval dialog lists them together:

    cancel_order   approve, edit, reject, respond   (``True``: every decision)
    send_email     approve, reject                  (seed 004)
    delete_file    approve, edit, reject            (seed 004)

The scripted model's last turn reports what happened to each call from the tool results it was
given, so approving, editing (the tool runs with your arguments), rejecting (the model reads
your reason) and responding (your message is the tool's result) all show in its answer.
"""

from __future__ import annotations

from typing import Any

from engine.agents import create_agent
from engine.checkpoint.base import BaseCheckpointSaver
from engine.checkpoint.memory import InMemorySaver
from engine.graph.compiled import CompiledStateGraph
from engine.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from engine.middleware.builtins import HumanInTheLoopMiddleware
from engine.models import ScriptedChatModel
from engine.tools import BaseTool, tool

__all__ = [
    "INPUT",
    "INTERRUPT_ON",
    "ORDER_ID",
    "Shop",
    "agent",
    "build_agent",
    "reply",
    "scripted_model",
]

ORDER_ID = "A-1042"
CUSTOMER = "lena.park@example.com"
EXPORT = f"exports/orders/{ORDER_ID}.csv"
INPUT = (
    f"Lena Park asked us to cancel order {ORDER_ID}. Cancel it, email her a confirmation, "
    "and delete the order's export file."
)

INTERRUPT_ON: dict[str, Any] = {
    "cancel_order": True,
    "send_email": {"allowed_decisions": ["approve", "reject"]},
    "delete_file": {"allowed_decisions": ["approve", "edit", "reject"]},
}


class Shop:
    """The little world the tools act on (in memory, so the scenario runs offline)."""

    def __init__(self) -> None:
        self.orders: dict[str, dict[str, Any]] = {
            ORDER_ID: {"customer": CUSTOMER, "status": "paid", "total": "129.90 EUR", "items": 3}
        }
        self.outbox: list[dict[str, str]] = []
        self.files: dict[str, str] = {EXPORT: "sku,qty\nLMP-2,1\nCBL-7,2\n"}
        self.calls: list[tuple[str, dict[str, Any]]] = []


def make_tools(shop: Shop) -> list[BaseTool]:
    @tool
    def lookup_order(order_id: str) -> dict[str, Any]:
        """Look an order up.

        Args:
            order_id: the order number, e.g. "A-1042"
        """
        shop.calls.append(("lookup_order", {"order_id": order_id}))
        if order_id not in shop.orders:
            raise KeyError(f"no order {order_id}")
        return {"order_id": order_id, **shop.orders[order_id]}

    @tool
    def cancel_order(order_id: str, reason: str = "") -> str:
        """Cancel an order and refund the customer.

        Args:
            order_id: the order number
            reason: why the order is cancelled (kept in the order history)
        """
        shop.calls.append(("cancel_order", {"order_id": order_id, "reason": reason}))
        order = shop.orders.get(order_id)
        if order is None:
            return f"No order {order_id}: nothing cancelled"
        order["status"] = "cancelled"
        return f"Order {order_id} cancelled ({reason or 'no reason given'}); refund of {order['total']} issued"

    @tool
    def send_email(to: str, subject: str, body: str) -> str:
        """Send an email.

        Args:
            to: the recipient's address
            subject: the subject line
            body: the message text
        """
        shop.calls.append(("send_email", {"to": to, "subject": subject, "body": body}))
        shop.outbox.append({"to": to, "subject": subject, "body": body})
        return f"Email sent to {to}"

    @tool
    def delete_file(path: str) -> str:
        """Delete a file.

        Args:
            path: the file's path
        """
        shop.calls.append(("delete_file", {"path": path}))
        if shop.files.pop(path, None) is None:
            return f"{path} does not exist"
        return f"Deleted {path}"

    return [lookup_order, cancel_order, send_email, delete_file]


def _gated_calls() -> list[dict[str, Any]]:
    return [
        {
            "name": "cancel_order",
            "args": {"order_id": ORDER_ID, "reason": "customer request"},
            "id": "call_cancel",
        },
        {
            "name": "send_email",
            "args": {
                "to": CUSTOMER,
                "subject": f"Your order {ORDER_ID} has been cancelled",
                "body": "Hi Lena,\n\nyour order has been cancelled and refunded. "
                "The refund reaches your account within 5 working days.\n\nBest regards",
            },
            "id": "call_email",
        },
        {"name": "delete_file", "args": {"path": EXPORT}, "id": "call_delete"},
    ]


def reply(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> AIMessage:
    """The scripted model's policy: look up, then act (three gated calls), then report."""
    last = messages[-1] if messages else None
    if isinstance(last, HumanMessage):
        return AIMessage(
            content=f"Let me look up order {ORDER_ID} first.",
            tool_calls=[
                {"name": "lookup_order", "args": {"order_id": ORDER_ID}, "id": "call_lookup"}
            ],
        )
    if isinstance(last, ToolMessage) and last.name == "lookup_order":
        return AIMessage(
            content="The order is paid and not shipped yet. I will cancel it, confirm by email "
            "and remove the export.",
            tool_calls=_gated_calls(),
        )
    results: list[ToolMessage] = []
    for m in reversed(messages):
        if not isinstance(m, ToolMessage):
            break
        results.append(m)
    lines = [
        f"- {m.name}: {'failed or not run' if m.status == 'error' else 'done'} - {m.text}"
        for m in reversed(results)
    ]
    return AIMessage(content="Here is what happened:\n" + "\n".join(lines))


def scripted_model() -> ScriptedChatModel:
    """The offline model: ``reply`` for every call (it reads the conversation, so it can be
    resumed, rewound and re-run)."""
    return ScriptedChatModel([reply] * 200, name="scripted-support")


def build_agent(
    *,
    model: Any = None,
    shop: Shop | None = None,
    checkpointer: BaseCheckpointSaver | None = None,
) -> CompiledStateGraph:
    """A fresh agent: the scripted model (or ``model``) over a fresh (or the given) ``Shop``."""
    return create_agent(
        model or scripted_model(),
        make_tools(shop or Shop()),
        system_prompt="You are a customer-support agent for an online shop.",
        middleware=[HumanInTheLoopMiddleware(INTERRUPT_ON)],
        checkpointer=checkpointer or InMemorySaver(),
        name="approval",
    )


agent = build_agent()
