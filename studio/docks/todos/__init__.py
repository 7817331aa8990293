"""The Todos dock: the board of TodoListMiddleware, live and at any checkpoint."""

from studio.docks.todos.view import TodoBoardDock

__all__ = ["TodoBoardDock"]
