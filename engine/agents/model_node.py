"""The agent's ``model`` node: build the ``ModelRequest``, run it through the
``wrap_model_call`` onion, and at the bottom call the chat model.

The bottom (``call_model``) binds the request's tools plus any structured-output tools,
prepends the system message, calls the model (streaming tokens when someone watches), names
the reply (``create_agent(name=...)``) and turns it into a ``ModelResponse`` (structured
output parsed or answered with error ToolMessages).  It emits ``model.request`` /
``model.token`` / ``model.response`` under one span.
"""

from __future__ import annotations

import re
import time
import weakref
from collections.abc import Sequence
from typing import Any

from engine.agents.chain import MODEL_CALL, Chain
from engine.agents.invalid_calls import answer_invalid_calls, emit_answers
from engine.agents.structured import (
    ProviderStrategy,
    ResponseFormat,
    ToolStrategy,
    handle_model_output,
    resolve_strategy,
)
from engine.agents.unstreamed import cannot_stream, fallback_detail, is_langchain_fake
from engine.core.context import MODEL_RUNS, call_metadata
from engine.events import ErrorInfo, MiddlewareAction
from engine.events import ModelRequest as ModelRequestEvent
from engine.events import ModelResponse as ModelResponseEvent
from engine.graph.runtime import RunContext, Runtime, current_run, current_task, model_for
from engine.messages import (
    REMOVE_ALL_MESSAGES,
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    Messages,
    RemoveMessage,
    SystemMessage,
    coerce_messages,
)
from engine.middleware.types import AgentMiddleware, ModelRequest, ModelResponse
from engine.models.base import BaseChatModel, model_run_name, model_run_tags
from engine.models.errors import surfaced_error
from engine.models.streaming import token_pieces
from engine.observe.bus import RunEmitter, current_emitter, span
from engine.observe.faults import check_fault
from engine.observe.request_log import public_params
from engine.observe.token_runs import TokenRun
from engine.serde import jsonable_memo, to_jsonable
from engine.tools import BaseTool
from engine.types import Command
from engine.usage import reported_model, usage_dict

__all__ = ["ModelNode", "model_label"]


def model_label(model: Any) -> str:
    return str(getattr(model, "model_name", None) or type(model).__name__)


def _resolve_model(model: Any) -> Any:
    from engine.models.resolve import as_chat_model

    return as_chat_model(model)


def _prefix_of(base: Sequence[BaseMessage], items: Sequence[BaseMessage]) -> bool:
    """True if ``items`` starts with exactly the message objects of ``base``."""
    return len(items) >= len(base) and all(a is b for a, b in zip(base, items, strict=False))


def _with_system(system: SystemMessage | None, messages: Sequence[Any]) -> list[BaseMessage]:
    """The messages the model gets.  Kept a ``Messages`` when the request's list is one (its
    items are messages by construction: the model does not re-check a long history)."""
    head = [system] if system is not None else []
    if type(messages) is Messages:
        out = Messages.of(head)
        list.extend(out, messages)  # one copy of a long history, not two
        return out
    return [*head, *messages]


def _splits_whole_reply(model: Any) -> bool:
    """Whether ``model`` streams by answering at once and splitting the reply
    (``BaseChatModel``'s own ``astream`` / ``_astream`` / ``ainvoke``: scripted and replayed
    models), so its stream's pieces are ``token_pieces`` of its ``ainvoke`` reply."""
    cls = type(model)
    return (
        isinstance(model, BaseChatModel)
        and cls.astream is BaseChatModel.astream
        and cls._astream is BaseChatModel._astream
        and cls.ainvoke is BaseChatModel.ainvoke
    ) or is_langchain_fake(model)


def _debugger_wants_tokens(em: RunEmitter) -> bool:
    dbg = em.debugger
    return dbg is not None and dbg.wants_tokens


def _check_wrapper_command(command: Command[Any]) -> None:
    """A ``wrap_model_call`` command may only update state (upstream's limits and texts)."""
    if command.goto:
        raise NotImplementedError(
            "Command goto is not yet supported in wrap_model_call middleware. "
            "Use the jump_to state field with before_model/after_model hooks instead."
        )
    if command.resume:
        raise NotImplementedError(
            "Command resume is not yet supported in wrap_model_call middleware."
        )
    if command.graph:
        raise NotImplementedError(
            "Command graph is not yet supported in wrap_model_call middleware."
        )


def _agent_binding(
    request: ModelRequest, strategy: ToolStrategy | ProviderStrategy | None
) -> tuple[list[Any] | None, dict[str, Any]]:
    """What LangChain's agent binds a model with for ``request``: ``(tools, kwargs)`` for its
    ``bind_tools`` (the request's tool objects, then a ``ToolStrategy``'s schemas), or
    ``(None, kwargs)`` for its ``bind`` (no tools, no structured output)."""
    tools: list[Any] = list(request.tools)
    settings = dict(request.model_settings)
    if isinstance(strategy, ProviderStrategy):  # bound with its tools even when there are none
        return tools, {**strategy.to_model_kwargs(), **settings}
    if isinstance(strategy, ToolStrategy):
        return [*tools, *strategy.specs], {"tool_choice": "any", **settings}
    if tools:
        return tools, {"tool_choice": request.tool_choice, **settings}
    return None, settings


class ModelNode:
    """The node function of ``model``."""

    def __init__(
        self,
        *,
        model: Any,
        given_model: Any = None,
        system_prompt: str | SystemMessage | None,
        tools: Sequence[BaseTool | dict[str, Any]],
        known_tools: set[str],
        response_format: ResponseFormat | None,
        wrappers: Sequence[AgentMiddleware],
        allow_unknown_tools: bool,
        name: str | None,
    ) -> None:
        self.model = model
        # what middleware sees as ``request.model``: the object the program gave (a
        # langchain_core model as itself, not our adapter of it), as LangChain shows it
        self.given_model = model if given_model is None else given_model
        if isinstance(system_prompt, str):
            system_prompt = SystemMessage(content=system_prompt)
        self.system_message = system_prompt
        self.tools = list(tools)
        self.known_tools = known_tools
        self.response_format = response_format
        self.chain = Chain(MODEL_CALL, wrappers)
        self.allow_unknown_tools = allow_unknown_tools
        self.name = name
        self._schemas: weakref.WeakKeyDictionary[BaseTool, dict[str, Any]] = (
            weakref.WeakKeyDictionary()
        )

    async def __call__(
        self, state: Any, runtime: Runtime[Any]
    ) -> dict[str, Any] | list[Command[Any]]:
        history: Sequence[BaseMessage] = state["messages"]
        if type(history) is list:  # a state schema's own ``messages`` with no reducer keeps
            history = coerce_messages(history)  # what it was given: role dicts, pairs...
        repaired, added = answer_invalid_calls(history)
        if added:
            await emit_answers(added)
        base = repaired if added else history
        given = Messages.of(base)
        request = ModelRequest(
            model=self._shown(model_for(self.model)),
            messages=given,
            system_message=self.system_message,
            tool_choice=None,
            tools=list(self.tools),
            response_format=self.response_format,
            state=state,
            runtime=runtime,
            model_settings={},
        )
        run = current_run()
        response, commands = await self.chain.run_collecting(
            request, self.call_model, sync=bool(run and run.sync_call)
        )
        messages: list[BaseMessage] = list(response.result)
        # As upstream, the request's own message list is the state's: what middleware
        # appended to it in place is stored before the reply; any other in-place change, or a
        # repaired history, replaces the stored history.  (A list only appended to still
        # starts with ``base``: no need to compare a long history item by item.)
        if added or (given.edited and not _prefix_of(base, given)):
            messages = [RemoveMessage(id=REMOVE_ALL_MESSAGES), *given, *messages]
        elif len(given) != len(base):
            messages = [*given[len(base) :], *messages]
        update: dict[str, Any] = {"messages": messages}
        if response.structured_response is not None:
            update["structured_response"] = response.structured_response
        elif self.response_format is not None:
            # an agent with a response format: a call that produced none clears the last
            # turn's (the routing reads the state's as this call's own, as LangChain's does)
            update["structured_response"] = None
        if not commands:
            return update
        for command in commands:
            _check_wrapper_command(command)
        return [Command(update=update), *commands]

    # -- the bottom of the onion ----------------------------------------------------------

    def _schema(self, t: Any) -> Any:
        """A tool's model-facing schema, computed once per tool (pydantic makes it slowly)."""
        if not isinstance(t, BaseTool):
            return t
        schema = self._schemas.get(t)
        if schema is None:
            schema = self._schemas[t] = t.tool_call_schema
        return schema

    def _bind(
        self, request: ModelRequest, strategy: ToolStrategy | ProviderStrategy | None
    ) -> dict[str, Any]:
        unknown = [
            t.name
            for t in request.tools
            if isinstance(t, BaseTool) and t.name not in self.known_tools
        ]
        if unknown and not self.allow_unknown_tools:
            raise ValueError(
                "Middleware added tools that the agent cannot execute.\n\n"
                f"Unknown tools: {unknown}\n"
                f"Registered tools: {sorted(self.known_tools)}\n\n"
                "Pass them to create_agent(tools=[...]) or set them on a middleware's `tools`, "
                "or implement wrap_tool_call in a middleware to execute them yourself."
            )
        tools: list[Any] = [self._schema(t) for t in request.tools]
        tool_choice = request.tool_choice
        response_format = None
        if isinstance(strategy, ToolStrategy):
            tools += [s.tool_schema for s in strategy.specs]
            tool_choice = "any"
        elif isinstance(strategy, ProviderStrategy):
            response_format = strategy.response_format
        return {
            "tools": tools or None,
            "tool_choice": tool_choice,
            "response_format": response_format,
            **request.model_settings,
        }

    def _shown(self, model: Any) -> Any:
        return self.given_model if model is self.model else model

    async def call_model(self, request: ModelRequest) -> ModelResponse:
        model = self.model if request.model is self.given_model else _resolve_model(request.model)
        strategy = resolve_strategy(request.response_format, model, with_tools=bool(request.tools))
        kwargs = self._bind(request, strategy)
        # a langchain_core model: bound as LangChain's agent binds it (the class attribute: our
        # models answer unknown attributes from their langchain face)
        bind_like_agent = getattr(type(model), "bound_like_agent", None)
        if bind_like_agent is not None:
            tools, bind_kwargs = _agent_binding(request, strategy)
            model = bind_like_agent(
                model, tools, bind_kwargs, provider_strategy=isinstance(strategy, ProviderStrategy)
            )
        messages: list[BaseMessage] = _with_system(request.system_message, request.messages)
        run = current_run()
        em = current_emitter()
        active = em is not None and em.active
        push = run is not None and run.wants("messages")
        # tokens are streamed only for someone who takes them: a ``messages`` stream, a
        # subscriber (the recorder, the studio), a debugger stepping into every event
        tokens = active and (em.listened or _debugger_wants_tokens(em))  # type: ignore[union-attr]
        s = span()
        t0 = time.perf_counter()
        if active:
            await self._emit_request(em, s, model, messages, kwargs, strategy, request, tokens)  # type: ignore[arg-type]
        failed: BaseException | None = None
        output: AIMessage | None = None
        try:
            await check_fault("model", model_label(model))
            if push or tokens:
                got = await self._stream(
                    model, messages, kwargs, run if push else None, em if tokens else None, s
                )
            else:
                got = await model.ainvoke(messages, **kwargs)
            if self.name:
                got.name = self.name
            output = got
        except BaseException as exc:
            if active:
                await em.emit(  # type: ignore[union-attr]
                    ModelResponseEvent,
                    span_id=s.id,
                    parent_span_id=s.parent,
                    model=model_label(model),
                    latency_ms=(time.perf_counter() - t0) * 1000,
                    error=ErrorInfo.from_exception(exc),
                )
            failed = surfaced_error(exc)
            if failed is exc:
                raise
        if failed is not None:
            # the model's own exception, as LangChain's agent raises it (not chained to ours:
            # raised outside the handler)
            raise failed
        assert output is not None
        if active:
            meta = output.response_metadata
            await em.emit(  # type: ignore[union-attr]
                ModelResponseEvent,
                span_id=s.id,
                parent_span_id=s.parent,
                model=model_label(model),
                message=to_jsonable(output),
                usage=usage_dict(output.usage_metadata, meta),
                latency_ms=(time.perf_counter() - t0) * 1000,
                replayed=bool(meta.get("replayed", False)),
                model_name=reported_model(meta),
            )
        return handle_model_output(output, strategy)

    async def _stream(
        self,
        model: Any,
        messages: list[BaseMessage],
        kwargs: dict[str, Any],
        run: RunContext | None,
        em: RunEmitter | None,
        s: span,
    ) -> AIMessage:
        task = current_task()
        meta = call_metadata(task.config) if task is not None else {}
        extra = getattr(model, "stream_metadata", None)
        if run is not None and callable(extra):  # a langchain_core model's, as LangChain's
            more = extra()
            if isinstance(more, dict):
                meta = {**meta, **more}
        ns = task.ns if task is not None else ""
        final: AIMessage | None = None
        chunks: list[AIMessageChunk] = []
        named = MODEL_RUNS.get()  # LangChain-style astream_events: it names the model's run
        run_name, run_tags = (model_run_name(model), model_run_tags(model)) if named else ("", [])
        tokens = (
            TokenRun(em, span_id=s.id, parent_span_id=s.parent, model=model_label(model))
            if em is not None
            else None
        )
        if run is None and tokens is not None and _splits_whole_reply(model):
            # the model answers at once and streams the reply split in pieces: with nobody
            # taking the chunks themselves (a ``messages`` stream), the token events are made
            # from the whole reply's pieces, the same ones in the same order, without building
            # a chunk object per piece
            try:
                output = await model.ainvoke(messages, **kwargs)
                for text, pieces in token_pieces(output):
                    await tokens.add(text, pieces)
            finally:
                tokens.close()
            return output
        try:
            async for item in model.astream(messages, **kwargs):
                if not isinstance(item, AIMessageChunk):
                    final = item
                    continue
                chunks.append(item)
                if self.name:
                    item.name = self.name
                if run is not None:
                    if named is not None and item.id:
                        named(item.id, run_name, run_tags, messages)
                    run.push_any_thread("messages", (item, meta), ns)
                if tokens is not None and (item.content or item.tool_call_chunks):
                    await tokens.add(item.text, item.tool_call_chunks)  # not the closing chunk
        except Exception as exc:
            if run is not None or em is None or chunks or not cannot_stream(exc):
                raise
            # streamed only for our own listeners, and it cannot stream: ask it plainly
            await em.emit(
                MiddlewareAction, parent_span_id=s.parent, **fallback_detail(model_label(model))
            )
            return await model.ainvoke(messages, **kwargs)  # type: ignore[no-any-return]
        finally:
            if tokens is not None:
                tokens.close()
        if final is not None and not chunks and run is not None:
            # a model that does not stream (``disable_streaming``) gave its reply whole: the
            # messages stream gets it with the model call's metadata, as LangChain's callback
            # reports a reply that came without tokens (not again from the node's output)
            if self.name:
                final.name = self.name
            if named is not None and final.id:
                named(final.id, run_name, run_tags, messages)
            run.push_any_thread("messages", (final, meta), ns)
            if final.id is not None:
                run.streamed_message_ids.add(final.id)
            return final
        if final is None:
            if not chunks:
                raise RuntimeError(f"{model_label(model)}: the stream ended without any output")
            total = chunks[0]
            for c in chunks[1:]:
                total = total + c
            final = total.to_message()
        if run is not None and final.id is not None and chunks:
            # streamed as chunks: not again from the node's output (a model that gave one
            # whole message streamed nothing, so the output push reports it)
            run.streamed_message_ids.add(final.id)
        return final

    async def _emit_request(
        self,
        em: RunEmitter,
        s: span,
        model: Any,
        messages: list[BaseMessage],
        kwargs: dict[str, Any],
        strategy: ToolStrategy | ProviderStrategy | None,
        request: ModelRequest,
        streaming: bool,
    ) -> None:
        from engine.models.hashing import request_hash

        tools = kwargs.get("tools") or []
        if isinstance(strategy, ToolStrategy):
            format_name: str | None = ", ".join(s.name for s in strategy.specs)
        elif isinstance(strategy, ProviderStrategy):
            format_name = strategy.spec.name
        else:
            format_name = None
        try:
            digest: str | None = request_hash(
                messages, tools, kwargs.get("tool_choice"), kwargs.get("response_format")
            )
        except (
            Exception
        ):  # an odd tool schema must not break the run; the model will say what is wrong
            digest = None
        task = current_task()
        lane = f"{em.ns}|{task.name if task is not None else ''}"
        # the last messages are mostly new ones the request log renders in full too: each
        # message is dumped once for both
        render = jsonable_memo()
        request_fields = em.requests.fields(lane, messages, tools, render=render)
        ev = await em.emit(
            ModelRequestEvent,
            span_id=s.id,
            parent_span_id=s.parent,
            model=model_label(model),
            messages_count=len(messages),
            system_prompt=request.system_prompt,
            last_messages=[render(m, 4000) for m in messages[-3:]],
            tools=[
                t.name if isinstance(t, BaseTool) else str(t.get("name") or t.get("type"))
                for t in tools
            ],
            tool_choice=kwargs.get("tool_choice"),
            response_format=format_name,
            settings=public_settings(request.model_settings),
            request_hash=digest,
            streaming=streaming,
            response_schema=to_jsonable(kwargs.get("response_format")),
            params=public_params(getattr(model, "model_settings", None)),
            **request_fields,
        )
        em.requests.remember(lane, ev, messages, tools)


_SECRET = re.compile(
    r"(^|_)(api_?key|secret|password|passwd|auth|authorization|cookies?|credentials?|headers?"
    r"|access_token|refresh_token|bearer|private_key)($|_)",
    re.IGNORECASE,
)


def public_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """Model settings as they may appear in events and sessions: anything that could carry a
    credential (``api_key``, ``extra_headers``, ...) is redacted, never recorded."""
    return {
        k: "[redacted]" if _SECRET.search(k) else to_jsonable(v, max_str=500)
        for k, v in settings.items()
    }
