"""``PIIMiddleware``: find personal data in the conversation and redact, mask, hash or block it.

One instance handles one PII type (built-in: ``email``, ``credit_card``, ``ip``,
``mac_address``, ``url``; or any name with a custom ``detector``, a regex or a callable) with one
strategy (see ``engine.middleware.redaction``). Where it looks:

- ``apply_to_input`` (default on): before each model call, the last ``HumanMessage``;
- ``apply_to_tool_results``: before each model call, the ``ToolMessage``s after the last
  ``AIMessage`` (the results the model is about to read);
- ``apply_to_output``: after each model call, the last ``AIMessage``'s content.

Rewritten messages keep their id (so they replace the originals in the state) and every other
field; list content keeps its blocks, only their text is rewritten. ``block`` raises
``PIIDetectionError`` instead. The middleware's name is ``PIIMiddleware[<type>]`` so several
instances can be stacked.

Every rewrite is reported as ``middleware.action`` ``pii_redacted`` and every block as
``pii_blocked``; the detail says where (input / tool_result / output), which message, how many
matches and their spans, never the values themselves.

The raw value never touches disk either: ``pii_text_filter(graph)`` is the same rewriting as a
text filter, which the session recorder applies to every event, run row and checkpoint it
writes, and the CLI to every line it prints (``block`` rules redact there).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from engine.events import MiddlewareAction
from engine.graph.runtime import Runtime
from engine.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from engine.middleware.pii_stream import PIIStreamFactory
from engine.middleware.redaction import (
    PIIDetectionError,
    PIIMatch,
    RedactionRule,
    RedactionStrategy,
    ResolvedRedactionRule,
    apply_strategy,
    detect_credit_card,
    detect_email,
    detect_ip,
    detect_mac_address,
    detect_url,
)
from engine.middleware.retry_policy import Emit, Steps, drive_async, drive_sync
from engine.middleware.types import AgentMiddleware, hook_config

__all__ = [
    "PIIDetectionError",
    "PIIMatch",
    "PIIMiddleware",
    "TextFilter",
    "detect_credit_card",
    "detect_email",
    "detect_ip",
    "detect_mac_address",
    "detect_url",
    "pii_middleware_of",
    "pii_text_filter",
]

Where = Literal["input", "tool_result", "output"]
Content = str | list[Any]


class PIIMiddleware(AgentMiddleware):
    """Detect one kind of personal data and handle it with one strategy.

    Args:
        pii_type: a built-in type (``email``, ``credit_card``, ``ip``, ``mac_address``,
            ``url``) or a custom name (then ``detector`` is required).
        strategy: ``redact`` (default), ``mask``, ``hash`` or ``block``.
        detector: a regex, or a callable ``(text) -> [PIIMatch]``; None = the built-in one.
        apply_to_input: scan the last user message before each model call.
        apply_to_output: scan the last AI message after each model call.
        apply_to_tool_results: scan the tool results the next model call will read.
    """

    def __init__(
        self,
        pii_type: str,
        *,
        strategy: Literal["block", "redact", "mask", "hash"] = "redact",
        detector: Callable[[str], list[PIIMatch]] | str | None = None,
        apply_to_input: bool = True,
        apply_to_output: bool = False,
        apply_to_tool_results: bool = False,
    ) -> None:
        rule = RedactionRule(pii_type=pii_type, strategy=strategy, detector=detector).resolve()
        self.rule: ResolvedRedactionRule = rule
        self.pii_type = rule.pii_type
        self.strategy: RedactionStrategy = rule.strategy
        self.detector = rule.detector
        self.apply_to_input = apply_to_input
        self.apply_to_output = apply_to_output
        self.apply_to_tool_results = apply_to_tool_results
        self.tools = []
        # what the model writes or a tool returns is on a v3 stream before the hooks see it
        self.transformers = (
            (PIIStreamFactory(rule),) if apply_to_output or apply_to_tool_results else ()
        )

    @property
    def name(self) -> str:
        return f"{type(self).__name__}[{self.pii_type}]"

    # -- scanning ------------------------------------------------------------------------

    def _scan(self, content: Content) -> tuple[Content, list[PIIMatch]]:
        """``content`` rewritten (same shape) and the matches found; ``block`` raises."""
        if isinstance(content, str):
            found = self.detector(content)
            if not found:
                return content, []
            return apply_strategy(content, found, self.strategy), found
        blocks: list[Any] = []
        found_all: list[PIIMatch] = []
        for block in content:
            text = block if isinstance(block, str) else _block_text(block)
            found = self.detector(text) if text else []
            if not found:
                blocks.append(block)
                continue
            assert text is not None
            new_text = apply_strategy(text, found, self.strategy)
            blocks.append(new_text if isinstance(block, str) else {**block, "text": new_text})
            found_all.extend(found)
        return (blocks, found_all) if found_all else (content, [])

    def _handle(self, message: BaseMessage, where: Where, index: int) -> Steps[BaseMessage | None]:
        """Scan one message: a rewritten copy (or None if clean), with its event."""
        content: Any = message.content
        if not content:
            return None
        try:
            new_content, found = self._scan(content)
        except PIIDetectionError as exc:
            yield Emit(
                MiddlewareAction, self._detail("pii_blocked", where, message, index, exc.matches)
            )
            raise
        if not found:
            return None
        yield Emit(MiddlewareAction, self._detail("pii_redacted", where, message, index, found))
        return message.model_copy(update={"content": new_content})

    def _detail(
        self,
        action: str,
        where: Where,
        message: BaseMessage,
        index: int,
        found: Sequence[PIIMatch],
    ) -> dict[str, Any]:
        return {
            "middleware": self.name,
            "action": action,
            "detail": {
                "pii_type": self.pii_type,
                "strategy": self.strategy,
                "where": where,
                "message_index": index,
                "message_id": message.id,
                "count": len(found),
                "spans": [[m["start"], m["end"]] for m in found],
            },
        }

    # -- hooks ---------------------------------------------------------------------------

    def _before(self, state: Any) -> Steps[dict[str, Any] | None]:
        if not (self.apply_to_input or self.apply_to_tool_results):
            return None
        messages: list[BaseMessage] = list(state.get("messages") or [])
        if not messages:
            return None
        updated = list(messages)
        changed = False
        if self.apply_to_input:
            i = _last_index(messages, HumanMessage)
            if i is not None:
                new = yield from self._handle(messages[i], "input", i)
                if new is not None:
                    updated[i], changed = new, True
        if self.apply_to_tool_results:
            last_ai = _last_index(messages, AIMessage)
            if last_ai is not None:
                for i in range(last_ai + 1, len(messages)):
                    if not isinstance(messages[i], ToolMessage):
                        continue
                    new = yield from self._handle(messages[i], "tool_result", i)
                    if new is not None:
                        updated[i], changed = new, True
        return {"messages": updated} if changed else None

    def _after(self, state: Any) -> Steps[dict[str, Any] | None]:
        if not self.apply_to_output:
            return None
        messages: list[BaseMessage] = list(state.get("messages") or [])
        i = _last_index(messages, AIMessage)
        if i is None:
            return None
        new = yield from self._handle(messages[i], "output", i)
        if new is None:
            return None
        updated = list(messages)
        updated[i] = new
        return {"messages": updated}

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return drive_sync(self._before(state))

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return await drive_async(self._before(state))

    def after_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return drive_sync(self._after(state))

    async def aafter_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return await drive_async(self._after(state))


def _block_text(block: Any) -> str | None:
    text = block.get("text") if isinstance(block, dict) else None
    return text if isinstance(text, str) else None


def _last_index(messages: Sequence[BaseMessage], kind: type[BaseMessage]) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], kind):
            return i
    return None


# -- what is recorded and printed -----------------------------------------------------------


TextFilter = Callable[[str], str]


def _candidates(node: Any) -> list[Any]:
    """Objects a graph node may hold its middleware in (our hook nodes, LangGraph's
    ``RunnableCallable`` of a bound hook method)."""
    found = []
    for part in (node, getattr(node, "fn", None), getattr(node, "bound", None)):
        if part is None:
            continue
        for inner in (part, getattr(part, "func", None), getattr(part, "afunc", None)):
            if inner is None:
                continue
            found += [inner, getattr(inner, "middleware", None), getattr(inner, "__self__", None)]
    return [f for f in found if f is not None]


def _is_pii_middleware(obj: Any) -> bool:
    return (
        isinstance(getattr(obj, "pii_type", None), str)
        and isinstance(getattr(obj, "strategy", None), str)
        and callable(getattr(obj, "detector", None))
        and hasattr(obj, "apply_to_input")
    )


def pii_middleware_of(graph: Any) -> list[Any]:
    """The PII middleware (ours, or LangChain's in an attached app) of ``graph``'s nodes."""
    out: list[Any] = []
    seen: set[int] = set()
    for g in (graph, getattr(graph, "real", None)):
        nodes = getattr(g, "nodes", None)
        if not isinstance(nodes, dict):
            continue
        for node in nodes.values():
            for obj in _candidates(node):
                if id(obj) not in seen and _is_pii_middleware(obj):
                    seen.add(id(obj))
                    out.append(obj)
    return out


def pii_text_filter(graph: Any) -> TextFilter | None:
    """The rewriting ``graph``'s PII middleware do, as a filter for text that is recorded or
    printed: the same detectors and strategies (``block`` redacts), so a raw value the agent
    redacts never reaches a session file, an export or the terminal.  None: no such middleware."""
    rules: list[tuple[Callable[[str], list[PIIMatch]], RedactionStrategy]] = []
    for mw in pii_middleware_of(graph):
        strategy = "redact" if mw.strategy == "block" else mw.strategy
        rules.append((mw.detector, strategy))
    if not rules:
        return None

    def redact(text: str) -> str:
        for detect, strategy in rules:
            try:
                found = detect(text)
            except Exception:  # a detector that fails on odd text: the other rules still run
                continue
            if found:
                text = apply_strategy(text, list(found), strategy)
        return text

    return redact
