"""How a run starts: new input, a resume (``None`` or a ``Command``), or time travel (spec §1-3)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from engine.checkpoint.base import ERROR, INTERRUPT, NULL_TASK_ID, RESUME
from engine.errors import EmptyInputError, InvalidUpdateError
from engine.graph.algo import Task, apply_writes, mark_interrupt_seen, trigger_channel
from engine.graph.runtime import _NullResume
from engine.graph.state import updates_from_output, warn_unknown_keys
from engine.graph.subgraph_replay import ReplayState
from engine.types import END, START, Command, Send

if TYPE_CHECKING:
    from engine.checkpoint.base import BaseCheckpointSaver, Checkpoint, CheckpointTuple
    from engine.graph.channels import BaseChannel
    from engine.graph.compiled import CompiledStateGraph
    from engine.graph.runtime import RunContext

__all__ = ["LoopInput"]


class LoopInput:
    """Mixin of ``PregelLoop``: the first phase of a run, before any superstep."""

    graph: CompiledStateGraph
    run: RunContext
    input: Any
    checkpoint: Checkpoint
    checkpoint_config: dict[str, Any]
    checkpointer: BaseCheckpointSaver | None
    channels: dict[str, BaseChannel]
    pending_writes: list[tuple[str, str, Any]]
    forced_resuming: bool | None
    requested_checkpoint_id: str | None
    saved: CheckpointTuple | None
    resuming: bool
    noop: bool
    nested: bool
    replay: ReplayState | None

    def _apply_pseudo(
        self, name: str, writes: list[tuple[str, Any]], triggers: list[str] | None = None
    ) -> dict[str, list[Any]]:
        task = Task(
            NULL_TASK_ID, name, ("pull", name), None, triggers or [], self.graph.nodes[START]
        )
        task.writes = writes
        return apply_writes(self.checkpoint, self.channels, [task], self.next_version)

    def _command_writes(self, cmd: Command) -> list[tuple[str, Any]]:
        dropped: list[str] = []
        channels = self.graph.spec.channels
        writes, _ = updates_from_output(Command(update=cmd.update), set(channels), dropped)
        if dropped:
            warn_unknown_keys("Command(update=...)", dropped, channels)
        for g in cmd.goto_list():
            if isinstance(g, Send):
                writes.append(("__pregel_tasks", g))
            elif g in self.graph.nodes:
                writes.append((trigger_channel(g), None))
            elif g != END:
                nodes = ", ".join(n for n in self.graph.nodes if n != START)
                raise InvalidUpdateError(
                    f"Command(goto={g!r}): the graph has no node {g!r} (nodes: {nodes})"
                )
        if cmd.update and not writes and dropped:
            raise InvalidUpdateError(
                f"Command(update=...): none of its keys are in the state "
                f"({', '.join(repr(k) for k in dropped)}); nothing to do"
            )
        return writes

    async def _first(self) -> bool:
        inp = self.input
        run = self.run
        is_command = isinstance(inp, Command)
        has_state = bool(self.checkpoint["channel_versions"])
        if self.forced_resuming is not None:
            self.resuming = self.forced_resuming and has_state
        else:
            self.resuming = has_state and (inp is None or is_command)
        # time travel: re-run from a past checkpoint on a new branch
        if self.requested_checkpoint_id and inp is None and self.saved is not None:
            source = self.saved.metadata.get("source")
            if not self.nested:  # subgraphs replay from their state before this point
                bound = self.saved.config["configurable"]["checkpoint_id"]
                if source in ("update", "fork") and self.saved.parent_config:
                    bound = self.saved.parent_config["configurable"]["checkpoint_id"]
                self.replay = ReplayState(bound)
            # the step's tasks run again: what they wrote, and the answers they got, are
            # history now (an update/fork checkpoint replays in place, without a fork); what
            # a command wrote to the state there (``Command(update=...)`` with a resume)
            # still applies, before the fork, as LangGraph applies it
            carried = [
                (c, v)
                for t, c, v in self.pending_writes
                if t == NULL_TASK_ID and c not in (RESUME, INTERRUPT, ERROR)
            ]
            self.pending_writes = [w for w in self.pending_writes if w[1] == INTERRUPT]
            if carried:
                self._apply_pseudo("__input__", carried)
            if source not in ("update", "fork"):
                if not self._plan():
                    self.noop = True
                    return False
                self.pending_writes = []
                await self._put_checkpoint("fork")
        if is_command:
            assert isinstance(inp, Command)
            if inp.resume is not None and self.checkpointer is None:
                raise RuntimeError("Cannot use Command(resume=...) without checkpointer")
            # interrupts of tasks that have not finished since (an answered one stays recorded)
            finished = {
                t for t, c, _v in self.pending_writes if c not in (INTERRUPT, RESUME, ERROR)
            }
            pending_ids = {
                i.id
                for t, c, v in self.pending_writes
                if c == INTERRUPT and t not in finished
                for i in v
            }
            null_writes = self._command_writes(inp)
            resume = inp.resume
            if isinstance(resume, dict) and resume and set(resume) <= pending_ids:
                run.resume_map = dict(resume)
            elif resume is not None:
                if len(pending_ids) > 1:
                    raise RuntimeError(
                        "When there are multiple pending interrupts, you must specify the "
                        "interrupt id when resuming. Docs: https://docs.langchain.com/oss/python/"
                        "langgraph/interrupts#handling-multiple-interrupts."
                    )
                null_writes.append((RESUME, resume))
            if not null_writes and run.resume_map is None and END not in inp.goto_list():
                raise EmptyInputError("Received empty Command input")
            if (
                null_writes
                and self.checkpointer is not None
                and self.checkpoint_config["configurable"].get("checkpoint_id")
            ):
                await self.checkpointer.aput_writes(
                    self.checkpoint_config, null_writes, NULL_TASK_ID
                )
            self.pending_writes.extend((NULL_TASK_ID, c, v) for c, v in null_writes)
        # a plain resume value waiting for the next interrupt() call (a command starting a
        # thread has no interrupt to answer: its resume is dropped, as LangGraph drops it)
        for tid, c, v in self.pending_writes:
            if tid == NULL_TASK_ID and c == RESUME and not self.nested and self.resuming:
                run.null_resume = _NullResume(True, v)
        null_state_writes = [
            (c, v) for tid, c, v in self.pending_writes if tid == NULL_TASK_ID and c != RESUME
        ]
        if null_state_writes:
            self._apply_pseudo("__input__", null_state_writes)
        if self.resuming:
            mark_interrupt_seen(self.checkpoint)
            self._push("values", self._values())
            if self.checkpointer is not None and self.saved is not None and not self.nested:
                # a resumed run starts from the checkpoint it loaded, as LangGraph streams it
                self.push_checkpoint(
                    self.saved.config, self.saved.parent_config, self.saved.metadata, self._plan()
                )
            return True
        if inp is not None:
            # new input; a command on a thread with no state yet is the START node's input
            # too (its update applied above and again by START, its goto sent by START), as
            # LangGraph starts such a thread
            discard = self._plan()
            pseudo = Task(
                NULL_TASK_ID, "__input__", ("pull", "__input__"), None, [], self.graph.nodes[START]
            )
            pseudo.writes = self.graph._input_writes(inp)
            changed = apply_writes(
                self.checkpoint, self.channels, [*discard, pseudo], self.next_version
            )
            # no values chunk for input written straight to channels (a low-level Pregel's):
            # LangGraph streams values after a step's writes, and a state graph's input is
            # the first step's (``__start__``)
            self.pending_writes = []
            await self._put_checkpoint(
                "input", updated=[c for c in changed if self.channels[c].is_available()]
            )
            return True
        raise EmptyInputError(f"Received no input for {START}")

    if TYPE_CHECKING:  # provided by PregelLoop or the other mixin

        def next_version(self, current: str | None) -> str:  # pragma: no cover - PregelLoop's
            ...

        def push_checkpoint(
            self,
            config: dict[str, Any],
            parent_config: dict[str, Any] | None,
            metadata: Any,
            upcoming: list[Task],
        ) -> None:  # pragma: no cover - PregelLoop's
            ...

        def _plan(self) -> list[Task]:  # pragma: no cover - PregelLoop's
            ...

        async def _put_checkpoint(
            self,
            source: str,
            writer_nodes: list[str] | None = None,
            updated: Iterable[str] | None = None,
        ) -> None:  # pragma: no cover
            ...

        def _push(self, mode: str, chunk: Any) -> None:  # pragma: no cover - LoopStreaming's
            ...

        def _values(self) -> dict[str, Any]:  # pragma: no cover - PregelLoop's
            ...

        def _stream_keys(self) -> list[str]:  # pragma: no cover - PregelLoop's
            ...
