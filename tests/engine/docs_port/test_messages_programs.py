"""Docs programs of ``langchain.messages``, real vs ported: content blocks, reprs, chunks
added up (their tool calls parsed, their token counts summed), ``trim_messages`` and the block
and usage types imported by name.

Known differences kept: an OpenAI-style ``image_url`` block is ``non_standard`` in the
engine's ``content_blocks`` (LangChain converts it to an image block with a random id), and
``model_dump`` lists the fields in another order (the engine's JSON form is recorded)."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

MESSAGES = """
from langchain.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, AIMessageChunk, RemoveMessage
from langchain.messages import trim_messages
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append(("bind", sorted(getattr(t, "name", None) or (t.get("name") if isinstance(t, dict) else None) or t["function"]["name"] for t in tools), kw.get("tool_choice")))
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.seen.append(("call", [(m.type, m.content if isinstance(m.content, str) else str(m.content)) for m in messages]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)
h = HumanMessage(content=[{"type": "text", "text": "Describe this"}, {"type": "image", "url": "https://x/y.png"}], name="alice", id="h1")
print(h.content_blocks)
print(h.text, h.name, h.id, h.type)
h2 = HumanMessage(content=[{"type": "text", "text": "hi"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}}])
a = AIMessage(content=[{"type": "reasoning", "reasoning": "think"}, {"type": "text", "text": "answer"}], usage_metadata={"input_tokens": 3, "output_tokens": 5, "total_tokens": 8}, response_metadata={"model_name": "m"})
print(a.content_blocks, a.text, a.usage_metadata)
print(repr(a))
s = SystemMessage("be nice")
print(repr(s), s.content_blocks)
t = ToolMessage("42", tool_call_id="c1", artifact={"raw": 42}, status="error")
print(repr(t))
print(t.content_blocks)
c1 = AIMessageChunk(content="Hel", id="x", tool_call_chunks=[{"name": "f", "args": '{"a"', "id": "c1", "index": 0}])
c2 = AIMessageChunk(content="lo", tool_call_chunks=[{"name": None, "args": ': 1}', "id": None, "index": 0}], usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3})
full = c1 + c2
print(repr(full))
print(full.tool_calls, full.content_blocks)
print(str(h2))
print(h == HumanMessage(content=h.content, name="alice", id="h1"))
msgs = [SystemMessage("sys"), HumanMessage("one"), AIMessage("two"), HumanMessage("three"), AIMessage("four")]
print([m.content for m in trim_messages(msgs, max_tokens=3, token_counter=len, strategy="last", include_system=True, start_on="human")])
print(AIMessage("x", tool_calls=[{"name": "f", "args": {}, "id": "1"}]).pretty_repr())
print(RemoveMessage(id="z"))
from langchain.messages import ImageContentBlock, UsageMetadata, ReasoningContentBlock
img = ImageContentBlock(type="image", url="https://x/z.png", mime_type="image/png")
use: UsageMetadata = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
print(HumanMessage(content=[img]).content_blocks, AIMessage("", usage_metadata=use).usage_metadata)
from langchain.messages import AIMessageChunk
c1 = AIMessageChunk(content="Hel", id="x", tool_call_chunks=[{"name": "f", "args": '{"a"', "id": "c1", "index": 0}], usage_metadata={"input_tokens": 4, "output_tokens": 1, "total_tokens": 5})
c2 = AIMessageChunk(content="lo", tool_call_chunks=[{"name": None, "args": ': 1}', "id": None, "index": 0}, {"name": "g", "args": '{}', "id": "c2", "index": 1}], usage_metadata={"input_tokens": 0, "output_tokens": 2, "total_tokens": 2, "output_token_details": {"reasoning": 1}})
c3 = AIMessageChunk(content="", usage_metadata={"input_tokens": 0, "output_tokens": 3, "total_tokens": 3, "output_token_details": {"reasoning": 2}}, chunk_position="last")
full = c1 + c2 + c3
print(full.content, full.tool_calls, full.invalid_tool_calls, full.usage_metadata, full.chunk_position)
print([c["args"] for c in full.tool_call_chunks])
"""


def test_messages_blocks_chunks_and_trimming() -> None:
    compare(MESSAGES)
