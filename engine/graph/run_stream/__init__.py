"""``stream_events(version="v3")``: a run's stream parts as protocol events, projected by
stream transformers into typed per-channel streams (``run.messages``, ``run.tool_calls``,
``run.subgraphs``...).

A run stream is pull-driven: reading any projection pulls the next stream part from the
running graph (``pump``), hands it to every transformer in registration order, and appends it
to the main event log unless a transformer suppressed it. Every channel buffers what it got,
so projections can be read one after another, each from its start.
"""

from engine.graph.run_stream.channel import StreamChannel
from engine.graph.run_stream.messages import ChatModelStream, MessagesTransformer
from engine.graph.run_stream.mux import StreamMux
from engine.graph.run_stream.nested import (
    NestedRunTracker,
    SubgraphRunStream,
    SubgraphTransformer,
)
from engine.graph.run_stream.protocol import ProtocolEvent, StreamTransformer
from engine.graph.run_stream.run import AsyncGraphRunStream, GraphRunStream
from engine.graph.run_stream.values import ValuesTransformer

__all__ = [
    "AsyncGraphRunStream",
    "ChatModelStream",
    "GraphRunStream",
    "MessagesTransformer",
    "NestedRunTracker",
    "ProtocolEvent",
    "StreamChannel",
    "StreamMux",
    "StreamTransformer",
    "SubgraphRunStream",
    "SubgraphTransformer",
    "ValuesTransformer",
]
