"""The quote's revision in the window: the Revision field and New revision button of the quote settings, and the quote
PDF with a page of changes since an earlier revision's design file."""
from __future__ import annotations

import pytest
from pypdf import PdfReader
from PySide6.QtCore import Qt

from designer import samples
from designer.commands import UpdateQuoteCommand
from designer.fileformat import save
from designer.quote_settings import QuoteSettings
from widgets.app.main_window import MainWindow


@pytest.fixture
def window(qtbot, catalog):
    w = MainWindow(catalog, debounce_ms=0)
    qtbot.addWidget(w)
    w.show()
    assert w.open_path(samples.DGX_B200_SU), w.last_error
    qtbot.waitUntil(lambda: w.analysis is not None and not w.runner.busy, timeout=60000)
    return w


def quote(window) -> QuoteSettings:
    return window.document.project.quote


def test_new_revision_sets_the_next_letter_as_one_undoable_edit(window):
    form = window.quote_actions.show_settings()
    assert form.revision.text() == "A" and quote(window).revision == "A"
    form.new_revision.click()
    assert quote(window).revision == "B" and form.revision.text() == "B"
    assert window.undo_action.text() == "Undo New revision B"
    form.new_revision.click()  # a second new revision is a step of its own, never merged into the first
    assert quote(window).revision == "C"
    window.undo_action.trigger()
    assert quote(window).revision == "B" and form.revision.text() == "B"
    window.undo_action.trigger()
    assert quote(window).revision == "A" and form.revision.text() == "A"


def test_a_typed_revision_is_checked_by_the_command_and_a_refusal_shown(window, qtbot):
    form = window.quote_actions.show_settings()
    form.revision.setFocus()
    form.revision.selectAll()
    qtbot.keyClicks(form.revision, "AD")
    qtbot.keyClick(form.revision, Qt.Key.Key_Return)
    assert quote(window).revision == "AD" and form.status.text() == ""
    form.revision.setText("a1")
    form.revision.editingFinished.emit()
    assert "quote.revision" in form.status.text() and "is not a revision letter" in form.status.text()
    assert quote(window).revision == "AD"
    window.undo_action.trigger()
    assert quote(window).revision == "A"


def test_past_zz_new_revision_is_refused_and_said(window):
    form = window.quote_actions.show_settings()
    form.revision.setText("ZZ")
    form.revision.editingFinished.emit()
    form.new_revision.click()
    assert quote(window).revision == "ZZ" and "ZZ is the last revision letter" in form.status.text()


def test_the_quote_pdf_with_changes_since_an_earlier_revision(window, qtbot, tmp_path, monkeypatch):
    earlier = tmp_path / "rev-a.podplan.json"
    save(window.document.project, earlier)  # revision A as it is now
    form = window.quote_actions.show_settings()
    form.new_revision.click()
    window.document.push(UpdateQuoteCommand({"excluded": ("nvaie",)}))  # revision B drops a line
    qtbot.waitUntil(lambda: not window.runner.busy and window.analysis.project.quote.excluded == ("nvaie",),
                    timeout=60000)
    out = tmp_path / "q.pdf"
    monkeypatch.setattr(type(window.exports), "ask_earlier_design", lambda self: str(earlier))
    monkeypatch.setattr(type(window.exports), "ask_path", lambda self, fmt: str(out))
    assert window.quote_actions.changes_action.text().startswith("Quote PDF with &changes since")
    with qtbot.waitSignal(window.exports.exported, timeout=60000):
        window.quote_actions.changes_action.trigger()
    texts = [p.extract_text() for p in PdfReader(str(out)).pages]
    page = next(t for t in texts if "Changes since revision A" in t and "Contents" not in t)
    assert "Removed" in page and "NVIDIA AI Enterprise subscription" in page and "Net change" in page
    assert "No. " in texts[0] and "rev. B" in texts[0]


def test_an_earlier_design_that_cannot_be_read_is_reported(window, qtbot, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(type(window.exports), "report_error", lambda self, text: shown.append(text))
    bad = tmp_path / "old.podplan.json"
    bad.write_text("{}")
    out = tmp_path / "q.pdf"
    window.exports.export_changes_since(bad, out)
    qtbot.waitUntil(lambda: bool(shown) and not window.exports.busy, timeout=60000)
    assert "old.podplan.json" in shown[0] and not out.exists()


def test_no_earlier_design_picked_writes_nothing(window, tmp_path, monkeypatch):
    monkeypatch.setattr(type(window.exports), "ask_earlier_design", lambda self: None)
    asked = []
    monkeypatch.setattr(type(window.exports), "ask_path", lambda self, fmt: asked.append(fmt))
    window.exports.export_changes_since()
    assert asked == [] and not window.exports.busy
