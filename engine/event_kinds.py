"""The event kinds: one ``EventBase`` subclass per ``kind`` (run, superstep, node, hook,
wrapper, attempt, model and tool calls, route, state, checkpoint, interrupt, store, plan,
custom data, loops, debugger pauses).

``engine.events`` offers them all, with the discriminated union ``Event`` and the JSON codec.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.event_base import JSON, ErrorInfo, EventBase

# --- run ------------------------------------------------------------------------------


class RunStarted(EventBase):
    kind: Literal["run.started"] = "run.started"
    graph: str = "graph"
    input: JSON = None
    resumed: bool = False
    config: dict[str, JSON] = Field(default_factory=dict)


class RunFinished(EventBase):
    kind: Literal["run.finished"] = "run.finished"
    status: Literal["done", "interrupted", "error", "cancelled"] = "done"
    output: JSON = None
    error: ErrorInfo | None = None
    duration_ms: float = 0.0


# --- supersteps and node tasks ----------------------------------------------------------


class PlannedTask(BaseModel):
    model_config = ConfigDict(extra="forbid")
    node: str
    task_id: str
    triggers: list[str] = Field(default_factory=list)
    kind: Literal["pull", "push"] = "pull"
    cached: bool = False
    """True when the task's writes were saved earlier (it will not run again)."""


class SuperstepStarted(EventBase):
    kind: Literal["superstep.started"] = "superstep.started"
    tasks: list[PlannedTask] = Field(default_factory=list)


class SuperstepFinished(EventBase):
    kind: Literal["superstep.finished"] = "superstep.finished"
    status: Literal["ok", "error", "interrupted", "cancelled"] = "ok"
    duration_ms: float = 0.0


class NodeStarted(EventBase):
    kind: Literal["node.started"] = "node.started"
    node: str
    task_id: str
    task_kind: Literal["pull", "push"] = "pull"
    input_summary: str = ""
    attempt: int = 1


class NodeFinished(EventBase):
    kind: Literal["node.finished"] = "node.finished"
    node: str
    task_id: str
    status: Literal["ok", "error", "interrupted", "cancelled"] = "ok"
    writes: list[dict[str, JSON]] = Field(default_factory=list)
    """``[{"channel": name, "value": json}]`` in write order (state and control writes)."""
    error: ErrorInfo | None = None
    duration_ms: float = 0.0
    attempt: int = 1
    cached: bool = False
    """True when the node's writes came from its cache (it did not run)."""


# --- middleware -------------------------------------------------------------------------


class HookStarted(EventBase):
    kind: Literal["hook.started"] = "hook.started"
    middleware: str
    hook: Literal["before_agent", "before_model", "after_model", "after_agent"]
    node: str = ""
    input: JSON = None
    """The hook's input as its trace policy records it (empty when no policy asks for it)."""


class HookFinished(EventBase):
    kind: Literal["hook.finished"] = "hook.finished"
    middleware: str
    hook: Literal["before_agent", "before_model", "after_model", "after_agent"]
    node: str = ""
    update: JSON = None
    jump_to: str | None = None
    outcome: Literal["ok", "error", "interrupted"] = "ok"
    """``interrupted``: the hook called ``interrupt()`` (human-in-the-loop): the run waits here."""
    error: ErrorInfo | None = None
    duration_ms: float = 0.0


class WrapperStarted(EventBase):
    kind: Literal["wrapper.started"] = "wrapper.started"
    middleware: str
    wrapper: Literal["wrap_model_call", "wrap_tool_call"]
    tool_call_id: str | None = None
    tool: str | None = None
    depth: int = 0
    """0 = outermost wrapper."""


class WrapperFinished(EventBase):
    kind: Literal["wrapper.finished"] = "wrapper.finished"
    middleware: str
    wrapper: Literal["wrap_model_call", "wrap_tool_call"]
    tool_call_id: str | None = None
    tool: str | None = None
    outcome: Literal["ok", "error", "interrupted"] = "ok"
    handler_calls: int = 0
    """How many times this layer called its handler (0 = short-circuit, >1 = retried)."""
    error: ErrorInfo | None = None
    duration_ms: float = 0.0
    state_update: JSON | None = None
    """The state update a ``wrap_model_call`` layer returned with its response
    (``ExtendedModelResponse``), applied after the model node's own update."""


class AttemptStarted(EventBase):
    kind: Literal["attempt.started"] = "attempt.started"
    middleware: str
    attempt: int
    """1-based."""
    max_attempts: int | None = None
    model: str | None = None
    tool: str | None = None
    tool_call_id: str | None = None


class AttemptFinished(EventBase):
    kind: Literal["attempt.finished"] = "attempt.finished"
    middleware: str
    attempt: int
    max_attempts: int | None = None
    outcome: Literal["ok", "error", "interrupted"] = "ok"
    """``interrupted``: the call paused for a human (``interrupt()``); it is never retried."""
    error: ErrorInfo | None = None
    will_retry: bool = False
    delay_s: float | None = None
    """Seconds slept before the next attempt (None when there is no next attempt)."""
    fallback_model: str | None = None
    """The model the next attempt switches to (ModelFallbackMiddleware)."""
    model: str | None = None
    tool: str | None = None
    tool_call_id: str | None = None
    duration_ms: float = 0.0


class MiddlewareAction(EventBase):
    """Something a middleware decided: a context edit, a human decision, a limit hit, ..."""

    kind: Literal["middleware.action"] = "middleware.action"
    middleware: str
    action: str
    """e.g. ``context_edit``, ``hitl_decision``, ``limit_exceeded``, ``fallback_switch``,
    ``summarized``, ``tools_selected``, ``prompt_cache_key``, ``retry_exhausted``,
    ``pii_redacted`` / ``pii_blocked`` (spans and counts, never the values), ``tool_emulated``,
    ``tool_error_handled``, ``file_search``."""
    detail: dict[str, JSON] = Field(default_factory=dict)


# --- model and tool calls ---------------------------------------------------------------


class ModelRequest(EventBase):
    kind: Literal["model.request"] = "model.request"
    model: str
    messages_count: int = 0
    system_prompt: str | None = None
    last_messages: list[JSON] = Field(default_factory=list)
    """The last few messages sent (what prompted this call), JSON."""
    tools: list[str] = Field(default_factory=list)
    tool_choice: JSON = None
    response_format: str | None = None
    settings: dict[str, JSON] = Field(default_factory=dict)
    request_hash: str | None = None
    """Stable hash of the full request (messages + tools): how replays detect divergence."""
    streaming: bool = False
    messages: list[JSON] | None = None
    """The messages sent (system prompt first), after the ``messages_reused`` first ones of the
    request ``messages_base``; None in sessions recorded before requests were
    (``engine.observe.request_log.resolve`` rebuilds the whole list)."""
    messages_base: int | None = None
    """``seq`` of an earlier ``model.request`` of this run whose first messages this one
    starts with (its history is not repeated)."""
    messages_reused: int = 0
    tool_schemas: list[JSON] | None = None
    """The tools as the model sees them: ``{"name", "description", "parameters"}`` (JSON
    schema), structured-output tools included."""
    tool_schemas_reused: bool = False
    """The tools are those of ``messages_base`` (not repeated)."""
    response_schema: JSON = None
    """The structured-output schema the provider was given (``response_format``), if any."""
    params: dict[str, JSON] = Field(default_factory=dict)
    """The model's own parameters (temperature, max_tokens...), credentials redacted."""


class ModelToken(EventBase):
    kind: Literal["model.token"] = "model.token"
    model: str
    text: str = ""
    tool_call_chunks: list[JSON] = Field(default_factory=list)


class ModelResponse(EventBase):
    kind: Literal["model.response"] = "model.response"
    model: str
    message: JSON = None
    usage: dict[str, JSON] | None = None
    latency_ms: float = 0.0
    error: ErrorInfo | None = None
    replayed: bool = False
    model_name: str | None = None
    """The model the provider says answered (``response_metadata``), e.g.
    ``gpt-4o-2024-08-06`` for a request to ``gpt-4o``; None when it did not say."""


class ToolStarted(EventBase):
    kind: Literal["tool.started"] = "tool.started"
    tool: str
    tool_call_id: str | None = None
    args: JSON = None


class ToolFinished(EventBase):
    kind: Literal["tool.finished"] = "tool.finished"
    tool: str
    tool_call_id: str | None = None
    status: Literal["success", "error"] = "success"
    result: JSON = None
    """The ToolMessage (or Command) as JSON."""
    error: ErrorInfo | None = None
    duration_ms: float = 0.0


# --- routing, state, checkpoints, interrupts -----------------------------------------------


class Route(EventBase):
    kind: Literal["route"] = "route"
    from_node: str
    to: list[str] = Field(default_factory=list)
    sends: list[dict[str, JSON]] = Field(default_factory=list)
    """``[{"node": name, "arg": summary}]`` for ``Send`` packets."""
    reason: Literal[
        "tool_calls",
        "jump_to",
        "no_tool_calls",
        "return_direct",
        "static",
        "conditional",
        "command",
        "structured_response",
        "end",
    ] = "static"
    detail: str = ""


class StateUpdated(EventBase):
    kind: Literal["state.updated"] = "state.updated"
    changes: list[dict[str, JSON]] = Field(default_factory=list)
    """``[{"channel", "op": set|append|replace|remove|clear, "value"?, "appended"?, ...}]``."""
    versions: dict[str, str] = Field(default_factory=dict)


class CheckpointSaved(EventBase):
    kind: Literal["checkpoint.saved"] = "checkpoint.saved"
    parent_id: str | None = None
    source: Literal["input", "loop", "update", "fork"] = "loop"
    next: list[str] = Field(default_factory=list)
    writer_nodes: list[str] = Field(default_factory=list)
    """The nodes whose writes produced this checkpoint."""
    checkpoint_ns: str = ""
    """The namespace the checkpoint is saved under ("" for the root graph; a subgraph's is
    ``node:task_id`` joined by ``|``, without task ids for ``checkpointer=True`` subgraphs)."""
    parents: dict[str, str] = Field(default_factory=dict)
    """For a subgraph checkpoint: the checkpoint id of each enclosing graph, by namespace."""


class InterruptRaised(EventBase):
    kind: Literal["interrupt.raised"] = "interrupt.raised"
    interrupt_id: str | None = None
    value: JSON = None
    node: str = ""
    task_id: str | None = None
    static: Literal["before", "after"] | None = None
    """Set for ``interrupt_before/after`` pauses (which carry no value)."""


class InterruptResumed(EventBase):
    kind: Literal["interrupt.resumed"] = "interrupt.resumed"
    interrupt_id: str | None = None
    value: JSON = None
    node: str = ""


class StoreAccessed(EventBase):
    """A run read or wrote its long-term memory (``engine.store``): one event per store call."""

    kind: Literal["store.access"] = "store.access"
    op: Literal["get", "put", "delete", "search", "list_namespaces"]
    namespace: list[str] = Field(default_factory=list)
    """The item's namespace; for ``search`` / ``list_namespaces``, the prefix searched."""
    key: str | None = None
    found: bool | None = None
    """``get``: whether the item existed."""
    value: JSON = None
    """``put``: the value written (None: the put deleted the item); ``get``: the value read
    (None when missing; sessions recorded before it was kept hold None)."""
    query: str | None = None
    filter: dict[str, JSON] | None = None
    hits: list[dict[str, JSON]] = Field(default_factory=list)
    """``search``: ``[{"namespace": [...], "key": ...}]`` of the items returned (first 100)."""
    hit_count: int = 0


class PlanStep(EventBase):
    kind: Literal["plan.step"] = "plan.step"
    index: int
    name: str
    tool: str | None = None
    status: Literal["pending", "running", "succeeded", "failed", "skipped"] = "running"
    code: str | None = None
    message: str | None = None
    attempt: int = 1
    output: JSON = None
    depends_on: list[int] = Field(default_factory=list)
    retry_round: int = 0


class CustomEvent(EventBase):
    """Data a node wrote with ``runtime.stream_writer`` / ``get_stream_writer()``."""

    kind: Literal["custom"] = "custom"
    node: str = ""
    data: JSON = None


class LoopDetected(EventBase):
    """The run looks stuck in a loop (``engine.observe.loops``): the same tool call (name and
    arguments) made again and again, or a model whose answers are only tool calls that fail."""

    kind: Literal["loop.detected"] = "loop.detected"
    loop: Literal["repeated_call", "failing_calls"]
    node: str = ""
    """The node the evidence is in: the one running the repeated tool call, or the one calling
    the model whose tool calls fail."""
    tool: str | None = None
    args: JSON = None
    """``repeated_call``: the arguments repeated."""
    count: int = 0
    """How many times the call was made, or how many answers in a row failed."""
    detail: str = ""
    """One line for people, e.g. ``search({"q": "x"}) made 3 times with the same arguments``."""
    seqs: list[int] = Field(default_factory=list)
    """The ``seq`` of the events that make up the loop (tool.started / model.response)."""


class DebugPaused(EventBase):
    kind: Literal["debug.paused"] = "debug.paused"
    reason: Literal["breakpoint", "step", "interrupt", "fault", "pause", "exception"] = "breakpoint"
    breakpoint: str | None = None
    """Description of the breakpoint that matched."""
    at_seq: int | None = None
    """``seq`` of the event the run is paused at."""
    at_kind: str | None = None


class DebugResumed(EventBase):
    kind: Literal["debug.resumed"] = "debug.resumed"
    command: Literal["continue", "step_into", "step_over", "step_out", "stop"] = "continue"
