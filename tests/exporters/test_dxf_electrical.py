"""Each hall's electrical room in the DXF, read back with ezdxf: the room beyond the far wall, its aisles, and every
piece of equipment where designer.power.electrical_room puts it, on layers of their own."""
from __future__ import annotations

from collections import Counter

import ezdxf
import pytest

from designer.power.electrical_room import electrical_rooms
from exporters.dxf import write_dxf
from exporters.dxf_electrical import AISLES, EQUIPMENT, LABELS, ROOM


def test_the_gb200_sample_draws_its_electrical_room_piece_by_piece(nvl72, tmp_path):
    out = tmp_path / "plan.dxf"
    write_dxf(nvl72, out)
    doc = ezdxf.readfile(out)
    assert doc.audit().errors == []
    msp = doc.modelspace()
    room = electrical_rooms(nvl72.project)["hall-1"]
    for name in (ROOM, AISLES, EQUIPMENT, LABELS):
        assert name in doc.layers and doc.layers.get(name).description
    outline = [tuple(p) for p in msp.query(f'LWPOLYLINE[layer=="{ROOM}"]')[0].get_points("xy")]
    # plan y down, DXF Y up: the room from 11.1 m below the hall's top edge (10.8 m hall and a 0.3 m wall)
    assert outline[0] == pytest.approx((0.0, -room.y))
    assert outline[2] == pytest.approx((room.width, -(room.y + room.depth)))
    assert room.y == 11_100.0
    boxes = msp.query(f'LWPOLYLINE[layer=="{EQUIPMENT}"]')
    assert len(boxes) == len(room.items) == 36 and len(msp.query(f'LWPOLYLINE[layer=="{AISLES}"]')) == 2
    drawn = sorted((round(min(p[0] for p in b.get_points("xy"))), round(-max(p[1] for p in b.get_points("xy"))))
                   for b in boxes)
    assert drawn == sorted((round(i.x), round(i.y)) for i in room.items)
    # the fronts: one line per piece on the aisle side
    assert len(msp.query(f'LINE[layer=="{EQUIPMENT}"]')) == 36
    labels = Counter(t.dxf.text for t in msp.query(f'TEXT[layer=="{LABELS}"]'))
    assert labels["UPS A1"] == labels["UPS B2"] == 1 and labels["SG"] == 6 and labels["DB"] == 6
    title = next(t.dxf.text for t in msp.query(f'TEXT[layer=="{LABELS}"]') if t.dxf.text.startswith("Electrical"))
    assert title == "Electrical room 12.0 × 10.9 m"
    # no empty text: the battery racks are unlabelled, as on the plan; the title no wider than its room
    assert all(t.dxf.text for t in msp.query(f'TEXT[layer=="{LABELS}"]'))
    head = next(t for t in msp.query(f'TEXT[layer=="{LABELS}"]') if t.dxf.text == title)
    assert len(title) * 0.9 * head.dxf.height <= room.width
    # the drawing's extents take the room in, so the title block stands wholly below it
    below = [t for t in msp.query('TEXT[layer=="TITLE"]') if t.dxf.text not in ("Data hall 1",)]
    assert any("ELECTRICAL-* (each hall's electrical room" in t.dxf.text for t in below)  # the key names its layers
    assert below and all(t.dxf.insert.y < -(room.y + room.depth) for t in below)
