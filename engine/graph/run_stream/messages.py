"""``MessagesTransformer``: one ``ChatModelStream`` per chat-model reply (``run.messages``)."""

from __future__ import annotations

from typing import Any

from engine.graph.run_stream.channel import StreamChannel
from engine.graph.run_stream.protocol import ProtocolEvent, StreamTransformer, message_part
from engine.messages import AIMessage, AIMessageChunk, BaseMessage, RemoveMessage, ToolMessage

__all__ = ["ChatModelStream", "MessagesTransformer"]


def _reasoning_of(message: BaseMessage) -> str:
    content = message.content
    if not isinstance(content, list):
        return ""
    return "".join(
        str(b.get("reasoning", ""))
        for b in content
        if isinstance(b, dict) and b.get("type") == "reasoning"
    )


class ChatModelStream:
    """A model's reply as it streams: ``text`` and ``reasoning`` deltas, ``tool_call_chunks``;
    ``output`` is the whole message once it finished (None before)."""

    def __init__(
        self, message_id: str | None, node: str | None, namespace: list[str], source: Any
    ) -> None:
        self.message_id = message_id
        self.node = node
        self.namespace = namespace
        self.text: StreamChannel[str] = StreamChannel(source)
        self.reasoning: StreamChannel[str] = StreamChannel(source)
        self.tool_call_chunks: StreamChannel[dict[str, Any]] = StreamChannel(source)
        self.output: AIMessage | BaseMessage | None = None
        self._total: AIMessageChunk | None = None

    @property
    def done(self) -> bool:
        return self.text.closed

    def _channels(self) -> tuple[StreamChannel[Any], ...]:
        return (self.text, self.reasoning, self.tool_call_chunks)

    def _add_chunk(self, chunk: AIMessageChunk) -> None:
        if chunk.text:
            self.text.push(chunk.text)
        if reasoning := _reasoning_of(chunk):
            self.reasoning.push(reasoning)
        for tc in chunk.tool_call_chunks:
            self.tool_call_chunks.push(dict(tc))
        self._total = chunk if self._total is None else self._total + chunk
        if chunk.chunk_position == "last":
            self._finish(self._total.to_message())

    def _add_whole(self, message: BaseMessage) -> None:
        if message.text:
            self.text.push(message.text)
        if reasoning := _reasoning_of(message):
            self.reasoning.push(reasoning)
        self._finish(message)

    def _finish(self, message: BaseMessage | None) -> None:
        if self.done:
            return
        self.output = message
        for ch in self._channels():
            ch.close()

    def _fail(self, err: BaseException) -> None:
        for ch in self._channels():
            ch.fail(err)


class MessagesTransformer(StreamTransformer):
    """Projects this scope's ``messages`` events: chunks of one reply (by message id) feed one
    ``ChatModelStream``, closed by the chunk marked last; a whole message (a model that did
    not stream, or a node's own message) is a stream that is already complete. Tool results
    and removals are not replies: they stay out of this projection."""

    required_stream_modes = ("messages",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[ChatModelStream] = StreamChannel()
        self._open: dict[str, ChatModelStream] = {}

    def init(self) -> dict[str, Any]:
        return {"messages": self._log}

    def process(self, event: ProtocolEvent) -> bool:
        part = message_part(event, self.scope)
        if part is None:
            return True
        payload, metadata = part
        params = event["params"]
        node = metadata.get("langgraph_node") if isinstance(metadata, dict) else None
        if isinstance(payload, AIMessageChunk):
            key = payload.id or ""
            stream = self._open.get(key)
            if stream is None:
                stream = self._new(payload.id, node, params["namespace"])
                self._open[key] = stream
            stream._add_chunk(payload)
            if stream.done:
                self._open.pop(key, None)
        elif isinstance(payload, BaseMessage) and not isinstance(
            payload, ToolMessage | RemoveMessage
        ):
            self._new(payload.id, node, params["namespace"])._add_whole(payload)
        return True

    def _new(self, message_id: str | None, node: str | None, ns: list[str]) -> ChatModelStream:
        stream = ChatModelStream(message_id, node, list(ns), self.pull_source)
        self._log.push(stream)
        return stream

    def finalize(self) -> None:
        for stream in self._open.values():
            total = stream._total
            stream._finish(total.to_message() if total is not None else None)
        self._open.clear()

    def fail(self, err: BaseException) -> None:
        for stream in self._open.values():
            stream._fail(err)
        self._open.clear()
