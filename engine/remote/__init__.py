"""Remote mode: debug a graph running on a LangGraph server (``langgraph dev``, a self-hosted
deployment, LangGraph Platform) through its HTTP API.

    target = await connect("http://127.0.0.1:2024", "agent")   # a RemoteTarget

The client is ``langgraph-sdk`` (the ``remote`` extra), imported only when a client is made.
Modules: ``credentials`` (API key and headers from the environment), ``client`` (server
calls, one-line errors), ``shape`` (the server's drawing), ``values`` (JSON and our values),
``translate`` (a run's stream as our events), ``run`` (server runs driven by the debugger),
``join`` (watching another client's run), ``target`` (the ``Target``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.remote.credentials import Credentials
    from engine.remote.target import RemoteTarget

__all__ = ["connect"]


async def connect(
    url: str,
    assistant: str | None = None,
    *,
    headers: Sequence[str] = (),
    credentials: Credentials | None = None,
) -> RemoteTarget:
    """The target for ``assistant`` (id, graph id or name; the only one when None) on the
    server at ``url``.  ``headers``: ``NAME=ENV_VAR`` specs (values read from the environment).
    Raises ``RemoteError`` (a ``TargetError``) with one line when it cannot."""
    from engine.remote.client import RemoteClient
    from engine.remote.credentials import Credentials
    from engine.remote.target import RemoteTarget

    creds = credentials or Credentials.from_specs(headers)
    client = RemoteClient(url, creds)
    try:
        return await RemoteTarget.connect(client, assistant)
    except BaseException:
        await client.aclose()
        raise
