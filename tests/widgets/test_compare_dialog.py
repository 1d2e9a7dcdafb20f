"""File ▸ Compare with…: this design beside another in a dialog of key figures and their change."""
from __future__ import annotations

import pytest

from designer import samples


@pytest.fixture
def window(synced_window):
    return synced_window(samples.GB200_NVL72_SU)


def test_compare_with_shows_the_two_samples_side_by_side_with_deltas(window, qtbot):
    dialog = window.compare_with(samples.DGX_B200_SU)  # this design is the GB200 sample
    qtbot.waitUntil(lambda: dialog.doc is not None or dialog.error != "", timeout=30000)
    assert dialog.error == ""
    assert (dialog.cell("gpus", 1), dialog.cell("gpus", 2), dialog.cell("gpus", 3)) == ("576", "248", "-328 (-56.9 %)")
    price = next(f for f in dialog.doc["figures"] if f["key"] == "price_total")
    assert price["a"] == window.analysis.summary_json["price_total"] and price["delta"] < 0
    assert "GB200 NVL72" in dialog.status.text() and "DGX B200" in dialog.status.text()
    assert window.compare_action.text() == "Co&mpare with…"
    dialog.close()


def test_compare_with_a_broken_file_says_why(window, qtbot, tmp_path):
    bad = tmp_path / "broken.podplan.json"
    bad.write_text("{ not json")
    dialog = window.compare_with(bad)
    qtbot.waitUntil(lambda: dialog.error != "", timeout=60000)
    assert "broken.podplan.json" in dialog.status.text() and dialog.doc is None
    dialog.close()


def test_a_dialog_closed_before_its_result_leaves_the_next_one_working(window, qtbot):
    from PySide6.QtCore import Qt

    from widgets.dashboards.compare_dialog import _the_relay

    delivered = []  # the tickets of the results the relay handed on, or dropped (after it did)
    relay = _the_relay()

    def record(ticket, *_):
        delivered.append(ticket)

    relay.delivered.connect(record, Qt.ConnectionType.QueuedConnection)
    first = window.compare_with(samples.DGX_B200_SU)
    first.close()  # the worker finishes later and its result goes nowhere
    second = window.compare_with(samples.DGX_B200_SU)
    qtbot.waitUntil(lambda: second.doc is not None, timeout=30000)
    assert second.cell("gpus", 3) == "-328 (-56.9 %)"
    qtbot.waitUntil(lambda: first._ticket in delivered, timeout=60000)  # the first one's result did arrive
    assert first.doc is None
    second.close()
    relay.delivered.disconnect(record)
