"""``langgraph.prebuilt.chat_agent_executor``'s names, where a program ported by imports looks
for them: the prebuilt ReAct agent and its states."""

from __future__ import annotations

from typing import Annotated, NotRequired

from typing_extensions import TypedDict

from engine.agents.react_agent import ReactAgentState, create_react_agent
from engine.managed import RemainingSteps
from engine.messages import AnyMessage, add_messages

__all__ = ["AgentState", "AgentStateWithStructuredResponse", "create_react_agent"]


class AgentState(TypedDict):
    """The prebuilt agent's state: its messages and the steps it has left."""

    messages: Annotated[list[AnyMessage], add_messages]
    remaining_steps: NotRequired[RemainingSteps]


AgentStateWithStructuredResponse = ReactAgentState
"""The state with the agent's ``structured_response`` too."""
