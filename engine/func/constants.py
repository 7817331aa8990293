"""Channel and trigger names of the functional API."""

__all__ = ["PREVIOUS", "PUSH", "RETURN"]

RETURN = "__return__"
"""The write holding a task call's return value (checkpointed, so a resume does not re-run it)."""
PREVIOUS = "__previous__"
"""The channel holding what an entrypoint saved for its next run (``previous``)."""
PUSH = "__pregel_push"
"""The trigger of a task call."""
