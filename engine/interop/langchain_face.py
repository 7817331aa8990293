"""Our chat models where langchain_core expects its own: LCEL (``prompt | llm``), toolkits.

``to_langchain_model(model)`` is a real langchain_core ``BaseChatModel`` over one of ours (for
APIs that check ``isinstance(llm, BaseLanguageModel)``, e.g. ``SQLDatabaseToolkit(llm=...)``):
its ``_agenerate`` / ``_astream`` call our model, ``bind_tools`` binds our way.

``prompt | llm`` works on our models directly once langchain_core is loaded: they count as
langchain ``Runnable``s (``enroll``, through ``engine.core.foreign``), and the Runnable methods
ours do not have (``transform``, ``get_name``, ``with_config``, ``InputType``...) come from
their ``to_langchain_model`` face (``face_attribute``, from ``BaseChatModel.__getattr__``).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, get_args, get_origin

from engine.core.ids import uuid7
from engine.interop.langchain_messages import message_from_langchain, message_to_langchain

__all__ = ["enroll", "face_attribute", "to_langchain_model"]


@functools.cache
def _face_class() -> type:
    from langchain_core.language_models import BaseChatModel as LCChatModel
    from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

    from engine.messages import AIMessageChunk

    class EngineChatModel(LCChatModel):
        """A langchain_core chat model over a Stepwise engine model."""

        engine_model: Any
        call_kwargs: dict[str, Any] = {}

        @property
        def _llm_type(self) -> str:
            return f"stepwise:{getattr(self.engine_model, 'model_name', 'model')}"

        def _ours(self, messages: list[Any]) -> list[Any]:
            return [message_from_langchain(m) for m in messages]

        def _generate(
            self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kw: Any
        ) -> Any:
            reply = self.engine_model.invoke(self._ours(messages), **{**self.call_kwargs, **kw})
            return ChatResult(generations=[ChatGeneration(message=message_to_langchain(reply))])

        async def _agenerate(
            self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kw: Any
        ) -> Any:
            reply = await self.engine_model.ainvoke(
                self._ours(messages), **{**self.call_kwargs, **kw}
            )
            return ChatResult(generations=[ChatGeneration(message=message_to_langchain(reply))])

        def _stream(
            self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kw: Any
        ) -> Iterator[Any]:
            for item in self.engine_model.stream(
                self._ours(messages), **{**self.call_kwargs, **kw}
            ):
                if isinstance(item, AIMessageChunk):
                    chunk = ChatGenerationChunk(message=message_to_langchain(item))
                    if run_manager is not None:
                        run_manager.on_llm_new_token(item.text, chunk=chunk)
                    yield chunk

        async def _astream(
            self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kw: Any
        ) -> AsyncIterator[Any]:
            async for item in self.engine_model.astream(
                self._ours(messages), **{**self.call_kwargs, **kw}
            ):
                if isinstance(item, AIMessageChunk):
                    chunk = ChatGenerationChunk(message=message_to_langchain(item))
                    if run_manager is not None:
                        await run_manager.on_llm_new_token(item.text, chunk=chunk)
                    yield chunk

        def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kw: Any) -> Any:
            from engine.tools import as_tool

            ours = [t if isinstance(t, dict) else as_tool(t) for t in tools]
            extra = {"tools": ours, **({"tool_choice": tool_choice} if tool_choice else {}), **kw}
            return type(self)(
                engine_model=self.engine_model, call_kwargs={**self.call_kwargs, **extra}
            )

    return EngineChatModel


def to_langchain_model(model: Any) -> Any:
    """A langchain_core ``BaseChatModel`` that calls our ``model`` (needs langchain-core)."""
    return _face_class()(engine_model=model)


@functools.cache
def _runnable_names() -> frozenset[str]:
    from langchain_core.runnables import Runnable

    return frozenset(n for n in dir(Runnable) if not n.startswith("_"))


def enroll(cls: type) -> None:
    """Make ``cls`` (our model base class) a virtual langchain ``Runnable`` (idempotent)."""
    from langchain_core.runnables import Runnable

    if not issubclass(cls, Runnable):
        Runnable.register(cls)


def face_attribute(obj: Any, name: str) -> Any | None:
    """``obj``'s langchain face's attribute ``name`` (a public Runnable name), else None."""
    if name not in _runnable_names():
        return None
    face = obj.__dict__.get("_langchain_face")
    if face is None:
        face = obj.__dict__["_langchain_face"] = to_langchain_model(obj)
    return getattr(face, name)


def accept_ours() -> None:
    """Teach langchain_core our messages and commands (idempotent): its message conversion
    (every chat model's input, prompt templates) converts an engine message as a langchain one,
    a langchain tool may return the engine's ``Command``, and a node's own model calls can
    stream to its run (``enter_node``).  Raises when this langchain_core cannot be taught."""
    from langchain_core.messages import utils

    from engine.interop.langchain import commands_pass_langchain_tools
    from engine.interop.langchain_messages import message_to_langchain
    from engine.interop.langchain_node_tokens import hook
    from engine.messages import BaseMessage

    commands_pass_langchain_tools()
    hook()
    _generations_take_ours()
    tools_see_our_injections()
    theirs = utils._convert_to_message
    if not callable(theirs):
        raise TypeError("this langchain_core converts messages elsewhere")
    if getattr(theirs, "takes_engine_messages", False):
        return

    def convert(message: Any) -> Any:
        if isinstance(message, BaseMessage):
            return message_to_langchain(message)
        return theirs(message)

    convert.takes_engine_messages = True  # type: ignore[attr-defined]
    utils._convert_to_message = convert


def tools_see_our_injections() -> None:
    """langchain_core's tools take the engine's injected-parameter markers as their own
    (idempotent): a ``langchain_core`` ``@tool`` annotated with ``InjectedState``,
    ``InjectedStore``, ``InjectedToolCallId`` or ``ToolRuntime`` of a program ported by its
    imports (``langgraph.prebuilt`` -> ``engine.prebuilt``) hides them from the model and
    takes them at call time, as it does LangGraph's."""
    from langchain_core.tools import base

    from engine import tool_injection as ours

    theirs = base._is_injected_arg_type
    theirs_direct = base._is_directly_injected_arg_type
    if getattr(theirs, "takes_engine_markers", False):
        return

    def marked(type_: Any, kind: type) -> bool:
        for arg in get_args(type_)[1:]:
            cls = arg if isinstance(arg, type) else type(arg)
            if issubclass(cls, kind):
                return True
        return False

    def direct(type_: Any) -> bool:
        origin = get_origin(type_) or type_
        return isinstance(origin, type) and issubclass(origin, ours.ToolRuntime)

    def is_injected(type_: Any, injected_type: Any = None) -> bool:
        if theirs(type_, injected_type):
            return True
        if injected_type is None:
            return marked(type_, ours.InjectedToolArg) or direct(type_)
        if getattr(injected_type, "__name__", "") == "InjectedToolCallId":
            return marked(type_, ours.InjectedToolCallId)
        return False

    def is_directly_injected(type_: Any) -> bool:
        return bool(theirs_direct(type_)) or direct(type_)

    is_injected.takes_engine_markers = True  # type: ignore[attr-defined]
    base._is_injected_arg_type = is_injected
    base._is_directly_injected_arg_type = is_directly_injected


def _generations_take_ours() -> None:
    """A chat model's generation holds our message as its own (idempotent): a program ported
    by its imports scripts langchain_core's fake models with ``engine.messages``'
    ``AIMessage`` (its ``langchain.messages`` one), which they wrap in ``ChatGeneration``."""
    from langchain_core.outputs import ChatGeneration

    from engine.interop.langchain_messages import message_to_langchain
    from engine.messages import BaseMessage

    theirs = ChatGeneration.__init__
    if getattr(theirs, "takes_engine_messages", False):
        return

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        message = kwargs.get("message")
        if isinstance(message, BaseMessage):
            if message.id is None:
                # the id langchain_core gives the reply it returns, given to the scripted
                # message itself as it would be to its own (used again, it is the same message)
                # (its form: the run's time-ordered id and the generation's index)
                message.id = f"lc_run--{uuid7()}-0"
            kwargs["message"] = message_to_langchain(message)
        theirs(self, *args, **kwargs)

    __init__.takes_engine_messages = True  # type: ignore[attr-defined]
    ChatGeneration.__init__ = __init__  # type: ignore[method-assign]


def enter_node() -> Callable[[], None]:
    """While a node runs: the langchain models it calls stream to its run (see
    ``engine.interop.langchain_node_tokens``)."""
    from engine.interop.langchain_node_tokens import enter_node as enter

    return enter()
