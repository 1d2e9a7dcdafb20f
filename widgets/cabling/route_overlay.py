"""The cabling panel's routes on the floor plan: one :class:`~widgets.plan.cable_routes.CableRoutesItem` kept in
the plan's scene.

The scene deletes its items when it rebuilds (a new document, a hall edit), so the
overlay puts a fresh item back whenever it draws.
"""
from __future__ import annotations

import shiboken6
from PySide6.QtCore import QPointF

from designer.cabling_view import LinkRows, route_points

from ..plan.cable_routes import CableRoutesItem, polygon


class RouteOverlay:
    """The routes of the links a panel lists, drawn on ``scene`` and listed in its legend."""

    def __init__(self, scene):
        self.scene = scene
        self.item = CableRoutesItem()
        self.scene.addItem(self.item)
        self.scene.legend_overlays.append(self.item)
        #: the routes drawn now (:func:`designer.cabling_view.route_points`), and which far rack each goes to
        self.routes = []
        self._route_of_rack: dict[str, int] = {}

    def live_item(self) -> CableRoutesItem:
        """The item, put back into the scene when the scene's rebuild deleted it."""
        if not shiboken6.isValid(self.item) or self.item.scene() is not self.scene:
            if self.item in self.scene.legend_overlays:
                self.scene.legend_overlays.remove(self.item)
            self.item = CableRoutesItem()
            self.scene.addItem(self.item)
            self.scene.legend_overlays.append(self.item)
        return self.item

    def draw(self, analysis, rows: LinkRows | None) -> None:
        """Draw the routes of ``rows`` (none for None or no rows)."""
        item = self.live_item()
        if rows is None or not len(rows):
            self.routes, self._route_of_rack = [], {}
            item.set_routes([])
            return
        self.routes = route_points(analysis, rows)
        offsets = self.scene.hall_offsets
        zero = QPointF(0, 0)
        item.set_routes([(r.medium, polygon(r.points, offsets.get(r.hall, zero), offsets.get(r.far_hall, zero),
                                            r.far_from)) for r in self.routes])
        self._route_of_rack = {r.far_rack: i for i, r in enumerate(self.routes)}

    def highlight(self, far_rack: str | None) -> None:
        """Draw the route to ``far_rack`` on top (None: no route stands out)."""
        self.live_item().set_highlight(None if far_rack is None else self._route_of_rack.get(far_rack))

    def dispose(self) -> None:
        """Take the routes off the plan and out of its legend."""
        if self.item in self.scene.legend_overlays:
            self.scene.legend_overlays.remove(self.item)
        if shiboken6.isValid(self.item) and self.item.scene() is not None:
            self.item.scene().removeItem(self.item)
