"""The bill of materials dock, the quote settings and price lists, on the bundled DGX B200 sample."""
from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt

from designer import samples
from designer.commands import UpdateQuoteCommand
from designer.formatting import money
from widgets.quote.bom_panel import EXTENDED, INDICATIVE, NO_PRICE, STALE, UNIT, WARNING_TEXT
from widgets.app.main_window import MainWindow


@pytest.fixture
def window(sample_window):
    sample_window.show_bom()
    return sample_window


def _bom(window):
    return window.analysis.bom


def _section(window, key):
    return next(s for s in _bom(window).sections if s.section == key)


def _shown_net(panel) -> float:
    """The net total as the panel prints it, read back as a number."""
    match = re.search(r"Net ([A-Z]{3}) ([\d,]+\.\d\d)", panel.totals.text())
    assert match, panel.totals.text()
    return match.group(1), float(match.group(2).replace(",", ""))


def test_the_dock_shows_every_section_and_the_net_total(window):
    panel, bom = window.bom, _bom(window)
    assert window.central_tabs.currentWidget() is panel  # Quote ▸ Bill of materials brings its tab forward
    assert panel.section_keys() == [s.section for s in bom.sections]
    assert "compute" in panel.section_keys() and "network" in panel.section_keys()
    for sec in bom.sections:
        assert panel.section_text(sec.section, 0) == sec.title
        assert panel.section_text(sec.section, EXTENDED) == f"{sec.subtotal:,.2f}"
    currency, net = _shown_net(panel)
    assert (currency, net) == (bom.currency, bom.price_total)
    # The sections' subtotals as shown add up to the net total as shown.
    shown = sum(float(panel.section_text(s, EXTENDED).replace(",", "")) for s in panel.section_keys())
    assert shown == pytest.approx(net, abs=0.005)
    assert ("(est.)" in panel.totals.text()) == bom.estimated
    assert panel.counts.text() == f"{bom.lines} lines"
    assert len(panel.line_rows()) == bom.lines


def test_every_line_shows_the_bills_figures_and_marks_indicative_and_old_prices(window, qtbot):
    # judged on a day of its own, not today: the catalog's DGX B200 price (March 2025) is too old on it
    window.document.push(UpdateQuoteCommand({"quote_date": "2026-12-01"}))
    qtbot.waitUntil(lambda: not window.runner.busy and _bom(window).as_of == "2026-12-01", timeout=60000)
    panel = window.bom
    priced = [ln for s in _bom(window).sections for ln in s.lines if ln.unit_price is not None]
    assert priced
    for ln in priced:
        unit = panel.line_text(ln.line, UNIT)
        assert unit.startswith(f"{ln.net_unit_price:,.2f}")
        assert (INDICATIVE in unit) == ("unconfirmed" in ln.flags)
        assert (STALE in unit) == ("stale" in ln.flags)
        assert panel.line_text(ln.line, EXTENDED) == f"{ln.extended_price:,.2f}"
    dgx = next(ln for ln in priced if ln.id == "dgx-b200")
    assert {"unconfirmed", "stale"} <= set(dgx.flags)
    item = _line_item(panel, dgx.line, UNIT)
    assert dgx.price_source in item.toolTip() and dgx.price_date in item.toolTip()
    assert "Indicative price" in item.toolTip()
    assert INDICATIVE in panel.notes.text() and STALE in panel.notes.text()


def _line_item(panel, line, column):
    for r in range(panel.model.rowCount()):
        parent = panel.model.item(r, 0)
        for c in range(parent.rowCount()):
            if parent.child(c, 0).data(Qt.ItemDataRole.UserRole + 3).line == line:
                return parent.child(c, column)
    raise KeyError(line)


def test_an_unpriced_line_shows_no_price_in_the_warning_colour_and_the_total_says_so(window):
    panel = window.bom
    unpriced = [ln for s in _bom(window).sections for ln in s.lines if ln.unit_price is None]
    assert unpriced, "the sample's bill has a part without a price (the UFM licence)"
    for ln in unpriced:
        for col in (UNIT, EXTENDED):
            assert panel.line_text(ln.line, col) == NO_PRICE
            assert _line_item(panel, ln.line, col).foreground().color() == WARNING_TEXT
    n = len(unpriced)
    assert f"excludes {n} unpriced line{'s' if n != 1 else ''}" in panel.totals.text()
    assert "0.00" not in panel.line_text(unpriced[0].line, EXTENDED)


def test_a_discount_typed_in_the_panel_is_one_undoable_edit(window, qtbot):
    panel = window.bom
    before = _section(window, "compute")
    total_before = _bom(window).price_total
    editor = panel.discount_editor("compute")
    assert editor.value() == 0.0
    editor.setFocus()
    editor.lineEdit().selectAll()
    qtbot.keyClicks(editor.lineEdit(), "10")
    qtbot.keyClick(editor.lineEdit(), Qt.Key.Key_Return)
    assert window.document.project.quote.discount("compute") == 10.0
    assert window.undo_action.text() == "Undo Set discount"
    qtbot.waitUntil(lambda: not window.runner.busy and _section(window, "compute").discount_percent == 10.0,
                    timeout=60000)
    after = _section(window, "compute")
    assert after.subtotal == pytest.approx(before.list_subtotal * 0.9, abs=0.005)
    assert panel.section_text("compute", EXTENDED) == f"{after.subtotal:,.2f}"
    assert _shown_net(panel)[1] == _bom(window).price_total == pytest.approx(
        total_before - before.list_subtotal * 0.1, abs=0.01)
    assert f"discount {money(-_bom(window).discount_total)}" in panel.totals.text()
    assert panel.discount_editor("compute").value() == 10.0
    # The status bar's total (the engines' figure, shown once there) follows the discount.
    assert f"{_bom(window).price_total / 1e6:,.2f} M" in window.engine_label.text()

    window.undo_action.trigger()
    assert window.document.project.quote.discount("compute") == 0.0
    qtbot.waitUntil(lambda: not window.runner.busy and _section(window, "compute").discount_percent == 0.0,
                    timeout=60000)
    assert panel.discount_editor("compute").value() == 0.0
    assert panel.section_text("compute", EXTENDED) == f"{before.subtotal:,.2f}"
    assert _shown_net(panel)[1] == total_before


def test_a_refused_discount_is_shown_not_raised(window):
    shown = []
    window.bom.refused.connect(shown.append)
    assert not window.bom.set_discount("compute", 150.0)
    assert shown and "between -100 and 100" in shown[0] and "discounts.compute" in shown[0]
    assert window.bom.status.text() == shown[0] and not window.bom.status.isHidden()
    assert window.document.project.quote.discount("compute") == 0.0
    assert window.bom.discount_editor("compute").value() == 0.0


def test_the_filter_hides_lines_and_sections_that_do_not_match(window):
    panel = window.bom
    every = panel.line_rows()
    panel.filter.setText("mfp7e10")
    shown = panel.line_rows()
    expected = [ln for ln in every if "mfp7e10" in (ln.part_number + ln.description).lower()]
    assert shown == expected and 0 < len(shown) < len(every)
    assert panel.section_keys() == ["optics"]
    assert panel.counts.text() == f"{len(shown)} of {len(every)} lines"
    panel.filter.setText("management switch")
    assert [ln.description for ln in panel.line_rows()] == \
        [ln.description for ln in every if "management switch" in ln.description.lower()]
    panel.filter.setText("no such part")
    assert panel.line_rows() == [] and panel.section_keys() == []
    panel.filter.clear()
    assert panel.line_rows() == every
    assert panel.section_keys() == [s.section for s in _bom(window).sections]


def test_a_new_analysis_with_the_same_lines_keeps_the_rows(window, qtbot):
    """A discount changes figures, not lines: the rows are updated in place, the open editors stay."""
    panel = window.bom
    editor = panel.discount_editor("network")
    window.bom.set_discount("network", 5.0)
    qtbot.waitUntil(lambda: not window.runner.busy and _section(window, "network").discount_percent == 5.0,
                    timeout=60000)
    assert panel.discount_editor("network") is editor and editor.value() == 5.0


# ---- Quote ▸ Quote settings… and price lists -------------------------------------------------
def test_quote_settings_push_undoable_edits_and_show_refusals(window, qtbot):
    form = window.quote_actions.show_settings()
    qtbot.keyClicks(form.texts["customer"], "Acme AI")
    assert window.document.project.quote.customer == "Acme AI"
    assert window.undo_action.text() == "Undo Edit quote"
    form.numbers["term_years"].setValue(5)
    assert window.document.project.quote.term_years == 5
    form.numbers["utilisation"].setValue(65)
    assert window.document.project.quote.utilisation == 0.65
    qtbot.waitUntil(lambda: not window.runner.busy and _bom(window).term_years == 5, timeout=60000)
    nvaie = next(ln for s in _bom(window).sections for ln in s.lines if ln.per_year and ln.unit_price)
    assert window.bom.line_text(nvaie.line, 2) == f"{nvaie.quantity:,} × 5 yr"
    form.quote_date.setText("2026-13-45")
    form.quote_date.editingFinished.emit()
    assert "quote.quote_date" in form.status.text() and window.document.project.quote.quote_date == ""
    window.undo_action.trigger()  # the utilisation
    assert window.document.project.quote.utilisation == 0.8 and form.numbers["utilisation"].value() == 80
    window.undo_action.trigger()
    window.undo_action.trigger()  # typing the customer's name was one step
    assert window.document.project.quote.customer == "" and form.texts["customer"].text() == ""


def test_a_price_list_replaces_catalog_prices_and_can_be_cleared(window, qtbot, tmp_path):
    dgx = next(ln for ln in _section(window, "compute").lines if ln.id == "dgx-b200")
    prices = tmp_path / "acme-prices.csv"
    # dated the day the bill is judged on (today, with no quote date): never too old, whatever the date
    prices.write_text(f"Part number,Unit price,Currency,Date\n{dgx.part_number},480000,USD,{_bom(window).as_of}\n",
                      encoding="utf-8")
    assert window.quote_actions.load_price_list(prices)
    quote = window.document.project.quote
    assert quote.price_list_name == "acme-prices.csv" and [p.amount for p in quote.prices] == [480000.0]
    qtbot.waitUntil(lambda: not window.runner.busy and _bom(window).price_list.name == "acme-prices.csv",
                    timeout=60000)
    line = next(ln for ln in _section(window, "compute").lines if ln.id == "dgx-b200")
    assert line.unit_price == 480000.0 and line.price_from_list
    assert window.bom.line_text(line.line, UNIT) == "480,000.00"  # a vendor's list: no mark
    assert "price list acme-prices.csv (1 of 1 used)" in window.bom.notes.text()
    window.quote_actions.clear_price_list()
    assert window.document.project.quote.prices == () and window.undo_action.text() == "Undo Clear price list"
    window.undo_action.trigger()
    assert window.document.project.quote.price_list_name == "acme-prices.csv"


def test_a_list_without_dates_or_currency_is_in_the_projects_currency_and_marked_undated(window, qtbot, tmp_path):
    prices = tmp_path / "undated.csv"
    prices.write_text("SKU,Price\nAR3307,2400\n", encoding="utf-8")
    assert window.quote_actions.load_price_list(prices)
    assert [p.currency for p in window.document.project.quote.prices] == [window.project.currency]
    qtbot.waitUntil(lambda: not window.runner.busy and _bom(window).price_list.name == "undated.csv",
                    timeout=60000)
    rack = next(ln for ln in _section(window, "racks").lines if ln.part_number == "AR3307")
    assert window.bom.line_text(rack.line, UNIT) == "2,400.00 §" and "§ undated" in window.bom.notes.text()


def test_a_bad_price_list_is_reported_with_its_row(window, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(type(window.quote_actions), "report_error", lambda self, text: shown.append(text))
    bad = tmp_path / "bad.csv"
    bad.write_text("Part number,Price,Currency\nABC-1,twelve,USD\n", encoding="utf-8")
    assert not window.quote_actions.load_price_list(bad)
    assert len(shown) == 1 and "bad.csv: row 2" in shown[0] and "twelve" in shown[0]
    assert not window.quote_actions.load_price_list(tmp_path / "missing.csv")
    assert len(shown) == 2 and "missing.csv" in shown[1]
    assert window.document.project.quote.prices == ()
    monkeypatch.setattr(type(window.quote_actions), "ask_price_list_path", lambda self: None)
    assert not window.quote_actions.load_price_list()  # the user cancelled the file dialog
    assert len(shown) == 2


def test_a_finding_about_the_bill_opens_it_and_a_rack_finding_the_plan(window):
    window.show_plan()
    window.go_to("project:bom")
    assert window.central_tabs.currentWidget() is window.bom
    rack = window.project.racks[0].id
    window.go_to(f"rack:{rack}")
    assert window.central_tabs.currentWidget() is window.view


def test_optional_lines_come_off_the_bill_and_back_with_undo(window, qtbot):
    form = window.quote_actions.show_settings()
    box = form.optional["nvaie"]
    assert box.isChecked() and box.text() == "NVIDIA AI Enterprise subscription"
    box.setChecked(False)
    assert window.document.project.quote.excluded == ("nvaie",)
    qtbot.waitUntil(lambda: not window.runner.busy and not any(
        ln.id == "nvaie" for s in _bom(window).sections for ln in s.lines), timeout=60000)
    window.undo_action.trigger()
    assert window.document.project.quote.excluded == () and form.optional["nvaie"].isChecked()


def test_clearing_the_filter_restores_the_sections_the_user_collapsed(window):
    panel = window.bom
    compute = panel.model.indexFromItem(panel._rows["compute"])
    panel.view.collapse(compute)
    panel.filter.setText("dgx")
    assert panel.view.isExpanded(compute)  # shown to display the match
    panel.filter.setText("")
    assert not panel.view.isExpanded(compute)


def test_tab_leaves_the_bill_instead_of_cycling_through_its_discount_boxes(window, qtbot):
    from PySide6.QtWidgets import QApplication

    panel = window.bom
    box = panel.discount_editor("services")
    box.setFocus()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)  # where a user's key goes
    focused = QApplication.focusWidget()
    assert focused is not None and not panel.view.isAncestorOf(focused) and focused is not panel.view
    box.setFocus()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Backtab)
    assert QApplication.focusWidget() is panel.filter


def test_totals_are_greyed_while_a_newer_analysis_is_computed(window, qtbot):
    window.document.push(UpdateQuoteCommand({"customer": "Acme"}))
    assert not window.bom.totals.isEnabled() and "updating" in window.bom.totals.toolTip()
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=60000)
    assert window.bom.totals.isEnabled()


def test_enter_in_a_quote_field_never_opens_the_file_dialog(window, qtbot, monkeypatch):
    asked = []
    monkeypatch.setattr(type(window.quote_actions), "ask_price_list_path", lambda self: asked.append(1))
    form = window.quote_actions.show_settings()
    for widget in (form.texts["customer"], form.quote_date, form.numbers["term_years"]):
        widget.setFocus()
        qtbot.keyClick(widget, Qt.Key.Key_Return)
    assert asked == [] and not form.load_button.isDefault()


def test_a_damaged_xlsx_price_list_is_reported_not_raised(window, tmp_path, monkeypatch):
    import zipfile

    from openpyxl import Workbook

    wb = Workbook()
    wb.active.append(["pn", "price", "currency"])
    wb.active.append(["X", 1, "USD"])
    good = tmp_path / "good.xlsx"
    wb.save(good)
    bad = tmp_path / "bad.xlsx"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(bad, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            dst.writestr(item, data[: len(data) // 2] if item.filename.endswith("sheet1.xml") else data)
    shown = []
    monkeypatch.setattr(type(window.quote_actions), "report_error", lambda self, text: shown.append(text))
    assert not window.quote_actions.load_price_list(bad)
    assert shown and "bad.xlsx, sheet" not in shown[0] and "is not a readable XLSX workbook" in shown[0]


def test_a_preliminary_part_is_marked_on_its_line_with_the_reason(qtbot, catalog, tmp_path):
    import json

    doc = json.loads(samples.GB200_NVL72_SU.read_text())
    for rack in doc["racks"]:
        for d in rack["devices"]:
            if d["type"] == "gb200-nvl72":
                d["type"] = "vera-rubin-nvl72"
    path = tmp_path / "rubin.podplan.json"
    path.write_text(json.dumps(doc))
    w = MainWindow(catalog, debounce_ms=0)
    qtbot.addWidget(w)
    w.show()
    assert w.open_path(path), w.last_error
    qtbot.waitUntil(lambda: w.analysis is not None and not w.runner.busy, timeout=60000)
    w.show_bom()
    panel = w.bom
    lines = [ln for sec in w.analysis.bom.sections for ln in sec.lines]
    (vr,) = [ln for ln in lines if ln.id == "vera-rubin-nvl72"]
    cell = _line_item(panel, vr.line, 1)
    assert cell.text() == "NVIDIA Vera Rubin NVL72 · Preliminary"
    assert cell.toolTip().endswith("Preliminary: " + catalog.get("vera-rubin-nvl72").preliminary)
    other = _line_item(panel, next(ln.line for ln in lines if ln.id != "vera-rubin-nvl72"), 1)
    assert "Preliminary" not in other.text()


def test_the_whole_quotes_discount_sets_every_section_in_one_undo_step(window):
    from designer.quote_settings import SECTION_KEYS

    doc, panel = window.document, window.bom
    form = window.quote_actions.show_settings()
    assert form.whole.minimum() == -100.0 and form.whole.maximum() == 100.0
    steps = len(doc._done)
    form.whole.setValue(7.5)
    form.apply_whole.click()
    assert len(doc._done) == steps + 1 and form.status.text() == ""
    assert all(doc.project.quote.discount(key) == 7.5 for key in SECTION_KEYS)
    doc.undo()
    assert all(doc.project.quote.discount(key) == 0.0 for key in SECTION_KEYS)
    # the bill's own boxes go down to an uplift of 100 %
    assert panel.discount_editor(panel.section_keys()[0]).minimum() == -100.0


def test_an_uplift_is_a_negative_discount_and_the_totals_say_uplift(window, qtbot):
    panel = window.bom
    assert panel.set_discount("compute", -5.0)
    assert window.document.project.quote.discount("compute") == -5.0
    qtbot.waitUntil(lambda: panel.bom is not None and any(s.discount_percent == -5.0 for s in panel.bom.sections),
                    timeout=20000)
    compute = next(s for s in panel.bom.sections if s.section == "compute")
    assert compute.discount < 0 and compute.subtotal == pytest.approx(compute.list_subtotal * 1.05, abs=0.01)
    assert "uplift +" in panel.totals.text()
