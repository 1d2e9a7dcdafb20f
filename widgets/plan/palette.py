"""The catalog palette: device types by category, a search box, drawn icons, key figures in a tooltip.

Dragging an entry out starts a :class:`QDrag` whose :class:`QMimeData`
carries only the catalog id under :data:`MIME_DEVICE`; whoever accepts the
drop (the floor plan, the rack elevation) looks the type up in the catalog.
Icons are painted here from the kind's colour and a glyph, so the app ships
no image files.
"""
from __future__ import annotations

import html

from PySide6.QtCore import QMimeData, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QDrag, QFont, QIcon, QPainter, QPainterPath, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLineEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from catalog import Catalog, DeviceType
from designer.quote.lines import CONFIRMED_EVIDENCE

from ..app import style

#: The MIME type of a palette drag; the payload is the catalog id in UTF-8 and nothing else.
MIME_DEVICE = "application/x-podplanner-device"
#: (category title, catalog kinds shown under it), in palette order. GPUs, optics and cables are parts, not placeable.
#: Appliances are split by what they are: storage appliances under Storage, the rest (UFM) under Network.
CATEGORIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Compute systems", ("server",)),
    ("Rack-scale systems", ("rack_system", "tray")),
    ("Network", ("switch", "appliance")),
    ("Storage", ("appliance",)),
    ("Power", ("pdu", "power_shelf")),
    ("Cooling", ("cdu", "crah")),
    ("Racks", ("rack",)),
)
STORAGE_CATEGORY = "Storage"
#: The icon of a storage appliance (an appliance by kind, drawn as storage).
STORAGE_GLYPH = "storage"
ID_ROLE = Qt.ItemDataRole.UserRole
ICON_PX = 32

#: Field names in ``DeviceType.figures`` -> how the tooltip calls them.
FIGURE_LABELS = {
    "u_height": "height", "rack_units": "rack units", "width_mm": "width", "depth_mm": "depth",
    "height_mm": "height (mm)", "power_max_w": "max power", "power_typical_w": "typical power",
    "gpu_count": "GPUs", "weight_kg": "weight", "price.amount": "price", "max_load_kg": "rated load",
    "liquid_fraction": "liquid share", "flow_lpm": "coolant flow", "airflow": "airflow",
    "part_number": "part number", "psu.redundant": "PSU redundancy", "psu.rating_w": "PSU rating",
    "host_memory_gb": "host memory", "host_memory_gbs": "host memory bandwidth", "host_link_gbs": "GPU-to-host link",
}


def in_category(title: str, dev: DeviceType) -> bool:
    """Whether ``dev`` (of one of the category's kinds) is listed under ``title``: a storage appliance under
    Storage only, so that no type is listed twice."""
    return dev.is_storage == (title == STORAGE_CATEGORY) if dev.kind == "appliance" else True


def mime_data_for(device_id: str) -> QMimeData:
    """What a palette drag carries: the catalog id alone."""
    mime = QMimeData()
    mime.setData(MIME_DEVICE, device_id.encode("utf-8"))
    return mime


# -- icons -------------------------------------------------------------------------------
_ICONS: dict[str, QIcon] = {}


def _bolt(x: float, y: float, s: float) -> QPolygonF:
    pts = [(0.55, 0.0), (0.15, 0.55), (0.45, 0.55), (0.35, 1.0), (0.85, 0.4), (0.55, 0.4), (0.7, 0.0)]
    return QPolygonF([QPointF(x + px * s, y + py * s) for px, py in pts])


def _draw_glyph(p: QPainter, kind: str, color: QColor) -> None:
    dark, white = color.darker(160), QColor("#FFFFFF")
    p.setPen(QPen(dark, 1.2))
    p.setBrush(color)
    if kind == "rack":
        p.setBrush(QColor("#F4F6F8"))
        p.drawRoundedRect(QRectF(8.5, 2.5, 15, 27), 2, 2)
        p.setPen(QPen(color, 1.4))
        for i in range(6):
            y = 7 + i * 3.6
            p.drawLine(QPointF(11, y), QPointF(21, y))
        return
    if kind == "rack_system":
        p.drawRoundedRect(QRectF(8.5, 2.5, 15, 27), 2, 2)
        p.setPen(QPen(white, 1.0))
        for i in range(9):
            y = 5.5 + i * 2.6
            p.drawLine(QPointF(10.5, y), QPointF(21.5, y))
        return
    if kind in ("server", "tray", "switch", "appliance", "power_shelf"):
        h = {"server": 14.0, "tray": 7.0}.get(kind, 9.0)
        body = QRectF(2.5, 16 - h / 2, 27, h)
        p.drawRoundedRect(body, 2, 2)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(white)
        if kind == "server":
            for i in range(3):
                p.drawRect(QRectF(5, body.top() + 2.5 + i * 3.4, 14, 1.6))
            p.drawEllipse(QPointF(25, body.center().y()), 1.6, 1.6)
        elif kind == "tray":
            p.drawRect(QRectF(5, 15.2, 18, 1.6))
        elif kind == "switch":
            for i in range(8):
                p.drawRect(QRectF(4.5 + i * 3.0, 14.5, 2.0, 3.0))
        elif kind == "appliance":
            p.drawEllipse(QPointF(16, 16), 2.6, 2.6)
        else:
            p.drawPolygon(_bolt(11, 12, 8))
        return
    if kind == STORAGE_GLYPH:  # a 1U box with drive bays, dark on the storage role's light yellow
        body = QRectF(2.5, 11.5, 27, 9)
        p.drawRoundedRect(body, 2, 2)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(dark)
        for i in range(6):
            p.drawRect(QRectF(5 + i * 3.2, 13.5, 2.0, 5.0))
        return
    if kind == "pdu":
        p.drawRoundedRect(QRectF(11.5, 2.5, 9, 27), 2, 2)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(white)
        p.drawPolygon(_bolt(12, 10, 12))
        return
    if kind == "cdu":
        drop = QPainterPath()
        drop.moveTo(16, 3)
        drop.cubicTo(16, 3, 6, 15, 6, 20)
        drop.cubicTo(6, 26, 11, 29.5, 16, 29.5)
        drop.cubicTo(21, 29.5, 26, 26, 26, 20)
        drop.cubicTo(26, 15, 16, 3, 16, 3)
        p.drawPath(drop)
        p.setPen(QPen(white, 1.6))
        p.drawArc(QRectF(10, 17, 8, 8), 180 * 16, 90 * 16)
        return
    p.drawEllipse(QRectF(6, 6, 20, 20))


def icon_for_kind(kind: str) -> QIcon:
    """A small drawn icon for a catalog kind (cached; needs a running QGuiApplication)."""
    icon = _ICONS.get(kind)
    if icon is None:
        icon = QIcon()
        for scale in (1, 2):
            pm = QPixmap(ICON_PX * scale, ICON_PX * scale)
            pm.setDevicePixelRatio(scale)
            pm.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pm)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            color = style.ROLES["storage"][0] if kind == STORAGE_GLYPH else style.KIND_COLORS.get(
                kind, style.FLOOR_OTHER[0])
            _draw_glyph(painter, kind, color)
            painter.end()
            icon.addPixmap(pm)
        _ICONS[kind] = icon
    return icon


# -- tooltips -----------------------------------------------------------------------------
def _money(amount: float, currency: str) -> str:
    return f"${amount:,.0f}" if currency == "USD" else f"{amount:,.0f} {currency}"


def key_figures(dev: DeviceType) -> list[tuple[str, str, tuple[str, ...]]]:
    """(label, value, figure names behind it) for the figures a designer picks a device by."""
    rows: list[tuple[str, str, tuple[str, ...]]] = []
    if dev.kind == "rack":
        rows.append(("Rack units", f"{dev.rack_units} U", ("rack_units",)))
    elif dev.fills_rack:
        rows.append(("Height", f"{dev.u_height:g} U (fills the rack)", ("u_height",)))
    elif dev.u_height:
        rows.append(("Height", f"{dev.u_height:g} U", ("u_height",)))
    elif dev.mountable:
        rows.append(("Height", "0 U (side-mounted)", ("u_height",)))
    if dev.width_mm and dev.depth_mm:
        rows.append(("Footprint", f"{dev.width_mm:g} × {dev.depth_mm:g} mm", ("width_mm", "depth_mm")))
    if dev.power_max_w:
        rows.append(("Max power", f"{dev.power_max_w / 1000:,.1f} kW", ("power_max_w",)))
    if dev.cooling_capacity_kw:
        rows.append(("Cooling capacity", f"{dev.cooling_capacity_kw:,.0f} kW", ("cooling_capacity_kw",)))
    if dev.gpu_count:
        rows.append(("GPUs", f"{dev.gpu_count}", ("gpu_count",)))
    if dev.weight_kg:
        rows.append(("Weight", f"{dev.weight_kg:,.1f} kg", ("weight_kg",)))
    if dev.price is not None:
        rows.append(("Price", _money(dev.price.amount, dev.price.currency), ("price.amount",)))
    return rows


def price_is_confirmed(dev: DeviceType) -> bool:
    """Whether the catalog's price is a vendor's own list price, by the bill's rule."""
    fig = dev.figure("price.amount")
    return bool(fig) and fig.evidence in CONFIRMED_EVIDENCE


def device_tooltip(dev: DeviceType) -> str:
    """Rich-text tooltip: name, id, the key figures, and which figures are unconfirmed."""
    unconfirmed = set(dev.unconfirmed_fields)
    lines = [f"<b>{html.escape(dev.name)}</b>",
             f"<span style='color:#5C6673'>{html.escape(dev.id)}"
             f"{' · ' + html.escape(dev.manufacturer) if dev.manufacturer else ''}</span>",
             "<table cellspacing='0' cellpadding='1'>"]
    for label, value, names in key_figures(dev):
        mark = " <span style='color:#B26A00'>(unconfirmed)</span>" if unconfirmed & set(names) else ""
        if names == ("price.amount",) and not mark and not price_is_confirmed(dev):
            # a press or third-party figure is sourced, yet no one can order at it
            mark = " <span style='color:#B26A00'>(indicative)</span>"
        if names == ("price.amount",) and dev.price.date:
            value += f", {dev.price.date}"
        lines.append(f"<tr><td style='color:#5C6673'>{label}&nbsp;&nbsp;</td><td>{html.escape(value)}{mark}</td></tr>")
    lines.append("</table>")
    if unconfirmed:
        names = ", ".join(FIGURE_LABELS.get(n, n) for n in sorted(unconfirmed))
        lines.append(f"<span style='color:#B26A00'>unconfirmed: {html.escape(names)}</span>")
    if dev.preliminary:
        lines.append(f"<br><span style='color:#B26A00'><b>{PRELIMINARY}:</b> {html.escape(dev.preliminary)}</span>")
    return "<br>".join(lines[:2]) + "".join(lines[2:])


PRELIMINARY = style.PRELIMINARY
#: The palette's column of the mark beside an entry whose vendor calls its figures preliminary.
MARK_COLUMN = 1


# -- the widget -----------------------------------------------------------------------------
class _PaletteTree(QTreeWidget):
    """The list itself; a drag carries only the entry's catalog id."""

    def __init__(self, palette: CatalogPalette):
        super().__init__(palette)
        self._palette = palette
        self.setHeaderHidden(True)
        self.setColumnCount(2)  # the name, and a "Preliminary" mark beside the entries that need one
        self.header().setStretchLastSection(False)
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.header().setSectionResizeMode(MARK_COLUMN, QHeaderView.ResizeMode.ResizeToContents)
        self.setIconSize(QSize(24, 24))
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setIndentation(12)
        self.setUniformRowHeights(True)
        self.setAnimated(True)

    def mimeTypes(self) -> list[str]:
        return [MIME_DEVICE]

    def mimeData(self, items) -> QMimeData:
        ids = [i.data(0, ID_ROLE) for i in items if i.data(0, ID_ROLE)]
        return mime_data_for(ids[0]) if ids else QMimeData()

    def startDrag(self, supported_actions) -> None:
        item = self.currentItem()
        device_id = item.data(0, ID_ROLE) if item is not None else None
        if not device_id:
            return
        drag = QDrag(self)
        drag.setMimeData(mime_data_for(device_id))
        drag.setPixmap(item.icon(0).pixmap(QSize(ICON_PX, ICON_PX)))
        drag.setHotSpot(drag.pixmap().rect().center())
        drag.exec(Qt.DropAction.CopyAction)


class CatalogPalette(QWidget):
    """Every placeable catalog type under its category, filtered by the search box."""

    #: An entry was double-clicked: its catalog id (for "add at the view centre" style shortcuts).
    device_activated = Signal(str)

    def __init__(self, catalog: Catalog, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search by name or id…")
        self.search.setClearButtonEnabled(True)
        self.tree = _PaletteTree(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(6)
        layout.addWidget(self.search)
        layout.addWidget(self.tree)
        self._items: dict[str, QTreeWidgetItem] = {}
        self._categories: list[QTreeWidgetItem] = []
        self._populate()
        self.search.textChanged.connect(self.set_filter)
        self.tree.itemDoubleClicked.connect(self._activated)

    def _populate(self) -> None:
        bold = QFont(self.font())
        bold.setBold(True)
        for title, kinds in CATEGORIES:
            devices = sorted((d for d in self.catalog.of_kind(*kinds) if in_category(title, d)),
                             key=lambda d: (kinds.index(d.kind), d.name.lower()))
            if not devices:
                continue
            cat = QTreeWidgetItem([title])
            cat.setFont(0, bold)
            cat.setFlags(Qt.ItemFlag.ItemIsEnabled)
            cat.setForeground(0, QBrush(style.MUTED_TEXT))
            self.tree.addTopLevelItem(cat)
            self._categories.append(cat)
            for dev in devices:
                item = QTreeWidgetItem([dev.name])
                item.setData(0, ID_ROLE, dev.id)
                # storage in the colour the plan's legend gives storage racks, not the management grey
                item.setIcon(0, icon_for_kind(STORAGE_GLYPH if dev.is_storage else dev.kind))
                item.setToolTip(0, device_tooltip(dev))
                item.setStatusTip(0, f"{dev.id}: drag onto the floor plan or a rack elevation")
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled)
                if dev.preliminary:
                    item.setText(MARK_COLUMN, PRELIMINARY)
                    item.setToolTip(MARK_COLUMN, dev.preliminary)
                    item.setForeground(MARK_COLUMN, QBrush(style.ROLES["network"][0].darker(140)))
                cat.addChild(item)
                self._items[dev.id] = item
            cat.setExpanded(True)

    # -- API --------------------------------------------------------------------------------
    @staticmethod
    def mime_data_for(device_id: str) -> QMimeData:
        return mime_data_for(device_id)

    def ids(self) -> list[str]:
        """Every catalog id the palette lists, in order."""
        return list(self._items)

    def item_for(self, device_id: str) -> QTreeWidgetItem | None:
        return self._items.get(device_id)

    def visible_ids(self) -> list[str]:
        """The ids the current search leaves visible."""
        return [i for i, item in self._items.items() if not item.isHidden()]

    def preliminary_mark(self, device_id: str) -> tuple[str, str]:
        """(mark, its tooltip) beside an entry: ("Preliminary", why) when its vendor calls it so, else ("", "")."""
        item = self._items[device_id]
        return item.text(MARK_COLUMN), item.toolTip(MARK_COLUMN)

    def categories(self) -> list[str]:
        return [c.text(0) for c in self._categories]

    def set_filter(self, text: str) -> None:
        """Show only entries whose id or name contains every word of ``text`` (any case)."""
        if self.search.text() != text:
            self.search.setText(text)  # comes back here through textChanged
            return
        words = text.lower().split()
        for cat in self._categories:
            shown = 0
            for i in range(cat.childCount()):
                item = cat.child(i)
                hay = f"{item.data(0, ID_ROLE)} {item.text(0)}".lower()
                hide = not all(w in hay for w in words)
                item.setHidden(hide)
                shown += not hide
            cat.setHidden(shown == 0)
            if words and shown:
                cat.setExpanded(True)

    def _activated(self, item: QTreeWidgetItem, _column: int) -> None:
        device_id = item.data(0, ID_ROLE)
        if device_id:
            self.device_activated.emit(device_id)
