"""The run controller's commands beyond run/step/stop: resume from a checkpoint (a fork),
re-run from one with recorded model responses, retry a plan's failed steps, inject faults, save
the session file elsewhere.

``SessionCommands`` is a mixin of ``studio.run.controller.RunController``: it starts runs with the
controller's ``_launch`` / ``_drive``, so they are debugged, recorded and shown like any run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.history.session_files import copy_session

if TYPE_CHECKING:
    from engine.messages import AIMessage
    from engine.targets import Target
    from studio.models.hub import Hub
    from studio.models.timeline import TimelineModel

__all__ = ["SessionCommands"]


class SessionCommands:
    hub: Hub
    target: Target | None
    graph: Any
    recorder: Any
    debugger: Any
    session_path: Path | None
    _factory: Any
    model_source: Callable[[], Any] | None
    pending_interrupts: list[Any]

    if TYPE_CHECKING:

        @property
        def busy(self) -> bool: ...

        def _launch(self, coro: Any) -> asyncio.Task[None]: ...

        async def _drive(
            self, inp: Any, checkpoint_id: str | None = None, model_override: Any = None
        ) -> None: ...

        def _on_event(self, ev: Any) -> None: ...

    def resume_from(self, checkpoint_id: str) -> asyncio.Task[None]:
        """Run on from a past checkpoint of the current thread (a fork: the old branch stays),
        under the debugger."""
        if self.target is None:
            raise RuntimeError("No agent is loaded")
        if self.busy:
            raise RuntimeError("Stop the run before resuming from a checkpoint")
        self.hub.select_checkpoint(None)
        return self._launch(self._drive(None, checkpoint_id))

    def state_edited(self, checkpoint_id: str) -> None:
        """An edit (Edit State) wrote ``checkpoint_id``, the thread's new tip: the interrupts
        the thread waited at were asked at the old one and no longer pend there, so F5 runs
        on from the edit (the run asks again whatever it interrupts at) instead of answering
        a question the new state may not ask."""
        if not self.busy:
            self.pending_interrupts = []

    def rerun_with_replay(self, checkpoint_id: str, timeline: TimelineModel) -> asyncio.Task[None]:
        """Re-run from a checkpoint serving the recorded model responses (``ReplayChatModel``,
        as the run's model override: any agent works) until the run diverges; then the model
        chosen in Settings takes over when one is set, else the agent's own model.  The new
        branch is recorded like any run; the timeline marks what was replayed and where the
        run diverged."""
        if self.target is None:
            raise RuntimeError("No agent is loaded")
        if self.busy:
            raise RuntimeError("Stop the run before re-running from a checkpoint")
        from studio.history.timetravel import replay_plan

        live = self.model_source() if self.model_source is not None else None
        plan = replay_plan(list(self.hub.events), timeline, checkpoint_id, fallback=live)
        self.hub.select_checkpoint(None)
        return self._launch(self._drive(None, checkpoint_id, model_override=plan.model))

    def continue_with_answer(
        self, checkpoint_id: str, node: str, answer: AIMessage
    ) -> asyncio.Task[None]:
        """What-if: fork the thread at ``checkpoint_id`` (where a model call was made) as if
        ``node``, the model node, had answered ``answer`` (an ``AIMessage``), and run on from
        there under the debugger.  The old branch stays."""
        if self.graph is None:
            raise RuntimeError("No agent is loaded")
        if self.busy:
            raise RuntimeError("Stop the run before continuing from a model call")
        return self._launch(self._continue_with(checkpoint_id, node, answer))

    async def _continue_with(self, checkpoint_id: str, node: str, answer: AIMessage) -> None:
        assert self.target is not None
        new = await self.target.update_state(
            self.hub.thread_id, {"messages": [answer]}, as_node=node, checkpoint_id=checkpoint_id
        )
        self.hub.select_checkpoint(None)  # follow the new branch live
        self.hub.checkpoints_changed()
        await self._drive(None, new)

    def rerun_with_model(self, checkpoint_id: str, model: Any) -> asyncio.Task[None]:
        """Re-run from ``checkpoint_id`` with ``model`` answering every model call of the rest
        of the run (the run's model override); a fork: the old branch stays."""
        if self.graph is None:
            raise RuntimeError("No agent is loaded")
        if self.busy:
            raise RuntimeError("Stop the run before re-running from a checkpoint")
        self.hub.select_checkpoint(None)
        return self._launch(self._drive(None, checkpoint_id, model_override=model))

    def retry_plan_steps(
        self, chain: list[int], checkpoint_id: str | None = None
    ) -> asyncio.Task[None]:
        """Plan agents (``engine.plan``): run ``chain`` (failed steps and their downstream
        dependency chain) again, as one more retry round from ``checkpoint_id`` (a past
        checkpoint: a fork, the later branch stays) or from the thread's last checkpoint."""
        graph = self.graph
        if (
            graph is None
            or "retry" not in getattr(graph, "channels", {})
            or "evaluator" not in getattr(graph, "nodes", {})
        ):
            raise RuntimeError("Only plan-and-execute agents can retry plan steps")
        if self.busy:
            raise RuntimeError("Stop the run before retrying plan steps")
        steps = sorted(int(i) for i in chain)
        update = {"retry": {"failed": steps, "retryable": steps, "chain": steps}, "retry_round": 0}
        return self._launch(self._retry_steps(update, checkpoint_id))

    async def _retry_steps(self, update: dict[str, Any], checkpoint_id: str | None) -> None:
        assert self.target is not None
        new = await self.target.update_state(
            self.hub.thread_id, update, as_node="evaluator", checkpoint_id=checkpoint_id
        )
        self.hub.select_checkpoint(None)  # follow the retry live
        self.hub.checkpoints_changed()
        await self._drive(None, new)

    # -- faults --------------------------------------------------------------------------------

    def inject_model_timeout(self) -> None:
        self.debugger.inject_model_error(TimeoutError("Injected model timeout (Stepwise debugger)"))

    def inject_tool_error(self, tool: str | None = None) -> None:
        """The next call of ``tool`` (of any tool when None) raises OSError."""
        name = tool or "any tool"
        error = OSError(f"Injected failure of {name} (Stepwise debugger)")
        self.debugger.inject_tool_error(tool, error)  # type: ignore[arg-type]

    def tool_names(self) -> list[str]:
        """Names of the agent's tools (from the graph's metadata), for the Faults menu."""
        drawable = self.hub.drawable
        names: list[str] = []
        for node in getattr(drawable, "nodes", {}).values():
            for t in node.metadata.get("tools") or ():
                name = (
                    t
                    if isinstance(t, str)
                    else getattr(t, "name", None)
                    or (t.get("name") if isinstance(t, dict) else None)
                )
                if name and name not in names:
                    names.append(str(name))
        # then the tools the drawing cannot show: a sub-agent's, called by a tool
        return names + [t for t in self.hub.nested_tools if t not in names]

    # -- sessions ------------------------------------------------------------------------------

    def save_session_as(self, dest: Path) -> None:
        if self.recorder is None or self.session_path is None:
            raise RuntimeError("Nothing is being recorded")
        self.recorder.flush()
        copy_session(self.session_path, Path(dest))
