"""The key numbers of a generated design, for the command line and the window's preview."""
from __future__ import annotations

import re
from collections import Counter

from catalog import Catalog

from ..analysis import Analysis
from ..formatting import count, kw, money, number, quantity
from ..rack_roles import rack_role
from ..power.electrical_room import electrical_rooms
from ..site import hall_origins
from .build import Generated
from ..settings import FABRIC_NAMES

_NUMBERED = re.compile(r"[-\d]+(r\d+)?$")
_PLANE = re.compile(r"-[ab]$")  # a twin-plane fabric's leaf-a-0001-r0, spine-b-0002


def _switches_by_network(generated: Generated) -> dict[str, dict[str, int]]:
    """Switches counted by network and tier, from the names the generator gave them."""
    out: dict[str, Counter] = {}
    for rack in generated.project.racks:
        for d in rack.devices:
            label = _PLANE.sub("", _NUMBERED.sub("", d.name))
            if label in ("leaf", "spine", "core", "superspine"):
                out.setdefault("compute", Counter())["core" if label == "superspine" else label] += 1
            elif label.startswith("storage-") and label not in ("storage-ufm", "storage-array"):
                out.setdefault("storage", Counter())[label.split("-", 1)[1]] += 1
            elif label.startswith("inband-"):
                tier = label.split("-", 1)[1]
                out.setdefault("inband", Counter())["management-node leaf" if tier == "mgmt-leaf" else tier] += 1
            elif label == "oob":
                out.setdefault("oob", Counter())["switch"] += 1
    return {k: dict(v) for k, v in out.items()}


def _storage(analysis: Analysis) -> dict | None:
    """The storage appliances and the tier they meet (None: no storage section or no tier)."""
    if not analysis.has("storage") or analysis.storage.tier is None:
        return None
    st = analysis.storage
    return {"tier": st.tier, "tier_name": st.tier_name, "appliances": {a.name: a.count for a in st.appliances},
            "read_gb_s": st.read_gb_s, "write_gb_s": st.write_gb_s, "need_read_gb_s": st.need.read_gb_s,
            "need_write_gb_s": st.need.write_gb_s, "capacity_pb": st.capacity_pb, "placed": st.placed}


def _total(halls, field: str) -> float | None:
    values = [getattr(h, field) for h in halls if getattr(h, field) is not None]
    return sum(values) if values else None


def key_numbers(generated: Generated, analysis: Analysis, catalog: Catalog) -> dict:
    """GPUs, racks, rows, switches per network and tier, power, heat and price of a generated design."""
    project = generated.project
    s = analysis.summary
    roles = Counter(rack_role(r, catalog) for r in project.racks)
    hall = project.halls[0]
    x0, y0, x1, y1 = hall.bounds
    data = [h for h in project.halls if h.kind == "data"]
    origins = hall_origins(project.halls)
    rooms = electrical_rooms(project)
    corners = [(o[0] + h.bounds[0], o[1] + h.bounds[1], o[0] + h.bounds[2], o[1] + h.bounds[3])
               for h, o in zip(project.halls, origins)]
    # the electrical rooms beyond the halls' far walls are part of the site
    corners += [(o[0] + r.x, o[1] + r.y, o[0] + r.x + r.width, o[1] + r.y + r.depth)
                for h, o in zip(project.halls, origins) if (r := rooms.get(h.id)) is not None]
    site = (max(c[2] for c in corners) - min(c[0] for c in corners),
            max(c[3] for c in corners) - min(c[1] for c in corners))
    fabric = analysis.fabric
    by_len = analysis.result("fabric").cable_lengths()
    fibre = [(length, n) for type_id, lens in by_len.items() if type_id.startswith("fiber")
             for length, n in lens.items()]
    fibre_n = sum(n for _, n in fibre)
    return {
        "system": generated.profile.id,
        "system_name": generated.profile.name,
        "scalable_units": generated.sus,
        "systems": generated.nodes,
        "gpus": s.gpus,
        "racks": s.racks,
        "racks_by_role": dict(roles),
        "rows": len({(r.hall, r.row) for r in project.racks}),
        "cdus": len(project.floor_devices),
        "hall_m": [round((x1 - x0) / 1000, 1), round((y1 - y0) / 1000, 1)],
        "halls": len(data),
        "network_rooms": len(project.halls) - len(data),
        "buildings": len({h.building for h in project.halls}),
        "site_m": [round(site[0] / 1000, 1), round(site[1] / 1000, 1)],
        # each room's UPS and switchgear (designer.power.electrical_room): the first hall's room, and all of them
        "electrical_room_m": ([round(rooms[hall.id].width / 1000, 1), round(rooms[hall.id].depth / 1000, 1)]
                              if hall.id in rooms else None),
        "electrical_rooms_m2": round(sum(r.area_m2 for r in rooms.values()), 1),
        # a site's: every room's together
        "hall_power_kw": _total(project.halls, "power_capacity_kw"),
        "hall_air_cooling_kw": _total(project.halls, "cooling_capacity_kw"),
        "hall_liquid_cooling_kw": _total(project.halls, "liquid_cooling_capacity_kw"),
        "switches": _switches_by_network(generated),
        "storage": _storage(analysis),
        "fabric_tiers": fabric.tiers,
        "fabric_technology": fabric.technology,
        "fabric_planes": fabric.planes,
        "it_power_max_kw": s.it_power_max_kw,
        "it_power_typical_kw": s.it_power_typical_kw,
        "gpu_power_cap_w": project.settings.gpu_power_cap_w,
        "facility_power_kw": s.facility_power_kw,
        "liquid_heat_kw": s.liquid_heat_kw,
        "air_heat_kw": s.air_heat_kw,
        "price_total": s.price_total,
        "currency": s.currency,
        "fabric_cables": fabric.cables_total if fabric.cables_total is not None else s.cables,
        "mean_fibre_m": round(sum(length * n for length, n in fibre) / fibre_n, 2) if fibre_n else None,
        "errors": sum(f.severity == "error" for f in analysis.findings),
        "error_messages": [f.message for f in analysis.findings if f.severity == "error"][:3],
        "warnings": sum(f.severity == "warning" for f in analysis.findings),
        "notes": list(generated.notes),
    }


NETWORK_NAMES = {"compute": "compute fabric", "storage": "storage fabric", "inband": "in-band management",
                 "oob": "out-of-band management"}


def key_lines(numbers: dict) -> list[str]:
    """The key numbers as lines a person reads."""
    n = numbers
    roles = n["racks_by_role"]
    rack_text = ", ".join(f"{v} {k.replace('rack_scale', 'rack-scale')}" for k, v in sorted(roles.items()))
    lines = [f"{n['gpus']:,} GPUs in {n['systems']:,} × {n.get('system_name') or n['system']} "
             f"({n['scalable_units']} scalable unit{'s' if n['scalable_units'] != 1 else ''})",
             f"{n['racks']:,} racks ({rack_text}) in {n['rows']} rows"
             + (f", {n['cdus']} CDUs" if n["cdus"] else "")
             + (f"; hall {number(n['hall_m'][0], 1)} x {quantity(n['hall_m'][1], 'm')}" if n.get("halls", 1) <= 1
                else f"; {n['halls']} data halls and {count(n['network_rooms'], 'network room')} in "
                     f"{count(n['buildings'], 'building')}, a site of {number(n['site_m'][0], 1)} x "
                     f"{quantity(n['site_m'][1], 'm')}")
             + (f", its electrical room {number(n['electrical_room_m'][0], 1)} x "
                f"{quantity(n['electrical_room_m'][1], 'm')} beyond the far wall"
                if n.get("halls", 1) <= 1 and n.get("electrical_room_m") else
                f", {quantity(n['electrical_rooms_m2'], 'm²')} of electrical rooms" if n.get("electrical_rooms_m2")
                else "")]
    for net, tiers in n["switches"].items():
        parts = ", ".join(f"{v} {'switches' if k == 'switch' and v != 1 else k}" for k, v in tiers.items())
        kind = "" if n.get("fabric_technology", "infiniband") == "infiniband" else \
            f"{FABRIC_NAMES.get(n['fabric_technology'], n['fabric_technology'])}, "
        planes = f", {n['fabric_planes']} planes" if n.get("fabric_planes", 1) > 1 else ""
        if net == "compute" and tiers.get("core") and kind:
            parts = parts.replace(" core", " super-spine")
        lines.append(f"{NETWORK_NAMES.get(net, net)}: {parts}"
                     + (f" ({kind}{n['fabric_tiers']} tiers{planes})" if net == "compute" else ""))
    st = n.get("storage")
    if st and st["placed"]:
        kinds = ", ".join(f"{c:,} × {name}" for name, c in st["appliances"].items())
        lines.append(f"storage: {kinds}: {quantity(st['write_gb_s'], 'GB/s')} write, "
                     f"{quantity(st['read_gb_s'], 'GB/s')} read, {number(st['capacity_pb'], 2)} PB usable "
                     f"({st['tier_name']} tier asks {quantity(st['need_write_gb_s'], 'GB/s')} write, "
                     f"{quantity(st['need_read_gb_s'], 'GB/s')} read)")
    lines.append(f"IT power {kw(n['it_power_max_kw'])} max ({kw(n['it_power_typical_kw'])} typical), "
                 f"facility {kw(n['facility_power_kw'])}"
                 + (f"; every GPU capped at {quantity(n['gpu_power_cap_w'], 'W')}" if n.get("gpu_power_cap_w") else ""))
    lines.append(f"heat {kw(n['liquid_heat_kw'])} to liquid, {kw(n['air_heat_kw'])} to air")
    price = n["price_total"]
    lines.append(f"price {money(price, n['currency'])} (list and estimated prices; see the bill of materials)"
                 if price is not None else "price: some parts have no price")
    if n["mean_fibre_m"] is not None:
        lines.append(f"compute-fabric cables: {number(n['fabric_cables'])}, mean fibre length "
                     f"{quantity(n['mean_fibre_m'], 'm')}")
    lines.append(f"checks: {count(n['errors'], 'error')}, {count(n['warnings'], 'warning')}")
    lines += [f"error: {m}" for m in n.get("error_messages", [])]
    return lines
