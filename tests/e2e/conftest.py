"""End-to-end studio tests share the studio tests' qasync loop fixture."""

from tests.fixtures.openai_server import openai_server
from tests.studio.conftest import qloop

__all__ = ["openai_server", "qloop"]
