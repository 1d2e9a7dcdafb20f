"""The floor plan's colour key never hides the design: fitted halls leave it room; it leaves racks it would cover."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, QRectF

from designer import samples
from widgets.plan import overlay


def _on_screen(view, item) -> QRectF:
    return QRectF(view.mapFromScene(item.sceneBoundingRect()).boundingRect())


def _covered(view) -> list[str]:
    """Racks and floor units the key's box overlaps, in viewport pixels."""
    key = view.legend_rect()
    assert not key.isEmpty()
    scene = view.scene()
    items = [*scene.rack_items.items(), *scene.floor_items.items()]
    return [oid for oid, item in items if key.intersects(_on_screen(view, item))]


@pytest.mark.parametrize("size", [(1400, 900), (1920, 1080)])
@pytest.mark.parametrize("workspace", ["layout", "power", "network"])
@pytest.mark.parametrize("sample", [samples.DGX_B200_SU, samples.GB200_NVL72_SU], ids=["dgx-b200", "gb200-nvl72"])
def test_the_key_beside_fitted_halls_covers_no_rack(synced_window, sample, workspace, size):
    w = synced_window(sample)
    w.resize(*size)
    w.workspaces.switch(workspace)
    if workspace == "network":  # the cabling panel draws a rack's routes, and the key gains their colours
        w.scene.select("rack:su01-01")
        assert any("route" in row[1] for row in w.scene.legend())
        assert w.cabling.routes_item.route_count > 0
    w.view.fit_hall()
    assert _covered(w.view) == []
    assert _routes_under_key(w) == []
    assert w.view.viewport().rect().contains(w.view.legend_rect().toAlignedRect())
    halls = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
    assert halls.contains(w.scene.halls_rect())  # still the whole floor in view


def _routes_under_key(w) -> list:
    """Points along the drawn cable routes (every 5 px on screen) that fall under the key."""
    key, view, under = w.view.legend_rect(), w.view, []
    for _, poly in w.cabling.routes_item.routes():
        for i in range(poly.size() - 1):
            a, b = QPointF(view.mapFromScene(poly[i])), QPointF(view.mapFromScene(poly[i + 1]))
            steps = max(1, int((b - a).manhattanLength() / 5))
            under += [a + (b - a) * (k / steps) for k in range(steps + 1) if key.contains(a + (b - a) * (k / steps))]
    return under


def test_the_key_moves_to_a_corner_clear_of_racks_after_a_pan(synced_window):
    w = synced_window(samples.DGX_B200_SU)
    view = w.view
    view.fit_hall()
    view.zoom_by(2.5)  # close enough that one corner of the view shows no rack under the key's rows
    # Bring a rack under the bottom-right corner, where the key stands after a fit.
    rack = w.scene.rack_items["su01-16"]
    corner = view.viewport().rect().bottomRight()
    offset = view.mapToScene(corner) - view.mapToScene(view.viewport().rect().center())
    view.centerOn(rack.sceneBoundingRect().center() - offset * 0.9)
    key = _key_at_bottom_right(view)
    assert any(key.intersects(_on_screen(view, item)) for item in w.scene.rack_items.values())
    assert _covered(view) == []
    assert view.legend_rect() != key
    w.grab()  # painting it there works too


def _key_at_bottom_right(view) -> QRectF:
    """Where the key stands after a fit."""
    size = overlay.legend_size(view.scene().legend())
    vp, m = view.viewport().rect(), overlay.LEGEND_MARGIN_PX
    return QRectF(vp.width() - m - size.width(), vp.height() - m - size.height(), size.width(), size.height())


def test_a_click_folds_the_key_to_a_tab_and_the_choice_is_kept(synced_window, qtbot):
    from PySide6.QtCore import Qt

    w = synced_window(samples.GB200_NVL72_SU)
    w.workspaces.switch("network")
    w.view.fit_hall()
    scale, full = w.view.scale_factor(), w.view.legend_rect()
    qtbot.mouseClick(w.view.viewport(), Qt.MouseButton.LeftButton, pos=full.center().toPoint())
    assert w.view.legend_folded
    tab = w.view.legend_rect()
    assert tab.width() < full.width() / 2 and tab.height() < full.height() / 2
    assert w.view.scale_factor() >= scale  # the fitted halls take back the room the key gave up
    assert _covered(w.view) == []
    assert w.scene.selected_ids() == []  # the click went to the key, not to what is under it
    w.grab()

    again = synced_window(samples.GB200_NVL72_SU)  # the next window starts with the key as the user left it
    assert again.view.legend_folded
    qtbot.mouseClick(again.view.viewport(), Qt.MouseButton.LeftButton,
                     pos=again.view.legend_rect().center().toPoint())
    assert not again.view.legend_folded and again.view.legend_rect().height() > tab.height() * 2


def test_the_network_racks_of_a_generated_pod_are_drawn_as_network(synced_window):
    from pathlib import Path

    from designer.colours import ROLES

    # the generated 4-SU DGX B200 pod the export goldens are made from
    design = Path(__file__).resolve().parents[1] / "exporters" / "golden" / "dgx-b200-4su.podplan.json"
    w = synced_window(design)
    items = {i.name: i for i in w.scene.rack_items.values()}
    net = [i for name, i in items.items() if "-NET-" in name]
    assert len(net) == 8 and {i.role for i in net} == {"network"}
    assert {i.fill_color.name().upper() for i in net} == {ROLES["network"][0]}
    assert items["STORAGE-01"].role == "storage" and items["MGMT-01"].role == "management"
    labels = [text for _, text in w.scene.legend()]
    assert labels[:4] == ["Compute", "Network", "Storage", "Management"]


@pytest.mark.parametrize("size", [(1400, 900), (1920, 1080)])
def test_a_hall_opened_from_the_site_is_not_under_the_key(synced_window, catalog, size):
    """Opening a hall fits it among its neighbours (four 20 MW halls to a building), which leave no corner of the
    view empty: the key stands over a neighbour, never over the opened hall's racks, floor units or title."""
    from designer.generate import SuperpodSpec, generate

    site = generate(SuperpodSpec(system="gb300-nvl72", gpus=73728, hall_power_kw=20000, halls_per_building=4),
                    catalog).project
    w = synced_window()
    w.resize(*size)
    w.adopt_project(site, None)
    w.open_hall("hall-1")
    view, scene = w.view, w.scene
    hall = scene.hall_items["hall-1"]
    area = hall.sceneBoundingRect()
    assert view.mapToScene(view.viewport().rect()).boundingRect().contains(area)  # the hall whole in view
    key = view.legend_rect()
    assert not key.isEmpty()
    mine = [oid for oid, item in [*scene.rack_items.items(), *scene.floor_items.items()]
            if area.contains(item.sceneBoundingRect())]
    assert len(mine) > 20
    assert [oid for oid in mine if key.intersects(_on_screen(view, scene.item_for(f"rack:{oid}")
                                                             or scene.floor_items[oid]))] == []
    walls = QRectF(view.mapFromScene(area).boundingRect())
    title = QRectF(walls.left(), walls.top() - 40, walls.width(), 40)  # the hall's name stands above its wall
    assert not key.intersects(title)
