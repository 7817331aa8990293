"""Reload on save: when the agent file or a module it imported from its folder changes on
disk, the studio reloads the graph, as ``langgraph dev`` does.

``ReloadOnSave(window)`` watches the files (``QFileSystemWatcher``) and, a short quiet time
after the last change (editors write in several steps), asks the run controller to
``reload()``.  Editors that save by writing a new file and renaming it over the old one make
the watcher drop the path: the folder is watched too, and a path that reappears is watched
again.  Only a real change counts (modification time or size), not a touch of the folder.

During a run nothing is swapped under it: the status bar says the file changed and the reload
happens when the run ends.  A file that no longer imports shows its one-line error in the
status bar and the last good graph stays.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from engine.loader import AgentLoadError
from studio.run.project_files import project_modules, source_signature, spec_file

if TYPE_CHECKING:
    from studio.app.main_window import MainWindow

__all__ = ["ReloadOnSave"]

QUIET_MS = 300
"""How long the files must stay unchanged before the reload."""


class ReloadOnSave(QObject):
    reloaded = Signal()
    failed = Signal(str)
    """The one-line reason the changed file did not load (the last good graph stays)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._on_change)
        self.watcher.directoryChanged.connect(self._on_change)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(QUIET_MS)
        self.timer.timeout.connect(self._settled)
        self.files: dict[Path, tuple[int, int] | None] = {}
        """The watched files and their last seen signature."""
        self.pending = False
        """A change arrived during a run: reload when it ends."""
        self.last_error: str | None = None
        window.controller.on_idle.append(self._on_idle)

    # -- what is watched -----------------------------------------------------------------------

    def watch(self, spec: str | None) -> None:
        """Watch the files of the agent ``spec`` loads (nothing for a module or no agent)."""
        self.stop()
        path = spec_file(spec) if spec else None
        if path is None:
            return
        files = {path, *project_modules(path).values()}
        self.files = source_signature(sorted(files))
        self._rewatch()

    def stop(self) -> None:
        for paths in (self.watcher.files(), self.watcher.directories()):
            if paths:
                self.watcher.removePaths(paths)
        self.files = {}
        self.pending = False
        self.timer.stop()

    def _rewatch(self) -> None:
        """Watch every file that exists (again, after an editor replaced it) and its folder."""
        watched = set(self.watcher.files()) | set(self.watcher.directories())
        wanted = {str(p) for p in self.files if p.exists()}
        wanted |= {str(p.parent) for p in self.files if p.parent.exists()}
        missing = sorted(wanted - watched)
        if missing:
            self.watcher.addPaths(missing)

    # -- reacting --------------------------------------------------------------------------------

    def _on_change(self, _path: str) -> None:
        self._rewatch()
        self.timer.start()  # restarts: the reload waits for the writes to settle

    def changed_files(self) -> list[Path]:
        now = source_signature(self.files)
        return [p for p, sig in now.items() if sig != self.files.get(p) and sig is not None]

    def _settled(self) -> None:
        self._rewatch()
        changed = self.changed_files()
        if not changed:
            return
        names = ", ".join(p.name for p in changed)
        if self.window.controller.busy:
            self.pending = True
            self.window.status.show_message(f"{names} changed: the graph reloads when the run ends")
            return
        self.reload(names)

    def _on_idle(self) -> None:
        if self.pending and not self.window.controller.busy:
            self.pending = False
            self.reload(", ".join(p.name for p in self.changed_files()) or "the agent file")

    def reload(self, what: str = "the agent file") -> bool:
        """Reload now; True when the new graph is shown."""
        ctl = self.window.controller
        try:
            ctl.reload()
        except AgentLoadError as exc:
            self._remember_signatures()  # this version failed: wait for the next save
            self.last_error = str(exc)
            self.window.status.show_message(f"Reload failed, showing the last good graph: {exc}")
            self.failed.emit(str(exc))
            return False
        except RuntimeError as exc:
            self.window.status.show_message(str(exc))
            return False
        self.last_error = None
        self.watch(ctl.spec)  # the file may import other project modules now
        self.window.status.show_message(f"Reloaded {what}")
        self.reloaded.emit()
        return True

    def _remember_signatures(self) -> None:
        self.files = source_signature(self.files)
