"""The window's export of a design with errors asks first, naming them; so does a push into NetBox (a compare,
which writes nothing, does not ask)."""
from __future__ import annotations

import pytest

from designer.design_errors import design_errors
from tests.designer.test_fileformat import GOLDEN
from tests.widgets.test_netbox_push_dialog import FakePush, open_dialog
from widgets.app.main_window import MainWindow


@pytest.fixture
def broken_window(qtbot, catalog):
    w = MainWindow(catalog, debounce_ms=0)
    qtbot.addWidget(w)
    assert w.open_path(GOLDEN), w.last_error
    qtbot.waitUntil(lambda: w.analysis is not None and not w.runner.busy, timeout=60000)
    return w


def _asking(monkeypatch, window, answer: bool) -> list:
    asked = []

    def confirm(self, question, errors, button="Write a draft"):
        asked.append((question, errors, button))
        return answer

    monkeypatch.setattr(type(window.exports), "confirm_errors", confirm)
    return asked


def test_an_export_of_a_design_with_errors_asks_and_cancel_writes_nothing(broken_window, qtbot, tmp_path,
                                                                           monkeypatch):
    window = broken_window
    out = tmp_path / "bill.csv"
    monkeypatch.setattr(type(window.exports), "ask_path", lambda self, fmt: str(out))
    asked = _asking(monkeypatch, window, False)
    window.exports.actions["csv"].trigger()
    question, errors, button = asked[0]
    assert errors == design_errors(window.analysis) and errors.count == 3 and button == "Write a draft"
    assert question.startswith("Write Bill of materials (CSV) (bill.csv) all the same, as a draft?")
    assert not out.exists() and not window.exports.busy
    assert window.statusBar().currentMessage() == "Bill of materials (CSV) was not written: the design has 3 errors"


def test_write_a_draft_writes_it(broken_window, qtbot, tmp_path, monkeypatch):
    window = broken_window
    out = tmp_path / "bill.csv"
    monkeypatch.setattr(type(window.exports), "ask_path", lambda self, fmt: str(out))
    asked = _asking(monkeypatch, window, True)
    with qtbot.waitSignal(window.exports.exported, timeout=60000):
        window.exports.actions["csv"].trigger()
    assert len(asked) == 1 and out.stat().st_size > 0


def test_a_push_of_a_design_with_errors_asks_and_a_compare_does_not(broken_window, qtbot, monkeypatch):
    window = broken_window
    asked = _asking(monkeypatch, window, False)
    push = FakePush()
    dialog = open_dialog(window, qtbot, push, "http://nb", "t")
    dialog.push_button.click()
    assert not push.calls and asked[0][2] == "Push all the same"
    text = dialog.output.toPlainText()
    assert text.startswith("Not pushed: the design has 3 errors.\nRack ") and "132.0 kW" in text
    with qtbot.waitSignal(dialog.pushed, timeout=10000):
        dialog.compare_button.click()
    assert len(asked) == 1 and push.calls[0][3] is True  # the dry run went ahead without asking


def test_the_question_names_the_errors(broken_window, qtbot, monkeypatch):
    """The real message box: its text lists the errors by place, and Cancel is the default."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    seen = {}

    def answer():
        box = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible())
        seen["text"], seen["default"] = box.text(), box.defaultButton().text()
        seen["buttons"] = sorted(b.text() for b in box.buttons())
        box.reject()

    QTimer.singleShot(0, answer)
    errors = design_errors(broken_window.analysis)
    assert broken_window.exports.confirm_errors("Write it all the same?", errors) is False
    assert seen["text"].startswith("The design has 3 errors:\n\nRack ") and "Write it all the same?" in seen["text"]
    assert "The Findings panel lists every error." in seen["text"]
    assert seen["default"] == "Cancel" and seen["buttons"] == ["Cancel", "Write a draft"]
