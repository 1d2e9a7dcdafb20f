"""The Single-line diagram dock: the hall's diagram drawn from the window's analysis, a box's figures on hover, and
a hall picker once the design has two halls."""
from __future__ import annotations

import dataclasses

from PySide6.QtWidgets import QGraphicsRectItem

from designer.commands import AddHallCommand



def test_the_facility_workspace_shows_the_halls_single_line_diagram(sample_window, qtbot):
    window = sample_window
    window.workspaces.switch("facility")
    window.single_line_dock.raise_()
    qtbot.waitUntil(lambda: window._single_line.built, timeout=10000)
    panel = window._single_line.panel
    diagram = panel.diagram
    assert diagram is not None and diagram.hall == window.project.halls[0].id
    rects = [i for i in panel.scene.items() if isinstance(i, QGraphicsRectItem)]
    # the drawn sample states no UPS, generators or busway ratings: utility, switchgear, two rows' busways
    assert len(rects) == len(diagram.boxes) == 8
    tips = {r.toolTip().split("\n")[0]: r.toolTip() for r in rects}
    row_a = next(r for r in window.analysis.power.rows if r.row == "A")
    assert tips["A busway A"] == f"A busway A\nnot rated\nnormal {row_a.feeds.A.normal_kw:.0f} kW\n" \
                                 f"B lost {row_a.feeds.A.failover_kw:.0f} kW"
    assert tips["Switchgear"].endswith("utility only\nnot rated")
    assert not panel.halls.isVisible()  # one hall: nothing to pick


def test_a_second_hall_gets_a_picker_and_an_empty_hall_says_so(sample_window, qtbot):
    window = sample_window
    window.workspaces.switch("facility")
    window.single_line_dock.raise_()
    qtbot.waitUntil(lambda: window._single_line.built, timeout=10000)
    hall = dataclasses.replace(window.project.halls[0], id="hall-2", name="Hall two")
    window.document.push(AddHallCommand(hall))
    qtbot.waitUntil(lambda: window.analysis is not None and not window.runner.busy
                    and len(window.analysis.project.halls) == 2, timeout=60000)
    panel = window._single_line.get()
    assert panel.halls.isVisible() and panel.halls.count() == 2
    panel.halls.setCurrentIndex(1)
    assert panel.diagram is None and panel.caption.text() == "Hall two has no rows of racks yet."
