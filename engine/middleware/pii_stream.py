"""``PIIMiddleware``'s stream side: keeping personal data off every surface of a v3 run.

The middleware's hooks rewrite the state; a v3 stream shows more than the state, earlier:
tokens as the model writes them, tool inputs and outputs, each step's values. When the
middleware scans model output or tool results, it registers ``PIIStreamTransformer`` (ahead of
the built-ins), which rewrites every event before anyone sees it:

- a whole message, a state snapshot, a tool event: every string in it, message contents and
  tool-call arguments included, rewritten by the middleware's strategy (copies: the state
  itself is the hooks' business);
- a streamed reply: text is released ``lookback`` characters behind what arrived, with the
  whole text so far rewritten first, so a value that is still being written never leaks
  half-way; tool-call arguments are held back and released, rewritten, with the last chunk.

Under ``block`` nothing is released before the reply is complete and clean; a match raises
``PIIDetectionError``, which ends the run and fails every projection.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.graph.run_stream import ProtocolEvent, StreamTransformer
from engine.messages import AIMessage, AIMessageChunk, BaseMessage
from engine.middleware.redaction import ResolvedRedactionRule, apply_strategy

__all__ = ["PIIStreamFactory", "PIIStreamTransformer"]

DEFAULT_LOOKBACK = 128


@dataclass
class _Reply:
    """What arrived of one streamed reply, and how much of its text went out."""

    text: str = ""
    released: int = 0
    args: dict[int, str] = field(default_factory=dict)


class PIIStreamTransformer(StreamTransformer):
    """Rewrites the PII of one rule in every event of the run (see the module docstring)."""

    before_builtins = True
    required_stream_modes = ("messages", "tools", "values")

    def __init__(
        self,
        scope: tuple[str, ...] = (),
        *,
        rule: ResolvedRedactionRule,
        lookback: int = DEFAULT_LOOKBACK,
    ) -> None:
        super().__init__(scope)
        self.rule = rule
        self.lookback = lookback
        self._replies: dict[str, _Reply] = {}

    def init(self) -> dict[str, Any]:
        return {}

    def _text(self, text: str) -> str:
        found = self.rule.detector(text) if text else []
        return apply_strategy(text, list(found), self.rule.strategy) if found else text

    def redact(self, value: Any) -> Any:
        """``value`` with every string rewritten (a new object when anything changed)."""
        if isinstance(value, str):
            return self._text(value)
        if isinstance(value, BaseMessage):
            update: dict[str, Any] = {}
            content = self.redact(value.content)
            if content != value.content:
                update["content"] = content
            if isinstance(value, AIMessage) and value.tool_calls:
                calls = [{**tc, "args": self.redact(tc.get("args"))} for tc in value.tool_calls]
                if calls != value.tool_calls:
                    update["tool_calls"] = calls
            return value.model_copy(update=update) if update else value
        if isinstance(value, dict):
            out = {k: self.redact(v) for k, v in value.items()}
            return out if any(out[k] is not value[k] for k in value) else value
        if isinstance(value, Sequence) and not isinstance(value, str | bytes):
            items = [self.redact(v) for v in value]
            if all(a is b for a, b in zip(items, value, strict=True)):
                return value
            return tuple(items) if isinstance(value, tuple) else items  # a message log: a list
        return value

    def process(self, event: ProtocolEvent) -> bool:
        params = event["params"]
        data = params["data"]
        if (
            event["method"] == "messages"
            and isinstance(data, tuple | list)
            and len(data) == 2
            and isinstance(data[0], AIMessageChunk)
        ):
            params["data"] = (self._chunk(data[0]), data[1])
        else:
            params["data"] = self.redact(data)
        return True

    def _chunk(self, chunk: AIMessageChunk) -> AIMessageChunk:
        key = chunk.id or ""
        reply = self._replies.setdefault(key, _Reply())
        reply.text += chunk.text
        for tc in chunk.tool_call_chunks:
            index = tc.get("index") or 0
            reply.args[index] = reply.args.get(index, "") + (tc.get("args") or "")
        last = chunk.chunk_position == "last"
        full = self._text(reply.text)  # block: raises as soon as a value is complete
        if last:
            end = len(full)
        elif self.rule.strategy == "block":
            end = reply.released
        else:
            end = max(reply.released, len(full) - self.lookback)
        out_text = full[reply.released : end]
        reply.released = end
        calls = []
        for tc in chunk.tool_call_chunks:
            calls.append({**tc, "args": ""})
        if last:
            self._replies.pop(key, None)
            for index, args in reply.args.items():
                calls.append({"index": index, "args": self._text(args), "type": "tool_call_chunk"})
        content: Any = (
            out_text
            if isinstance(chunk.content, str)
            else [{"type": "text", "text": out_text}]
            if out_text
            else []
        )
        return chunk.model_copy(update={"content": content, "tool_call_chunks": calls})


class PIIStreamFactory:
    """Builds a middleware's ``PIIStreamTransformer`` for each scope of a run."""

    before_builtins = True

    def __init__(self, rule: ResolvedRedactionRule, lookback: int = DEFAULT_LOOKBACK) -> None:
        self.rule = rule
        self.lookback = lookback

    def __call__(self, scope: tuple[str, ...]) -> PIIStreamTransformer:
        return PIIStreamTransformer(scope, rule=self.rule, lookback=self.lookback)
