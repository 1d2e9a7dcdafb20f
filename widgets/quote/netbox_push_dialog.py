"""File ▸ Export ▸ Push to NetBox…: the design pushed into a NetBox through its REST API, as ``podplanner export
--netbox-url URL --netbox-token T [--netbox-dry-run]`` pushes it (:func:`exporters.netbox_push.push_netbox`).

Compare is the dry run: it reads NetBox and lists what a push would create and change, writing nothing. Push
then creates and patches only what differs, so pushing again changes nothing. Both work on the window's
analysis of the design as it is now (an edit still being analysed is waited for by asking again), on a worker
thread: NetBox answers in seconds to minutes (it traces each cable's path as it creates it), and the window stays
usable meanwhile; each step NetBox is asked for is shown as it starts.

The address is remembered between sessions; the token is not stored (NetBox's tokens are secrets): it is typed,
or taken from the NETBOX_TOKEN environment variable as the command line takes it.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QPlainTextEdit,
                               QPushButton, QVBoxLayout)

from designer.design_errors import design_errors

#: where the address is remembered
URL_KEY = "netbox/url"
#: the longest address and token the fields take
MAX_URL, MAX_TOKEN = 500, 200


def _push(*args, **kwargs):
    from exporters.netbox_push import push_netbox  # loaded on first use: the window opens without it

    return push_netbox(*args, **kwargs)


class NetBoxPushDialog(QDialog):
    """Compare with or push into the NetBox at an address; ``push`` is :func:`push_netbox` (tests give another)."""

    #: a line of progress, from the worker
    _said = Signal(str)
    #: the push's outcome, from the worker: (report or None, error or None)
    _finished = Signal(object, object)
    #: a push or comparison ended: its report (None when it failed)
    pushed = Signal(object)

    def __init__(self, window, push=_push):
        super().__init__(window)
        self.setWindowTitle("Push to NetBox")
        self.window_ = window
        self._push = push
        self._executor: ThreadPoolExecutor | None = None
        self.url = QLineEdit(str(window.settings.value(URL_KEY, "") or ""))
        self.url.setMaxLength(MAX_URL)
        self.url.setPlaceholderText("https://netbox.example.com")
        self.token = QLineEdit(os.environ.get("NETBOX_TOKEN", "")[:MAX_TOKEN])
        self.token.setMaxLength(MAX_TOKEN)
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.token.setPlaceholderText("nbt_… (your user ▸ API tokens in NetBox)")
        self.token.setToolTip("Not stored; the NETBOX_TOKEN environment variable fills it when set")
        form = QFormLayout()
        form.addRow("NetBox address", self.url)
        form.addRow("API token", self.token)
        note = QLabel("Compare lists what a push would create and change, and writes nothing. Push creates what "
                      "NetBox lacks and patches only what differs; it never deletes.")
        note.setWordWrap(True)
        self.output = QPlainTextEdit()
        self.output.setReadOnly(True)
        self.output.setMinimumSize(640, 240)
        self.output.setPlaceholderText("What NetBox holds against the design shows here.")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.compare_button = QPushButton("Compare")
        self.push_button = QPushButton("Push")
        buttons.addButton(self.compare_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.push_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.compare_button.clicked.connect(lambda: self.start(dry_run=True))
        self.push_button.clicked.connect(lambda: self.start(dry_run=False))
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.output, 1)
        layout.addWidget(buttons)
        self._said.connect(self.output.appendPlainText, Qt.ConnectionType.QueuedConnection)
        self._finished.connect(self._on_finished, Qt.ConnectionType.QueuedConnection)

    @property
    def running(self) -> bool:
        return not self.compare_button.isEnabled()

    def start(self, dry_run: bool) -> None:
        """Compare (``dry_run``) or push the window's current analysis; a missing field or an analysis still
        under way is said in the output, and nothing starts."""
        url, token = self.url.text().strip(), self.token.text().strip()
        if not url or not token:
            self.output.setPlainText("Give NetBox's address and an API token.")
            return
        window = self.window_
        if window.analysis is None or not window.exports.current():
            self.output.setPlainText("The design is still being analysed: ask again when the status bar says it "
                                     "is done.")
            return
        errors = design_errors(window.analysis)
        if errors and not dry_run and not window.exports.confirm_errors(
                "Push it into NetBox all the same? NetBox would then hold a design that does not work as drawn.",
                errors, "Push all the same"):
            self.output.setPlainText(f"Not pushed: {errors.phrase}.\n{errors.listing()}")
            return
        self.output.setPlainText(f"{'Comparing with' if dry_run else 'Pushing to'} NetBox at {url}…")
        self._busy(True)
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="podplanner-netbox")
        self._executor.submit(self._run, window.analysis, url, token, dry_run)

    def _run(self, analysis, url: str, token: str, dry_run: bool) -> None:
        # the worker thread: only emits
        try:
            report = self._push(analysis, url, token, dry_run=dry_run, say=self._emit_line)
        except Exception as exc:  # said in words in the output, never a traceback into the event loop
            self._emit(self._finished, None, exc)
            return
        self._emit(self._finished, report, None)

    def _emit_line(self, text: str) -> None:
        self._emit(self._said, f"  {text}"[:500])

    @staticmethod
    def _emit(signal, *args) -> None:
        with suppress(RuntimeError):  # the dialog was deleted while NetBox answered
            signal.emit(*args)

    def _on_finished(self, report, exc) -> None:
        self._busy(False)
        if exc is not None:
            from exporters.base import ExportError

            known = isinstance(exc, ExportError)
            self.output.appendPlainText(f"Not done: {exc}" if known else
                                        f"Not done: {type(exc).__name__}: {exc}")
            self.pushed.emit(None)
            return
        self.window_.settings.setValue(URL_KEY, self.url.text().strip())
        head = "would change" if report.dry_run else "changed"
        self.output.appendPlainText(f"NetBox {report.netbox_version} at {report.url}: {head} "
                                    f"{report.changes:,} object{'s' if report.changes != 1 else ''}"
                                    + (" (nothing was written)" if report.dry_run else ""))
        for line in report.lines():
            self.output.appendPlainText(f"  {line}")
        self.pushed.emit(report)

    def _busy(self, busy: bool) -> None:
        for b in (self.compare_button, self.push_button, self.url, self.token):
            b.setEnabled(not busy)

    def done_with(self) -> None:
        """The window closes: a push under way finishes on its thread; its outcome is not shown."""
        if self._executor is not None:
            self._executor.shutdown(wait=False)
            self._executor = None
