"""Each hall's electrical room (designer.power.electrical_room) in the DXF: the room's outline beyond the hall's far
wall, its working aisles, and every switchgear section, UPS module and battery cabinet as a rectangle with its front
edge and label, on layers of their own so a CAD user can switch the room off or hand it to the electrical designer."""
from __future__ import annotations

from ezdxf.enums import TextEntityAlignment

from designer import colours
from designer.power.electrical_room import KINDS, electrical_rooms

from .dxf_single_line import hex_rgb

#: a text's width per character, in text heights (Arial's average, as the title block reckons it)
CHAR_WIDTH = 0.9

ROOM, AISLES, EQUIPMENT, LABELS = ("ELECTRICAL-ROOM", "ELECTRICAL-AISLES", "ELECTRICAL-EQUIPMENT",
                                   "LABELS-ELECTRICAL")
#: name -> (AutoCAD colour index, true colour or None, lineweight in 1/100 mm, description)
LAYERS = {
    ROOM: (250, None, 50, "Electrical rooms: outline and the wall to the hall"),
    AISLES: (254, colours.ELECTRICAL_FLOOR, 9, "Electrical rooms: working space in front of the equipment"),
    EQUIPMENT: (42, colours.ELECTRICAL["switchgear"], 25,
                "Electrical rooms: " + ", ".join(v.lower() for v in KINDS.values())),
    LABELS: (7, None, 18, "Electrical room equipment names"),
}


def _rect(x: float, y: float, w: float, d: float, dx: float, dy: float) -> list[tuple[float, float]]:
    """A plan rectangle (y down) as DXF points (Y up), moved by the hall's offset."""
    return [(x + dx, -(y + dy)), (x + w + dx, -(y + dy)), (x + w + dx, -(y + d + dy)), (x + dx, -(y + d + dy))]


def add_electrical_rooms(doc, msp, project, offsets: dict, text_value, style: str) -> list[tuple[float, ...]]:
    """Draw every hall's electrical room; returns each room's extents (minx, miny, maxx, maxy in DXF units)."""
    rooms = electrical_rooms(project)
    if not rooms:
        return []
    for name, (aci, rgb, weight, what) in LAYERS.items():
        if name not in doc.layers:
            layer = doc.layers.add(name, color=aci, lineweight=weight)
            if rgb:
                layer.rgb = hex_rgb(rgb)
            layer.description = what
    out = []
    for hall_id, room in rooms.items():
        dx, dy = offsets.get(hall_id, (0.0, 0.0))
        msp.add_lwpolyline(_rect(room.x, room.y, room.width, room.depth, dx, dy), close=True,
                           dxfattribs={"layer": ROOM})
        # its name and size under it, no wider than the room (rooms side by side keep their titles apart); what
        # it holds is the room's to read
        text = room.title()
        size = max(50.0, min(800.0, room.width / 40, room.width / (len(text) * CHAR_WIDTH)))
        title = msp.add_text(text_value(text), height=size, dxfattribs={"layer": LABELS, "style": style})
        title.set_placement((room.x + dx, -(room.y + room.depth + dy) - size * 0.4),
                            align=TextEntityAlignment.TOP_LEFT)
        for x, y, w, d in room.aisles:
            msp.add_lwpolyline(_rect(x, y, w, d, dx, dy), close=True, dxfattribs={"layer": AISLES})
        label = min(150.0, min((i.w for i in room.items), default=150.0) / 5)
        for item in room.items:
            msp.add_lwpolyline(_rect(item.x, item.y, item.w, item.d, dx, dy), close=True,
                               dxfattribs={"layer": EQUIPMENT})
            front = item.y + item.d if item.faces_down else item.y
            msp.add_line((item.x + dx, -(front + dy)), (item.x + item.w + dx, -(front + dy)),
                         dxfattribs={"layer": EQUIPMENT})
            if not item.label:  # the battery racks: five to a module, unlabelled on the plan too
                continue
            text = msp.add_text(text_value(item.label), height=label, dxfattribs={"layer": LABELS, "style": style})
            text.set_placement((item.x + item.w / 2 + dx, -(item.y + item.d / 2 + dy)),
                               align=TextEntityAlignment.MIDDLE_CENTER)
        out.append((room.x + dx, -(room.y + room.depth + dy) - size * 1.6, room.x + room.width + dx, -(room.y + dy)))
    return out
