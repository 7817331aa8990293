"""Shared test configuration: Qt always offscreen."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
