"""Shared test configuration: Qt always offscreen; one real ``langgraph dev`` server for the
remote-mode tests of every package (started on first use, once per session); a clock for the
engine stores' writes (``store_clock``)."""

import os

from tests.fixtures.langgraph_server import langgraph_server
from tests.fixtures.store_clock import store_clock

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

__all__ = ["langgraph_server", "store_clock"]
