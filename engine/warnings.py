"""LangGraph's deprecation warning classes, where a program ported by imports
(``langgraph.warnings`` -> ``engine.warnings``) finds them, and which the engine issues where
LangGraph issues them (``create_react_agent``).

A warning carries the LangGraph version that deprecated the feature (``since``) and the one
expected to remove it (``expected_removal``, by default the next major); its text ends with
both, as LangGraph's does."""

from __future__ import annotations

__all__ = [
    "LangGraphDeprecatedSinceV05",
    "LangGraphDeprecatedSinceV10",
    "LangGraphDeprecatedSinceV11",
    "LangGraphDeprecationWarning",
]


class LangGraphDeprecationWarning(DeprecationWarning):
    """A deprecated LangGraph feature: ``message``, ``since`` and ``expected_removal``."""

    message: str
    since: tuple[int, int]
    expected_removal: tuple[int, int]

    def __init__(
        self,
        message: str,
        *args: object,
        since: tuple[int, int],
        expected_removal: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(message, *args)
        self.message = message.rstrip(".")
        self.since = since
        self.expected_removal = expected_removal or (since[0] + 1, 0)

    def __str__(self) -> str:
        (since_major, since_minor), (gone_major, gone_minor) = self.since, self.expected_removal
        return (
            f"{self.message}. Deprecated in LangGraph V{since_major}.{since_minor}"
            f" to be removed in V{gone_major}.{gone_minor}."
        )


class LangGraphDeprecatedSinceV05(LangGraphDeprecationWarning):
    """Deprecated since LangGraph 0.5, to be removed in 2.0."""

    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(0, 5), expected_removal=(2, 0))


class LangGraphDeprecatedSinceV10(LangGraphDeprecationWarning):
    """Deprecated since LangGraph 1.0, to be removed in 2.0."""

    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(1, 0), expected_removal=(2, 0))


class LangGraphDeprecatedSinceV11(LangGraphDeprecationWarning):
    """Deprecated since LangGraph 1.1, to be removed in 3.0."""

    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(1, 1), expected_removal=(3, 0))
