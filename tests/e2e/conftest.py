"""End-to-end studio tests share the studio tests' qasync loop fixture."""

from tests.fixtures.openai_server import openai_server
from tests.studio.conftest import _pyside_refcount_guard, qloop

__all__ = ["_pyside_refcount_guard", "openai_server", "qloop"]
