"""``ToolCallTransformer``: a run's ``tools`` chunks as one ``ToolCallStream`` per call
(``run.tool_calls``), each with its output deltas, output and error."""

from __future__ import annotations

from typing import Any

from engine.graph.run_stream import ProtocolEvent, StreamChannel, StreamTransformer
from engine.graph.run_stream.channel import PullSource
from engine.messages import ToolMessage

__all__ = ["ToolCallStream", "ToolCallTransformer"]


class ToolCallStream:
    """One tool call as it runs: ``output_deltas`` (what the tool emitted with
    ``runtime.emit_output_delta``), then ``output`` or ``error``; ``completed`` once ended."""

    def __init__(
        self, tool_call_id: str, tool_name: str, tool_input: Any, source: PullSource | None
    ) -> None:
        self.tool_call_id = tool_call_id
        self.tool_name = tool_name
        self.input = tool_input
        self.output_deltas: StreamChannel[Any] = StreamChannel(source)
        self.output: Any = None
        self.error: str | None = None
        self.completed = False

    def _finish(self, output: Any) -> None:
        self.output = output.content if isinstance(output, ToolMessage) else output
        self.completed = True
        self.output_deltas.close()

    def _fail(self, message: str) -> None:
        self.error = message
        self.completed = True
        self.output_deltas.close()

    def __repr__(self) -> str:
        state = "error" if self.error is not None else "done" if self.completed else "running"
        return f"ToolCallStream({self.tool_name!r}, id={self.tool_call_id!r}, {state})"


class ToolCallTransformer(StreamTransformer):
    """``run.tool_calls``: a ``ToolCallStream`` for each tool call run at this scope (calls
    inside nested runs belong to those runs' handles). ``tools`` events stay in the log."""

    required_stream_modes = ("tools",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[ToolCallStream] = StreamChannel()
        self._active: dict[str, ToolCallStream] = {}

    def init(self) -> dict[str, Any]:
        return {"tool_calls": self._log}

    def process(self, event: ProtocolEvent) -> bool:
        params = event["params"]
        if event["method"] != "tools" or tuple(params["namespace"]) != self.scope:
            return True
        data = params["data"]
        call_id = data.get("tool_call_id") if isinstance(data, dict) else None
        if call_id is None:
            return True
        kind = data.get("event")
        if kind == "tool-started":
            stream = ToolCallStream(
                call_id, data.get("tool_name", ""), data.get("input"), self.pull_source
            )
            self._active[call_id] = stream
            self._log.push(stream)
        elif kind == "tool-output-delta":
            if (stream := self._active.get(call_id)) is not None:
                stream.output_deltas.push(data.get("delta"))
        elif kind == "tool-finished":
            if (stream := self._active.pop(call_id, None)) is not None:
                stream._finish(data.get("output"))
        elif kind == "tool-error" and (stream := self._active.pop(call_id, None)) is not None:
            stream._fail(str(data.get("message", "")))
        return True

    def finalize(self) -> None:
        for stream in self._active.values():
            stream._finish(None)
        self._active.clear()

    def fail(self, err: BaseException) -> None:
        for stream in self._active.values():
            stream._fail(str(err))
        self._active.clear()
