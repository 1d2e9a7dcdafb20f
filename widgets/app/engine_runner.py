"""Run the analysis engines off the GUI thread, debounced, dropping stale results.

Every edit makes a new immutable :class:`~designer.model.Project` value, so the
snapshot sent to the worker is the value itself: no copy, no locks. Requests
are debounced with a single-shot timer so a burst of edits (typing, a drag)
costs one run; runs are serialised on one worker thread, and a result whose
revision is older than the newest request is dropped instead of shown, so the
dashboards never flash back to an outdated design.

Results cross back to the GUI thread through a queued signal: the worker never
touches a QObject other than emitting that signal. Before that, the worker builds
the result's per-rack lookup (:meth:`designer.analysis.Analysis.rack`), so the
first view that asks for a rack's figures does not pay for every rack on the GUI
thread (tens of milliseconds on a 100,000-GPU design).
"""
from __future__ import annotations

from contextlib import suppress

import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from catalog import Catalog
from designer.analysis import analyze
from designer.model import Project

AnalyzeFn = Callable[[Project, Catalog], Any]


class EngineRunner(QObject):
    """Debounced, single-worker runner for ``analyze_fn(project, catalog)``.

    Parameters
    ----------
    catalog
        Passed to every run.
    analyze_fn
        The engine entry point; pure, must not touch Qt.
    debounce_ms
        Quiet time after the last :meth:`request` before a run starts.
    sync
        Run inside :meth:`request` on the calling thread (tests, CLI-like use).
    """

    #: A result for ``revision`` (the newest requested) is ready; emitted on the GUI thread.
    finished = Signal(int, object)
    #: A result for ``revision`` arrived after a newer request and was thrown away.
    dropped = Signal(int)
    #: The engine raised for ``revision``; the message is one line.
    failed = Signal(int, str)
    #: True while a run is pending (debouncing) or in flight.
    busy_changed = Signal(bool)
    # Internal: worker -> GUI thread hop (queued connection).
    _delivered = Signal(int, object, object)

    def __init__(self, catalog: Catalog, analyze_fn: AnalyzeFn = analyze, debounce_ms: int = 200,
                 parent: QObject | None = None, sync: bool = False):
        super().__init__(parent)
        self.catalog = catalog
        self.analyze_fn = analyze_fn
        self.sync = sync
        #: How many results were dropped as stale (for tests and the status bar).
        self.dropped_count = 0
        #: How many times ``analyze_fn`` actually ran.
        self.run_count = 0
        self._latest = -1
        self._pending: tuple[int, Project] | None = None
        self._in_flight = 0
        self._busy = False
        self._closed = False
        self._executor: ThreadPoolExecutor | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(max(0, int(debounce_ms)))
        self._timer.timeout.connect(self._submit)
        self._delivered.connect(self._on_delivered, Qt.ConnectionType.QueuedConnection)

    # ---- public API ---------------------------------------------------------
    def request(self, revision: int, project: Project) -> None:
        """Ask for an analysis of ``project`` at ``revision``; bursts coalesce into one run."""
        if self._closed:
            return
        self._latest = max(self._latest, revision)
        if self.sync:
            self._run_sync(revision, project)
            return
        self._pending = (revision, project)
        self._timer.start()
        self._update_busy()

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def latest_revision(self) -> int:
        return self._latest

    def shutdown(self, wait: bool = True) -> None:
        """Stop: cancel the pending run, drop queued ones, ignore any result still to come."""
        self._closed = True
        self._timer.stop()
        self._pending = None
        if self._executor is not None:
            self._executor.shutdown(wait=wait, cancel_futures=True)
            self._executor = None
        self._in_flight = 0
        self._update_busy()

    # ---- internals ----------------------------------------------------------
    def _run_sync(self, revision: int, project: Project) -> None:
        self.run_count += 1
        try:
            result = _prepared(self.analyze_fn(project, self.catalog))
        except Exception as exc:  # noqa: BLE001 - an engine bug must not take the GUI down
            self.failed.emit(revision, _one_line(exc))
            return
        self.finished.emit(revision, result)

    def _submit(self) -> None:
        if self._pending is None or self._closed:
            return
        revision, project = self._pending
        self._pending = None
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="podplanner-engine")
        self._in_flight += 1
        future = self._executor.submit(self._work, revision, project)
        future.add_done_callback(lambda f, rev=revision: self._done(rev, f))
        self._update_busy()

    def _work(self, revision: int, project: Project):
        """Worker thread: skip work a newer request already made obsolete, else run the engine."""
        if revision < self._latest:
            return _Skipped()
        self.run_count += 1
        return _prepared(self.analyze_fn(project, self.catalog))

    def _done(self, revision: int, future: Future) -> None:
        # Runs on the worker thread (or the caller's, if cancelled): only emit, never touch widgets.
        if self._closed or future.cancelled():
            return
        exc = future.exception()
        with suppress(RuntimeError):  # the runner was deleted while the engine ran
            self._delivered.emit(revision, None if exc else future.result(), exc)

    def _on_delivered(self, revision: int, result: object, exc: object) -> None:
        if self._closed:
            return
        self._in_flight = max(0, self._in_flight - 1)
        if exc is not None:
            self.failed.emit(revision, _one_line(exc))
        elif isinstance(result, _Skipped) or revision < self._latest:
            self.dropped_count += 1
            self.dropped.emit(revision)
        else:
            self.finished.emit(revision, result)
        self._update_busy()

    def _update_busy(self) -> None:
        busy = not self._closed and (self._pending is not None or self._in_flight > 0)
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)


def _prepared(result):
    """``result`` with its per-rack lookup built (asking for any rack builds it once, for all racks)."""
    rack = getattr(result, "rack", None)
    if callable(rack):
        rack("")
    return result


class _Skipped:
    """Marker result: the run was not started because a newer revision was requested."""


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    at = f" (in {where.name}, {where.filename.rsplit('/', 1)[-1]}:{where.lineno})" if where else ""
    return f"{type(exc).__name__}: {text[0] if text else ''}{at}"

