"""Help > About Stepwise (the version and what it runs on) and Help > Documentation (the
README, shown in the studio: it works offline and in an installed copy)."""

from __future__ import annotations

import platform
import sys
from importlib import metadata
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from studio.widgets.plain_text import plain_label
from studio.widgets.screen_fit import fit_on_screen, screen_room

__all__ = ["AboutDialog", "DocsDialog", "readme_text", "stepwise_version"]


def stepwise_version() -> str:
    try:
        return metadata.version("stepwise")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def readme_text() -> str:
    """The README: the checkout's file, else the installed package's description."""
    readme = Path(__file__).resolve().parents[2] / "README.md"
    try:
        return readme.read_text(encoding="utf-8")
    except OSError:
        pass
    try:
        return str(metadata.metadata("stepwise")["Description"] or "")
    except (metadata.PackageNotFoundError, KeyError):
        return ""


class AboutDialog(QDialog):
    """``version_label`` says the version; ``close_button`` closes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About Stepwise")
        self.version_label = plain_label(f"Stepwise {stepwise_version()}", self)
        self.version_label.setObjectName("Heading")
        details = plain_label(
            "A desktop debugger for LLM agents, with an embedded LangGraph-compatible engine.\n\n"
            f"Python {platform.python_version()} ({sys.platform})\n"
            f"Qt {qVersion()}, PySide6 {pyside_version}",
            self,
        )
        details.setTextFormat(Qt.TextFormat.PlainText)
        details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, parent=self)
        self.close_button = buttons.button(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.version_label)
        layout.addWidget(details)
        layout.addWidget(buttons)


class DocsDialog(QDialog):
    """The README in a scrolling browser sized to the screen; ``browser``, ``close_button``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Stepwise documentation")
        self.browser = QTextBrowser(self)
        self.browser.setOpenExternalLinks(True)
        text = readme_text()
        if text:
            self.browser.setMarkdown(text)  # our own README, not agent output
        else:
            self.browser.setPlainText("The README is not available in this installation.")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, parent=self)
        self.close_button = buttons.button(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)
        room = screen_room(self)
        content = self.browser.document().size().toSize()
        content.setWidth(min(room.width(), 900))
        fit_on_screen(self, content, 60)
