"""Racks of one footprint are named on the plan under one rule: a long name is shrunk or elided, never dropped."""
from __future__ import annotations

import math

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsScene

from designer import samples
from widgets.plan.floor_items import MIN_LABEL_PX, RackItem

FILL = QColor("#E69F00")  # the network role's orange, as SPINE-01 and STORAGE-01 have on the samples


def _render(scene, rect: QRectF, lod: float) -> QImage:
    image = QImage(math.ceil(rect.width() * lod), math.ceil(rect.height() * lod), QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    scene.render(painter, QRectF(image.rect()), rect)
    painter.end()
    return image


def _ink(item: RackItem, lod: float) -> int:
    """Pixels the rack's name changes when drawn at ``lod`` screen pixels per millimetre."""
    scene, rect, name = item.scene(), item.sceneBoundingRect(), item.name
    named = _render(scene, rect, lod)
    item.set_style("", item.fill_color)
    blank = _render(scene, rect, lod)
    item.set_style(name, item.fill_color)
    return sum(named.pixel(x, y) != blank.pixel(x, y) for x in range(named.width()) for y in range(named.height()))


@pytest.fixture
def racks(qtbot):
    scene = QGraphicsScene()
    made = {}
    for i, (name, rotation) in enumerate([("SPINE-01", 0), ("STORAGE-01", 0), ("SPINE-02", 180), ("STORAGE-02", 180)]):
        item = RackItem(name.lower(), 600, 1200)
        scene.addItem(item)
        item.set_style(name, FILL)
        item.place(1000 + i * 1000, 1000, rotation)
        made[name] = item
    yield made
    scene.clear()


@pytest.mark.parametrize("lod", [0.033, 0.036, 0.04, 0.045, 0.06, 0.2])
def test_a_long_name_shows_wherever_a_short_one_of_the_same_footprint_does(racks, lod):
    for name, item in racks.items():  # a 600 mm rack holds a readable name from 7 / 220 px per mm up
        assert _ink(item, lod) > 20, f"{name} drew no name at {lod} px/mm"
    spine, storage = racks["SPINE-01"], racks["STORAGE-01"]
    assert spine._label.visible(lod) and storage._label.visible(lod)


def test_a_long_name_shrinks_to_the_readable_size_then_elides(racks):
    storage = racks["STORAGE-01"]._label
    fitted = MIN_LABEL_PX / storage.px  # the zoom at which its fitted size is just readable
    assert storage.elided_text(fitted * 1.05) == "STORAGE-01"  # fitted and readable: the whole name
    short = storage.elided_text(fitted * 0.8)  # the zoom of a narrower plan: the readable size, elided
    assert short != "STORAGE-01" and "…" in short and short.startswith("ST") and short.endswith("01")


def test_no_footprint_is_named_below_the_readable_size(racks):
    lod = 0.025  # 220 mm type is 5.5 px: no name at all, long or short
    for item in racks.values():
        assert not item._label.visible(lod)
        assert _ink(item, lod) == 0


def test_every_rack_is_named_at_the_network_workspace_fit(synced_window):
    """The narrowest plan of the bundled workspaces at 1400 x 900: where STORAGE-01 used to go unnamed."""
    w = synced_window(samples.GB200_NVL72_SU)
    w.workspaces.switch("network")
    w.view.fit_hall()
    lod = w.view.scale_factor()
    by_size: dict[tuple, set] = {}
    for rack in w.project.racks:
        item = w.scene.rack_items[rack.id]
        assert _ink(item, lod) > 20, rack.name
        by_size.setdefault(item.size, set()).add(item._label.visible(lod))
    assert all(len(rules) == 1 for rules in by_size.values())


def test_a_hall_title_shortens_to_its_hall_on_screen(qtbot):
    """Halls side by side on a site: a title wider than its hall drops the size, then shortens the name, so that
    neighbours' titles never run into each other; at a zoom that has room, the whole title."""
    from widgets.plan.floor_items import HallTitleItem

    item = HallTitleItem("Network room 1", "19.2 × 16.8 m · 322.6 m²", 19_200.0)
    assert item.fitted(None) == ("Network room 1", "19.2 × 16.8 m · 322.6 m²")
    assert item.fitted(item.boundingRect().width() + 1) == ("Network room 1", "19.2 × 16.8 m · 322.6 m²")
    title, detail = item.fitted(60.0)
    assert detail == "" and title.endswith("…") and title[:-1] and "Network room 1".startswith(title[:-1])
