"""The plan draws each hall's electrical room beyond its far wall, as its facility sizes it, and the Facility
inspector says what is in it (designer.power.electrical_room), on the bundled GB200 NVL72 sample."""
from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor

from designer import colours, samples
from designer.commands import UpdateHallCommand
from designer.power.electrical_room import WALL_MM


@pytest.fixture
def window(synced_window):
    return synced_window(samples.GB200_NVL72_SU)


def test_the_room_is_drawn_beyond_the_far_wall_in_the_scene(window):
    scene = window.scene
    hall = window.document.project.halls[0]
    item = scene.room_items[hall.id]
    # 2N, 2 modules a side with 5 battery racks each (the sample's facility)
    assert item.counts()["ups"] == 4 and item.counts()["battery"] == 20
    room = item.room
    assert room.y == hall.bounds[3] + WALL_MM
    # the fit is the hall's (its racks keep their size and names); the room is in the scene, a scroll below
    assert scene.halls_rect().bottom() == pytest.approx(hall.bounds[3])
    assert scene.sceneRect().contains(item.sceneBoundingRect())
    assert ("UPS and switchgear" in [label for _, label in scene.legend()])
    # what the user sees, scrolled to the room: a UPS module's middle is painted in the UPS colour
    view = window.view
    view.centerOn(item.sceneBoundingRect().center())
    ups = next(i for i in room.items if i.kind == "ups")
    at = view.mapFromScene(QPointF(ups.x + ups.w / 2, ups.y + ups.d / 4) + item.scenePos())
    shown = view.viewport().grab().toImage().pixelColor(at)
    assert shown.name() == QColor(colours.ELECTRICAL["ups"]).name()


def test_a_change_to_the_ups_redraws_the_room_and_undo_restores_it(window):
    doc, scene = window.document, window.scene
    hall = doc.project.halls[0]
    doc.push(UpdateHallCommand(hall.id, {"facility": replace(hall.facility, ups_modules=3)}))
    assert scene.room_items[hall.id].counts()["ups"] == 6
    doc.undo()
    assert scene.room_items[hall.id].counts()["ups"] == 4
    doc.push(UpdateHallCommand(hall.id, {"facility": replace(hall.facility, ups_scheme=None, ups_module_kw=None)}))
    assert hall.id not in scene.room_items and "UPS and switchgear" not in [t for _, t in scene.legend()]


def test_the_facility_inspector_says_what_the_room_holds(window):
    window.scene.select_many([])
    text = window.inspector.hall_figures.power.text()
    assert ("Electrical room: 12.0 × 10.9 m (131 m²): 4 UPS modules in 2 systems, 20 battery cabinets, "
            "12 switchgear sections · sizes not all confirmed by a source") in text
