"""What the user gave the run input form, per graph, for the session.

The form asks a graph that takes no chat message for its input, and a graph with a context
for its context.  Where the server cannot give a graph's schemas (``langgraph dev`` answers
500 when pydantic cannot read its context schema), both are asked as JSON, and the context may
be left empty: the graph may have none.  Asking again at every Run would make a user type the
same JSON over and over, so, as run configurations do in IDEs:

- what the form was given is kept, by the graph's label (an assistant on a server, an agent
  file): a later Run starts with it, on any thread, without asking; an empty context is an
  answer too ("no context"), not asked again;
- debugging the same graph again in the session (reconnecting to the assistant, reopening the
  file) starts with it as well (an agent file's input is only offered in the form, since the
  file may have changed);
- *Debug > Run with Input...* opens the form filled with it, to change it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

__all__ = ["GivenInputs", "GivenInputsBook", "RunForm"]


@dataclass
class GivenInputs:
    """One graph's answers to the form."""

    input: Any = None
    context: Any = None
    context_given: bool = False
    """The context was asked and answered (``context`` None: the user wants none)."""


class GivenInputsBook:
    """The answers of the session, by graph label."""

    def __init__(self) -> None:
        self._by_label: dict[str, GivenInputs] = {}

    def get(self, label: str) -> GivenInputs:
        return self._by_label.get(label) or GivenInputs()

    def keep(self, label: str, given: GivenInputs) -> None:
        self._by_label[label] = given


class RunForm:
    """The run controller's half of the input form (a mixin of
    ``studio.run.controller.RunController``): what the form may ask, what it starts with, and
    its answer kept."""

    target: Any
    label: str
    default_input: Any
    typed_input: Any
    context: Any
    context_given: bool
    given: GivenInputsBook

    if TYPE_CHECKING:

        def _chat(self) -> bool: ...

    def form_fields(self) -> set[str]:
        """What the input form can give the loaded graph: ``input`` (a graph that takes no chat
        message and has no input of its own) and ``context`` (one with a context schema, or
        whose schemas are unknown)."""
        target = self.target
        fields: set[str] = set()
        if target is None:
            return fields
        if self.default_input is None and not self._chat() and target.input_schema() is not None:
            fields.add("input")
        if target.context_schema() is not None:
            fields.add("context")
        return fields

    def keep_form_answer(self, needs: set[str], value: Any, context: Any) -> None:
        """The input form's answer to what it asked (``needs``): what the runs to come start
        with, kept for this graph for the session (``studio.run.given_inputs``)."""
        given = self.given.get(self.label)
        if "input" in needs:
            self.typed_input = given.input = value
        if "context" in needs:
            self.context = given.context = context
            self.context_given = given.context_given = True
        self.given.keep(self.label, given)

    def form_prefill(self) -> tuple[Any, Any]:
        """(input, context) the input form starts with: the current ones, else what it was
        given for this graph before."""
        given = self.given.get(self.label)
        value = self.typed_input if self.typed_input is not None else given.input
        return value, self.context if self.context is not None else given.context
