"""Big plans zoomed out are drawn as one overview item; selected racks stay live items."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, QSettings

from bench.designs import dgx_b200_project
from designer.commands import MoveObjectsCommand
from widgets.plan.floor_overview import OverviewItem
from widgets.app.main_window import MainWindow


@pytest.fixture
def big(qtbot, catalog, tmp_path):
    w = MainWindow(catalog, dgx_b200_project(8 * 2 * 1100), None,  # 2,200 DGX in 1,100 compute racks and more
                   settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                   recovery_dir=tmp_path / "r")
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    return w


def _overview(scene):
    return [i for i in scene.items() if isinstance(i, OverviewItem)]


def test_zoomed_out_big_plan_uses_the_overview(big, qtbot):
    scene, view = big.scene, big.view
    assert len(scene.rack_items) == len(big.project.racks) > 1100
    scene.overview.min_items = 1000
    view.fit_hall()
    qtbot.waitUntil(lambda: len(_overview(scene)) == 1)
    assert all(i.in_overview for i in scene.rack_items.values())  # they paint nothing
    # ...yet a click still finds them
    rid = big.project.racks[10].id
    item = scene.rack_items[rid]
    assert scene.itemAt(item.sceneBoundingRect().center(), view.transform()) is item
    scene.select(f"rack:{rid}")
    qtbot.waitUntil(lambda: not item.in_overview)
    assert sum(not i.in_overview for i in scene.rack_items.values()) == 1
    # zoomed in, every footprint paints itself again
    view.zoom_by(60 / (view.scale_factor() * 600.0))
    assert _overview(scene) == [] and not any(i.in_overview for i in scene.rack_items.values())


def test_overview_follows_edits(big, qtbot):
    scene, view = big.scene, big.view
    scene.overview.min_items = 1000
    view.fit_hall()
    qtbot.waitUntil(lambda: len(_overview(scene)) == 1)
    before = _overview(scene)[0]

    def filled(item, x, y):
        return any(path.contains(QPointF(x, y)) for _, _, _, path, _, _ in item._groups)

    first = big.project.halls[0].id  # a site of halls: each drawn from its place on the site
    rack = max((r for r in big.project.racks if r.hall == first), key=lambda r: r.y)  # the row nearest the far wall
    off = scene.hall_offsets[first]
    x, y = rack.x + off.x(), rack.y + off.y()
    assert filled(before, x, y) and not filled(before, x, y + 600.0)
    # One tile into the hot aisle behind the last row: the move must stay inside the hall.
    big.document.push(MoveObjectsCommand(racks={rack.id: (rack.x, rack.y + 600.0, rack.rotation)}))
    qtbot.waitUntil(lambda: _overview(scene) and _overview(scene)[0] is not before)
    after = _overview(scene)[0]
    assert filled(after, x, y + 600.0) and not filled(after, x, y - 250.0)


def test_small_plans_never_use_the_overview(qtbot, catalog, tmp_path):
    from designer import samples
    from designer.fileformat import load

    w = MainWindow(catalog, load(samples.DGX_B200_SU, catalog), samples.DGX_B200_SU,
                   settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), recovery_dir=tmp_path)
    qtbot.addWidget(w)
    w.view.zoom_by(0.01)
    assert _overview(w.scene) == [] and not any(i.in_overview for i in w.scene.rack_items.values())


def test_rubber_band_and_clicks_still_reach_racks_in_the_overview(big, qtbot):
    from PySide6.QtGui import QPainterPath

    scene, view = big.scene, big.view
    scene.overview.min_items = 1000
    view.fit_hall()
    qtbot.waitUntil(lambda: len(_overview(scene)) == 1)
    a, b = scene.rack_items["su01-01"], scene.rack_items["su01-03"]  # three racks side by side in one row
    assert scene.itemAt(a.sceneBoundingRect().center(), view.transform()) is a
    area = QPainterPath()
    inner_a = a.sceneBoundingRect().adjusted(50, 50, -50, -50)
    inner_b = b.sceneBoundingRect().adjusted(50, 50, -50, -50)
    area.addRect(inner_a.united(inner_b))
    scene.setSelectionArea(area)
    assert {i.rack_id for i in scene.selectedItems()} == {"su01-01", "su01-02", "su01-03"}
