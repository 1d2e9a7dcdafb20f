"""Generated large designs for benchmarks (100,000 GPUs and more)."""
from __future__ import annotations

import math

from designer.model import Hall, MountedDevice, Project, Rack

PITCH = 600.0
ROW_PITCH = 3600.0  # rack depth 1200 + aisle 1200, alternating hot/cold: 2 racks depth + 2 aisles per pair


def grid_project(racks_needed: int, fill, *, name: str, rack_type: str = "rack-48u-600x1200",
                 per_row: int = 40) -> Project:
    """``racks_needed`` racks in rows of ``per_row``; ``fill(rack_id)`` gives each rack's devices."""
    rows = math.ceil(racks_needed / per_row)
    width = 2400 + per_row * PITCH + 2400
    depth = 2400 + rows * ROW_PITCH
    hall = Hall("hall-1", "Generated hall", ((0, 0), (width, 0), (width, depth), (0, depth)),
                power_capacity_kw=200000, cooling_capacity_kw=200000, floor_rating_kg_m2=2500)
    racks = []
    for i in range(racks_needed):
        row, col = divmod(i, per_row)
        rid = f"r{i:05d}"
        racks.append(Rack(rid, f"R{row:03d}-{col:02d}", "hall-1", rack_type, 2400 + col * PITCH + PITCH / 2,
                          2400 + row * ROW_PITCH + 600, 180.0 if row % 2 else 0.0, f"R{row:03d}", tuple(fill(rid))))
    return Project(name=name, halls=(hall,), racks=tuple(racks))


def dgx_b200_project(gpus: int = 100_000) -> Project:
    """About ``gpus`` GPUs as DGX B200, two per rack with three PDUs (12,500 nodes for 100,000 GPUs)."""
    nodes = math.ceil(gpus / 8)

    def fill(rid: str):
        devs = [MountedDevice(f"{rid}-n1", "dgx-b200", 5, "front"), MountedDevice(f"{rid}-n2", "dgx-b200", 17, "front")]
        devs += [MountedDevice(f"{rid}-p{k}", "pdu-415v-32a-3ph", None, "rear") for k in range(3)]
        return devs

    return grid_project(math.ceil(nodes / 2), fill, name=f"Generated DGX B200, {gpus} GPUs")


def nvl72_project(gpus: int = 100_000) -> Project:
    racks = math.ceil(gpus / 72)
    return grid_project(racks, lambda rid: [MountedDevice(f"{rid}-sys", "gb200-nvl72", 1, "front")],
                        name=f"Generated GB200 NVL72, {gpus} GPUs")
