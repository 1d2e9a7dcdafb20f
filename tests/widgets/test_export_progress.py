"""File ▸ Export writes on a worker thread, with a progress bar, reporting success and failure on the GUI thread."""
from __future__ import annotations

import threading

import pytest

import drawn as samples
from catalog.files import write_atomic
from exporters.registry import FORMATS, ExportError, ExportFormat
from widgets.app.main_window import MainWindow


class _Recorder:
    """A fake export format's write function: notes its thread, can be held until released, writes a line."""

    def __init__(self, hold: bool = False, error: Exception | None = None):
        self.threads: list[int] = []
        self.started = threading.Event()
        self.release = threading.Event()
        if not hold:
            self.release.set()
        self.error = error

    def __call__(self, analysis, path) -> str:
        self.threads.append(threading.get_ident())
        self.started.set()
        assert self.release.wait(60), "the test never released the write"
        if self.error is not None:
            raise self.error
        gpus = analysis.summary_json["gpus"]
        write_atomic(path, f"{gpus} GPUs\n")
        return f"{gpus:,} GPUs"

    def format(self) -> ExportFormat:
        return ExportFormat("gpu-count", "GPU count", ".txt", "the design's GPU count, one line", self)


@pytest.fixture
def recorder(monkeypatch):
    """A fake format registered in the formats the Export menu lists."""
    rec = _Recorder()
    monkeypatch.setitem(FORMATS, "gpu-count", rec.format())
    return rec


@pytest.fixture
def window(qtbot, catalog, recorder):
    w = MainWindow(catalog, debounce_ms=0)
    qtbot.addWidget(w)
    assert w.open_path(samples.DGX_B200_SU), w.last_error
    qtbot.waitUntil(lambda: w.analysis is not None and not w.runner.busy, timeout=60000)
    return w


def test_the_menu_lists_every_registered_format(window):
    assert [a.text() for a in window.export_menu.actions()] == [f"{f.title}…" for f in FORMATS.values()] + [
        "", "Push to NetBox…"]
    assert "GPU count…" in [a.text() for a in window.export_menu.actions()]


def test_an_export_runs_off_the_gui_thread_with_a_progress_bar(window, qtbot, tmp_path, monkeypatch):
    rec = _Recorder(hold=True)
    monkeypatch.setitem(FORMATS, "gpu-count", rec.format())
    out = tmp_path / "count.txt"
    window.exports.export(FORMATS["gpu-count"], out)
    qtbot.waitUntil(rec.started.is_set, timeout=60000)
    # The GUI thread is free while the write is held: the bar shows, the status line says what is written.
    assert window.exports.busy and not window.exports.progress.isHidden()
    assert window.statusBar().currentMessage() == "Writing count.txt…"
    with qtbot.waitSignal(window.exports.exported, timeout=60000) as sig:
        rec.release.set()
    assert rec.threads and rec.threads[0] != threading.get_ident()
    assert sig.args == [str(out), "248 GPUs"]
    assert out.read_text(encoding="utf-8") == f"{window.analysis.summary_json['gpus']} GPUs\n" == "248 GPUs\n"
    assert not window.exports.busy and window.exports.progress.isHidden()
    assert window.statusBar().currentMessage() == f"Wrote count.txt: 248 GPUs (in {tmp_path})"


def test_the_menu_entry_writes_through_the_worker(window, qtbot, tmp_path, monkeypatch, recorder):
    monkeypatch.setattr(type(window.exports), "ask_path", lambda self, fmt: str(tmp_path / "from-menu"))
    with qtbot.waitSignal(window.exports.exported, timeout=60000):
        window.exports.actions["gpu-count"].trigger()
    assert (tmp_path / "from-menu.txt").read_text(encoding="utf-8") == "248 GPUs\n"
    assert recorder.threads[0] != threading.get_ident()


def test_two_exports_in_a_row_both_complete_in_order(window, qtbot, tmp_path):
    written = []
    window.exports.exported.connect(lambda path, account: written.append(path))
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    window.exports.export(FORMATS["gpu-count"], first)
    window.exports.export(FORMATS["gpu-count"], second)
    qtbot.waitUntil(lambda: len(written) == 2, timeout=60000)
    assert written == [str(first), str(second)]
    assert first.read_text(encoding="utf-8") == second.read_text(encoding="utf-8") == "248 GPUs\n"
    assert not window.exports.busy


@pytest.mark.parametrize("error, shown", [
    (ExportError("the design has no racks to list"), "GPU count: the design has no racks to list"),
    (PermissionError(13, "Permission denied"), "cannot be written (Permission denied)"),
    (KeyError("gpus"), "GPU count was not written: KeyError: 'gpus' (in __call__, test_export_progress.py:"),
])
def test_a_failing_write_shows_the_error(window, qtbot, tmp_path, monkeypatch, error, shown):
    reported = []
    monkeypatch.setattr(type(window.exports), "report_error", lambda self, text: reported.append(text))
    monkeypatch.setitem(FORMATS, "gpu-count", _Recorder(error=error).format())
    out = tmp_path / "never.txt"
    window.exports.export(FORMATS["gpu-count"], out)
    qtbot.waitUntil(lambda: bool(reported), timeout=60000)
    assert len(reported) == 1 and shown in reported[0]
    assert not out.exists() and not window.exports.busy and window.exports.progress.isHidden()


def test_closing_the_window_while_an_export_runs_finishes_the_file(window, qtbot, tmp_path, monkeypatch):
    rec = _Recorder(hold=True)
    monkeypatch.setitem(FORMATS, "gpu-count", rec.format())
    reported = []
    monkeypatch.setattr(type(window.exports), "report_error", lambda self, text: reported.append(text))
    out = tmp_path / "late.txt"
    window.exports.export(FORMATS["gpu-count"], out)
    qtbot.waitUntil(rec.started.is_set, timeout=60000)
    # Released from another thread once close() has begun, so the write can only end while close() waits for it.
    closing = threading.Event()
    shutdown = type(window.exports).shutdown
    monkeypatch.setattr(type(window.exports), "shutdown", lambda self: closing.set() or shutdown(self))
    releaser = threading.Thread(target=lambda: closing.wait(60) and rec.release.set())
    releaser.start()
    window.close()
    releaser.join(60)
    assert not window.isVisible()
    assert out.read_text(encoding="utf-8") == "248 GPUs\n"
    qtbot.wait(50)  # the worker's queued report arrives at a closed controller and is dropped
    assert reported == [] and "Wrote" not in window.statusBar().currentMessage()
    window.exports.export(FORMATS["gpu-count"], tmp_path / "after-close.txt")
    assert not (tmp_path / "after-close.txt").exists()


def test_exports_asked_for_during_an_analysis_are_all_written_after_it(window, qtbot, tmp_path):
    from designer.commands import UpdateQuoteCommand

    written = []
    window.exports.exported.connect(lambda path, account: written.append(path))
    window.document.push(UpdateQuoteCommand({"customer": "Acme"}))  # the engines start on this edit
    assert window.runner.busy
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    window.exports.export(FORMATS["gpu-count"], first)
    window.exports.export(FORMATS["gpu-count"], second)
    qtbot.waitUntil(lambda: len(written) == 2, timeout=60000)
    assert written == [str(first), str(second)]


def test_opening_another_design_drops_an_export_waiting_for_the_old_one(window, qtbot, tmp_path, monkeypatch):
    from designer.commands import UpdateQuoteCommand

    reported = []
    monkeypatch.setattr(type(window.exports), "report_error", lambda self, text: reported.append(text))
    window.document.push(UpdateQuoteCommand({"customer": "Acme"}))
    out = tmp_path / "dgx.txt"
    window.exports.export(FORMATS["gpu-count"], out)
    assert window.open_path(samples.GB200_NVL72_SU), window.last_error
    qtbot.waitUntil(lambda: window.analysis is not None and not window.runner.busy, timeout=60000)
    qtbot.wait(50)
    assert not out.exists()  # never the NVL72 design's figures under the DGX design's file name
    assert reported == ["GPU count was not written to dgx.txt: another design was opened before its analysis "
                        "was done"]


def test_closing_before_the_analysis_says_the_waiting_export_was_not_written(window, tmp_path, monkeypatch):
    from designer.commands import UpdateQuoteCommand

    reported = []
    monkeypatch.setattr(type(window.exports), "report_error", lambda self, text: reported.append(text))
    window.document.push(UpdateQuoteCommand({"customer": "Acme"}))
    window.exports.export(FORMATS["gpu-count"], tmp_path / "late.txt")
    monkeypatch.setattr(type(window.files), "ask_save_changes", lambda self: "discard")
    window.close()
    assert len(reported) == 1 and "late.txt: the window was closed" in reported[0]


def test_a_folder_format_asks_for_a_folder_and_writes_into_it(window, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    asked = []
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *a, **k: asked.append(a) or str(tmp_path / "netbox")))
    written = []
    window.exports.exported.connect(lambda path, account: written.append((path, account)))
    window.exports.actions["netbox"].trigger()
    qtbot.waitUntil(lambda: bool(written), timeout=30000)
    racks = len(window.project.racks)
    assert asked and written[0][0] == str(tmp_path / "netbox") and f"{racks} racks" in written[0][1]
    assert (tmp_path / "netbox" / "06-racks.csv").is_file()
