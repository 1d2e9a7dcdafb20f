"""The site view: a design of several halls opens on its buildings and rooms, double-clicking a room opens
its floor plan with the findings of that hall, and a design of one hall has no site tab."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetricsF

from designer.commands import UpdateHallCommand
from designer.generate import SuperpodSpec, generate
from designer.site_plan import SitePlan
from widgets.plan import overlay
from widgets.site import bundle_labels
from widgets.site.site_items import BundleItem


@pytest.fixture(scope="module")
def site_project(catalog):
    """GB300 NVL72, 4,608 GPUs in 3 MW halls, two halls to a building: 4 data halls and 2 network rooms."""
    return generate(SuperpodSpec(system="gb300-nvl72", gpus=4608, hall_power_kw=3000, halls_per_building=2),
                    catalog).project


@pytest.fixture
def site_window(synced_window, site_project):
    w = synced_window()
    w.adopt_project(site_project, None)  # a site opens on its site plan
    return w


def _campus_window(synced_window, project, qtbot, size=(1400, 900)):
    """A window of ``size`` opened on the campus ``project``, its bundles drawn and the site fitted to the view."""
    w = synced_window()
    w.resize(*size)
    w.adopt_project(project, None)
    qtbot.waitUntil(lambda: w.site.plan is not None and bool(w.site.plan.building_bundles), timeout=30000)
    qtbot.waitUntil(lambda: w.site.view.viewport().width() > 600)  # laid out, and the site fitted to it
    return w


def _painted_counts(view) -> list[tuple[BundleItem, QRectF]]:
    """Each count a repaint of ``view`` draws: its bundle and its box (viewport pixels)."""
    drawn = []
    original = BundleItem.paint_label
    BundleItem.paint_label = lambda item, painter, box: drawn.append((item, QRectF(box))) or original(item, painter,
                                                                                                       box)
    try:
        view.viewport().grab()
    finally:
        BundleItem.paint_label = original
    return drawn


def _tab(w, widget) -> bool:
    return w.central_tabs.isTabVisible(w.central_tabs.indexOf(widget))


def test_a_site_opens_on_its_buildings_rooms_and_bundles(site_window, qtbot):
    w = site_window
    assert _tab(w, w.site) and w.central_tabs.currentWidget() is w.site
    qtbot.waitUntil(lambda: w.site.plan is not None and w.site.plan.rooms[0].it_kw is not None, timeout=30000)
    plan = w.site.plan
    scene = w.site.scene
    assert set(scene.room_items) == {h.id for h in w.document.project.halls}
    # the bundles drawn are both fabrics' links between rooms, with their counts: the halls of building 1 send
    # 672 compute and 292 storage links each to its network room, building 2's 2 x 292 storage links cross to it
    drawn = {(i.bundle.a, i.bundle.b): i.label for i in scene.bundle_items}
    assert drawn == {("hall-1", "network-1"): "964 links", ("hall-2", "network-1"): "964 links",
                     ("hall-3", "network-2"): "480 links", ("hall-4", "network-2"): "480 links",
                     ("Building 1", "Building 2"): "2,888 links"}
    assert [b for b in scene.bundle_items if b.between_buildings]
    assert sum(b.links for b in plan.room_bundles + plan.building_bundles) == sum(
        r.links for r in w.analysis.fabric.room_links)
    assert sum(b.storage_links for b in plan.room_bundles + plan.building_bundles) == sum(
        r.links for r in w.analysis.storage.fabric.room_links) == 4 * 292
    tip = next(i for i in scene.bundle_items if i.between_buildings).toolTip()
    assert tip == ("<b>Building 1 – Building 2</b><br>2,304 compute-fabric links; the longest runs 124 m<br>"
                   "584 storage-fabric links; the longest runs 123 m")
    # one table row per room, with the power engine's figure for it
    assert w.site.row_count() == 6
    rows = {w.site.table.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole + 1): w.site.table.topLevelItem(i)
            for i in range(6)}
    hall1 = next(h for h in w.analysis.power.halls if h.id == "hall-1")
    assert rows["hall-1"].text(2) == f"{hall1.it_typical_kw / 1000:,.2f} MW"
    assert "4 data halls and 2 network rooms in 2 buildings" in w.site.summary.text()
    assert "4,608 GPUs" in w.site.summary.text()
    # the key says what the fills and lines are, without the floor plan's rack-front swatch
    labels = [e[1] for e in scene.legend()]
    assert labels[0] == "Rooms: IT load of capacity" and "Network room" in labels
    assert {"Links between rooms", "Links between buildings"} <= set(labels)
    # each room's electrical room beyond its far wall is drawn with it and named in the key
    assert "Electrical room" in labels
    item = scene.room_items["hall-1"]
    e = plan.room("hall-1").electrical
    assert item.boundingRect().contains(QRectF(e[0], e[1], e[2] - e[0], e[3] - e[1]))


def test_double_clicking_a_room_opens_its_floor_plan_and_its_findings(site_window, qtbot):
    w = site_window
    qtbot.waitUntil(lambda: w.site.plan is not None and w.site.plan.rooms[0].it_kw is not None, timeout=30000)
    item = w.site.scene.room_items["hall-2"]
    at = w.site.view.mapFromScene(item.boundingRect().center())
    qtbot.mouseDClick(w.site.view.viewport(), Qt.MouseButton.LeftButton, pos=at)
    assert w.central_tabs.currentWidget() is w.view
    # the hall fills the view: its rect is on screen whole, and larger than the whole site would be drawn
    shown = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
    hall = w.scene.hall_items["hall-2"].sceneBoundingRect()
    assert shown.contains(hall)
    assert hall.width() > shown.width() * 0.3 or hall.height() > shown.height() * 0.5
    assert (w.inspector.kind, w.inspector.ids) == ("hall", ("hall-2",))
    # the findings are those of the hall, and say so
    assert w.findings.hall_filter.isVisible() and w.findings.hall_filter.currentData() == "hall-2"
    assert w.findings.counts.text().startswith("Data hall 2: ")


def test_findings_of_one_hall_are_those_whose_place_lies_in_it(site_window, qtbot):
    w = site_window
    # too little power for hall 3: an error in that hall alone
    hall = w.document.project.hall("hall-3")
    w.document.push(UpdateHallCommand("hall-3", {"power_capacity_kw": 1.0}))
    qtbot.waitUntil(lambda: w.analysis is not None and w.analysis.project.hall("hall-3").power_capacity_kw == 1.0,
                    timeout=30000)
    assert hall.power_capacity_kw != 1.0
    panel = w.findings
    everything = panel.row_count()
    panel.set_hall("hall-3")
    in_hall = [panel.where_at(i) for i in range(panel.row_count())]
    assert in_hall and panel.row_count() < everything
    project = w.analysis.project
    for where in in_hall:
        kind, _, ident = where.partition(":")
        assert (ident == "hall-3") if kind == "hall" else project.rack(ident).hall == "hall-3"
    assert any(panel.proxy.index(i, 0).data() == "error" for i in range(panel.row_count()))
    panel.set_hall("hall-1")
    assert all(panel.proxy.index(i, 0).data() != "error" for i in range(panel.row_count()))
    panel.set_hall("")
    assert panel.row_count() == everything
    # the site shows the hall's errors: its outline and its table row
    qtbot.waitUntil(lambda: w.site.plan is not None and w.site.plan.room("hall-3").errors > 0, timeout=30000)
    assert w.site.scene.room_items["hall-3"].room.errors == w.site.plan.room("hall-3").errors


def test_one_hall_has_no_site_tab_nor_hall_choice(synced_window):
    import drawn as samples

    w = synced_window(samples.DGX_B200_SU)
    assert not _tab(w, w.site)
    assert not w.findings.hall_filter.isVisible()
    w.show_site()  # View > Site plan on one hall shows its floor plan
    assert w.central_tabs.currentWidget() is w.view


def test_the_site_tab_is_drawn_only_while_seen(site_window, site_project, catalog, qtbot):
    w = site_window
    w.show_plan()
    assert not w.site.isVisible()
    before = w.site.plan
    w.document.push(UpdateHallCommand("hall-1", {"name": "Hall North"}))
    qtbot.waitUntil(lambda: w.analysis is not None and w.analysis.project.hall("hall-1").name == "Hall North",
                    timeout=30000)
    assert w.site.plan is before  # nothing rebuilt while hidden
    w.show_site()
    assert w.site.plan is not before and w.site.plan.room("hall-1").name == "Hall North"
    assert w.site.scene.room_items["hall-1"].room.name == "Hall North"
    # the findings' hall choice names the hall as it is now called
    w.findings.set_hall("hall-1")
    assert w.findings.hall_filter.currentText() == "Hall North"
    assert w.findings.counts.text().startswith("Hall North: ")
    assert SitePlan.of(site_project, catalog).room("hall-1").name != "Hall North"


def test_a_room_says_its_load_of_its_capacity_its_racks_and_its_errors():
    from designer.site_plan import RoomOnSite
    from widgets.site.site_items import room_lines, room_tooltip

    room = RoomOnSite(id="h", name="Data hall 1", kind="data", building="Building 1", rect=(0, 0, 1, 1),
                      outline=((0, 0), (1, 0), (1, 1), (0, 1)), entry=(0.5, 0), racks=324, gpus=15552,
                      it_kw=30505.7, capacity_kw=37300.0, errors=2, warnings=1)
    assert [t for t, *_ in room_lines(room)] == ["Data hall 1", "30.51 of 37.30 MW", "324 racks · 15,552 GPUs",
                                                 "2 errors"]
    assert "IT load 30.51 MW (82 % of its capacity)" in room_tooltip(room)
    small = RoomOnSite(id="n", name="Network room 1", kind="network", building="", rect=(0, 0, 1, 1),
                       outline=((0, 0), (1, 0), (1, 1), (0, 1)), entry=(0.5, 0), racks=3, gpus=0, it_kw=850.0,
                       capacity_kw=1200.0)
    assert [t for t, *_ in room_lines(small)] == ["Network room 1", "850.0 kW of 1.20 MW", "3 racks"]


@pytest.fixture(scope="module")
def campus_project(catalog):
    """GB300 NVL72, 73,728 GPUs in 20 MW halls, one hall to a building: a row of buildings whose bundles all run to
    the few that hold the network rooms."""
    return generate(SuperpodSpec(system="gb300-nvl72", gpus=73728, hall_power_kw=20000, halls_per_building=1),
                    catalog).project


@pytest.mark.parametrize("size", [(1400, 900), (1920, 1080)])
def test_the_counts_between_buildings_never_cover_each_other_a_building_or_the_key(synced_window, campus_project,
                                                                                   qtbot, size):
    w = _campus_window(synced_window, campus_project, qtbot, size)
    view, scene = w.site.view, w.site.scene
    between = [i for i in scene.bundle_items if i.between_buildings]
    assert len(between) > 10
    placed = view.count_labels()
    assert placed
    # the largest bundle's count comes first and each says its own bundle's links
    assert max(between, key=lambda i: i.bundle.all_links).bundle.all_links == placed[0].item.bundle.all_links
    assert all(p.box.width() > 0 and p.item.label == f"{p.item.bundle.all_links:,} links" for p in placed)
    boxes = [p.box for p in placed]
    assert not [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.intersects(b)]
    titles = [where for *_, where in view.building_titles()]
    outlines = [view.viewportTransform().mapRect(b.rect) for b in scene.building_items]
    assert not [b for b in boxes for r in titles + outlines if b.intersects(r)]
    key = overlay.legend_size(scene.legend(), front=False)
    vp = QRectF(view.viewport().rect())
    key_box = QRectF(vp.width() - key.width() - overlay.LEGEND_MARGIN_PX, overlay.LEGEND_MARGIN_PX, key.width(),
                     key.height())
    assert all(vp.contains(b) and not b.intersects(key_box) for b in boxes)
    assert not [b for b in boxes if b.intersects(overlay.scale_bar_rect(vp, view.scale_factor()))]
    # what is painted is these counts, drawn by the view: no bundle between buildings draws its own
    drawn = _painted_counts(view)
    between_drawn = sorted(((i.bundle.a, i.bundle.b, b.getRect()) for i, b in drawn if i.between_buildings))
    assert between_drawn == sorted((p.item.bundle.a, p.item.bundle.b, p.box.getRect()) for p in placed)


def test_a_pan_moves_the_counts_with_the_plan_and_neither_adds_nor_drops_one_still_in_view(synced_window,
                                                                                          campus_project, qtbot):
    w = _campus_window(synced_window, campus_project, qtbot)
    view = w.site.view
    view.zoom_by(1.6)  # part of the site out of view, so that a pan brings counts in and takes others out
    vp = QRectF(view.viewport().rect())
    clear = [view.key_rect(), overlay.scale_bar_rect(vp, view.scale_factor())]
    came_or_went = 0
    for step_x, step_y in ((140, -90), (-300, 40), (60, 250), (220, -160), (-90, -120)):
        before = {id(p.item): p.box for p in view.count_labels(for_zoom_only=True)}
        assert len(before) > 3
        was = view.viewportTransform()
        centre = view.mapToScene(view.viewport().rect().center())
        view.centerOn(centre.x() - step_x / view.scale_factor(), centre.y() - step_y / view.scale_factor())
        now = view.viewportTransform()
        dx, dy = now.dx() - was.dx(), now.dy() - was.dy()  # the pan in pixels, as the view rounded it
        assert abs(dx) > 40 and abs(dy) > 30
        after = {id(p.item): p.box for p in view.count_labels(for_zoom_only=True)}
        moved = [k for k, box in before.items() if k in after and
                 (after[k].topLeft() - box.translated(dx, dy).topLeft()).manhattanLength() > 1e-6]
        assert moved == []  # a count still shown stands where it stood on the plan
        kept = {k for k, box in before.items() if vp.contains(box.translated(dx, dy))
                and not any(box.translated(dx, dy).intersects(r.adjusted(-4, -4, 4, 4)) for r in clear)}
        assert kept <= set(after)  # and none still whole in view and clear of the key has gone
        came_or_went += before.keys() != after.keys()
        shown = [p.box for p in view.count_labels()]  # with those placed again on the part of their curves in view
        assert len(shown) >= len(after) and all(vp.contains(b) for b in shown)
        assert not [(a, b) for i, a in enumerate(shown) for b in shown[i + 1:] if a.intersects(b)]
    assert came_or_went  # the pans did bring counts in or take them out


@pytest.mark.parametrize("zoom", [6.0, 12.0])
def test_zoomed_in_a_count_whose_place_is_out_of_view_finds_one_in_view(synced_window, campus_project, qtbot, zoom):
    w = _campus_window(synced_window, campus_project, qtbot)
    view, scene = w.site.view, w.site.scene
    largest = max((i for i in scene.bundle_items if i.between_buildings), key=lambda i: i.bundle.all_links)
    view.zoom_by(zoom)
    view.centerOn(largest.label_points()[0])
    shown = view.count_labels()
    vp, t = QRectF(view.viewport().rect()), view.viewportTransform()
    # what placing every count for this view alone gives (the most this view can show), against what is shown
    blocked = [view.key_rect(), overlay.scale_bar_rect(vp, view.scale_factor())]
    blocked += [where for *_, where in view.building_titles()] + [t.mapRect(b.rect) for b in scene.building_items]
    between = sorted((i for i in scene.bundle_items if i.between_buildings),
                     key=lambda i: (-i.bundle.all_links, i.bundle.a, i.bundle.b))
    alone = bundle_labels.place([(i, i.label_points(), i.label) for i in between], t.map,
                                QFontMetricsF(largest.label_font()), blocked, inside=vp)
    assert len(alone) >= 3
    assert len(shown) >= len(alone) - 1  # 10 of 18 at 6x, 3 of 9 at 12x, when only the zoom's places were shown
    assert not [b for b in (p.box for p in shown) for r in blocked if b.intersects(r) or not vp.contains(b)]


def test_every_building_title_shows_its_whole_name_in_one_size(synced_window, campus_project, qtbot):
    w = synced_window()
    w.adopt_project(campus_project, None)
    qtbot.waitUntil(lambda: w.site.plan is not None and bool(w.site.plan.buildings), timeout=30000)
    qtbot.waitUntil(lambda: w.site.view.viewport().width() > 600)  # laid out, and the site fitted to it
    view, scene = w.site.view, w.site.scene
    titles = view.building_titles()
    assert len(titles) == len(scene.building_items) > 5
    names = [b.building.name for b in scene.building_items]
    assert all(text.startswith(name) for (text, _, _), name in zip(titles, names))
    boxes = [where for *_, where in titles]
    assert not [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.intersects(b)]


def test_a_building_title_too_narrow_for_its_name_keeps_the_number_that_tells_buildings_apart(campus_project,
                                                                                             catalog):
    from widgets.site.site_items import TITLE_PX, BuildingItem

    building = next(b for b in SitePlan.of(campus_project, catalog).buildings if b.name == "Building 12")
    item = BuildingItem(building, title_room_mm=0.0)  # no room beyond its own outline
    wide = 400.0 / item.rect.width()  # px per mm at which the outline is 400 px wide
    assert item.title_shown(wide) == item.title == "Building 12 · 5,184 GPUs"  # no load before the analysis
    narrow = 60.0 / item.rect.width()
    text = item.title_shown(narrow, TITLE_PX)
    assert text.startswith("…") and text.endswith("12") and not item.name_fits(narrow, TITLE_PX)
    assert item.title_shown(10.0 / item.rect.width()) == ""  # not even a few letters: no title at all


@pytest.fixture(scope="module")
def corridor_project(catalog):
    """GB300 NVL72, 73,728 GPUs in 20 MW halls, four to a building: corridors whose bundles all run to the
    network room in their middle."""
    return generate(SuperpodSpec(system="gb300-nvl72", gpus=73728, hall_power_kw=20000, halls_per_building=4),
                    catalog).project


def test_the_counts_along_a_corridor_cover_neither_each_other_a_title_nor_a_count_between_buildings(
        synced_window, corridor_project, qtbot):
    w = _campus_window(synced_window, corridor_project, qtbot)
    view, scene = w.site.view, w.site.scene
    within = [i for i in scene.bundle_items if not i.between_buildings]
    assert len(within) >= 6
    shown_fitted = view.room_count_labels()
    fm = QFontMetricsF(within[0].label_font())
    # a count shows only where it fits its narrower room on screen
    assert all(fm.horizontalAdvance(p.item.label) + 14 <= p.item.room_width_mm * view.scale_factor()
               for p in shown_fitted)
    net = next(r for r in w.site.plan.rooms if r.kind == "network")
    view.zoom_by(6.0)
    view.centerOn(*net.entry)
    shown = view.room_count_labels()
    assert len(shown) >= 2  # the corridor's bundles each say their own links
    assert all(p.item.label == f"{p.item.bundle.all_links:,} links" and not p.item.between_buildings for p in shown)
    boxes = [p.box for p in shown] + [p.box for p in view.count_labels()]
    assert not [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.intersects(b)]
    titles = [where for *_, where in view.building_titles()]
    assert titles and not [b for b in boxes for r in titles if b.intersects(r)]
    vp = QRectF(view.viewport().rect())
    assert all(vp.contains(b) and not b.intersects(view.key_rect()) for b in boxes)
    # and these are what is painted: no bundle draws its own count
    drawn = _painted_counts(view)
    corridor = sorted((i.bundle.a, i.bundle.b, b.getRect()) for i, b in drawn if not i.between_buildings)
    assert corridor == sorted((p.item.bundle.a, p.item.bundle.b, p.box.getRect()) for p in shown)
    # closer still, the corridor's middles are out of view: its counts stand on the part of their lines in view
    view.zoom_by(4.0)
    view.centerOn(*net.entry)
    t = view.viewportTransform()
    placed_for_zoom = [p for p in view.room_count_labels() if vp.contains(p.box)]
    assert placed_for_zoom and all(any(vp.contains(t.map(q)) for q in p.item.label_points()) for p in placed_for_zoom)
    boxes = [p.box for p in placed_for_zoom] + [p.box for p in view.count_labels()]
    assert not [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.intersects(b)]
