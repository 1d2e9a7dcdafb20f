"""File ▸ Export: the registry's formats, written from the window's analysis of the design as it is now."""
from __future__ import annotations

import csv

import pytest

import drawn as samples
from designer.commands import RemoveRacksCommand
from exporters.registry import FORMATS
from widgets.app.main_window import MainWindow


@pytest.fixture
def window(qtbot, catalog):
    w = MainWindow(catalog, debounce_ms=0)
    qtbot.addWidget(w)
    assert w.open_path(samples.DGX_B200_SU), w.last_error
    qtbot.waitUntil(lambda: w.analysis is not None and not w.runner.busy, timeout=60000)
    return w


def test_the_menu_lists_the_formats_the_command_line_offers(window):
    titles = [a.text() for a in window.export_menu.actions()]
    # the files, then (after a separator) the push through NetBox's API
    assert titles == [f"{fmt.title}…" for fmt in FORMATS.values()] + ["", "Push to NetBox…"]
    assert set(window.exports.actions) == set(FORMATS)


def test_the_window_offers_the_customer_quote_and_its_technical_appendix(window, qtbot, tmp_path, monkeypatch):
    from pypdf import PdfReader

    titles = [a.text() for a in window.export_menu.actions()]
    assert "Quote (PDF)…" in titles and "Quote technical appendix (PDF)…" in titles
    for name in ("pdf", "pdf-appendix"):
        out = tmp_path / f"{name}.pdf"
        monkeypatch.setattr(type(window.exports), "ask_path", lambda self, fmt, out=out: str(out))
        with qtbot.waitSignal(window.exports.exported, timeout=60000):
            window.exports.actions[name].trigger()
    quote = " ".join(p.extract_text() for p in PdfReader(str(tmp_path / "pdf.pdf")).pages)
    appendix = " ".join(p.extract_text() for p in PdfReader(str(tmp_path / "pdf-appendix.pdf")).pages)
    assert "Accepted for" in quote and "The design checks report" not in quote
    assert "The design checks report" in appendix and "Accepted for" not in appendix


def _rows(path):
    return list(csv.DictReader(path.open(encoding="utf-8", newline="")))


def test_export_writes_the_current_analysis(window, qtbot, tmp_path, monkeypatch):
    out = tmp_path / "plan"
    monkeypatch.setattr(type(window.exports), "ask_path", lambda self, fmt: str(out))
    with qtbot.waitSignal(window.exports.exported, timeout=60000) as sig:
        window.exports.actions["cabling"].trigger()
    written = tmp_path / "plan.csv"  # the format's suffix is added to a bare name
    # the compute fabric's 508 links, then the management networks' 121 (the drawn design has no storage fabric)
    assert sig.args == [str(written), "629 links"]
    compute = [r for r in _rows(written) if r["network"] == "compute"]
    assert len(compute) == 508 == len(window.analysis.result("fabric").links())
    assert "Wrote plan.csv: 629 links" in window.statusBar().currentMessage()


def test_an_export_during_an_edit_waits_for_that_edits_analysis(window, qtbot, tmp_path):
    # Removing compute rack A01 takes its two DGX and their 16 links out of the plan.
    window.document.push(RemoveRacksCommand(("a01",)))
    assert window.runner.busy
    out = tmp_path / "cabling.csv"
    with qtbot.waitSignal(window.exports.exported, timeout=60000):
        window.exports.export(FORMATS["cabling"], out)
    rows = _rows(out)
    assert rows and not any(r["a_rack"] == "a01" for r in rows)
    compute = [r for r in rows if r["network"] == "compute"]
    assert len(compute) == len(window.analysis.result("fabric").links()) == 508 - 16
    assert len(rows) - len(compute) == 121 - 2 * 3  # and each DGX's BMC and two in-band links


def test_a_write_error_is_shown(window, qtbot, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(type(window.exports), "report_error", lambda self, text: shown.append(text))
    window.exports.export(FORMATS["cabling"], tmp_path / "missing-folder" / "x.csv")
    # refused before the worker starts, with the place named (a write error on the worker: test_export_progress)
    assert shown == [f"Cabling plan was not written: {tmp_path / 'missing-folder'}: no such folder"]
    assert not window.exports.busy


def test_no_export_from_an_older_design_when_the_engines_fail(window, qtbot, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(type(window.exports), "report_error", lambda self, text: shown.append(text))

    def broken(project, catalog):
        raise RuntimeError("engine down")

    window.runner.analyze_fn = broken
    window.document.push(RemoveRacksCommand(("a01",)))
    out = tmp_path / "cabling.csv"
    window.exports.export(FORMATS["cabling"], out)  # waits for the edit's analysis, which fails
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=60000)
    assert len(shown) == 1
    assert shown[0].startswith("Cabling plan was not written: the analysis failed (RuntimeError: engine down")
    window.exports.export(FORMATS["cabling"], out)  # the analysis on hand is of the design before the edit
    assert "analysis of the current design failed" in shown[-1]
    assert not out.exists()
