"""The functional API: ``@entrypoint`` workflows calling ``@task`` functions.

Both run on the Pregel runtime: an entrypoint is a graph with one node, and each task call is
a push task of the running superstep (see ``engine.func.call``).
"""

from engine.func.entrypoint import EntrypointGraph, entrypoint
from engine.func.future import TaskFuture
from engine.func.task import TaskFunction, task

SyncAsyncFuture = TaskFuture

__all__ = ["EntrypointGraph", "SyncAsyncFuture", "TaskFunction", "TaskFuture", "entrypoint", "task"]
