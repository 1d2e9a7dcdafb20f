"""Rebuild the bundled sample designs: ``python -m designer.samples.build``.

DGX B200 scalable unit (DGX SuperPOD RA-11334-001): 16 compute racks built for
32 DGX B200, two per rack, in two rows of 8 facing a shared cold aisle. As in the
RA's Table 4, one DGX is left out so that the SU's 256 leaf ports also take the
compute UFM appliances (31 nodes, 248 GPUs, 252 node and UFM links). The SU's 8
leaf and 4 spine QM9700 sit in a network rack at the end of each row; the UFM
appliances, in-band and out-of-band switches in a management rack.

GB200 NVL72 scalable unit (RA-11338-001): 8 NVL72 racks in one row, with two
2 MW in-row CDUs (N+1) at the row ends, and behind them the SU's compute fabric
(4 rails x 144 compute trays on QM9700, sized by the fabric engine: 20 leaves,
16 spines) with its UFM appliances in two network racks.
"""
from __future__ import annotations

from catalog import default_catalog
from designer.fileformat import save
from designer.model import FloorDevice, Hall, MountedDevice, Project, Rack

from . import DGX_B200_SU, GB200_NVL72_SU

PITCH = 600.0  # rack width = one floor tile


def _pdus(rack_id: str, n: int, type_id: str) -> list[MountedDevice]:
    """``n`` vertical PDUs, alternating between feeds A and B (the order the power engine reads)."""
    return [MountedDevice(f"{rack_id}-pdu{i + 1}", type_id, None, "rear", f"PDU {'AB'[i % 2]}{i // 2 + 1}")
            for i in range(n)]


def dgx_b200_su() -> Project:
    hall = Hall("hall-1", "Data hall 1", ((0, 0), (10800, 0), (10800, 9000), (0, 9000)), tile_mm=600,
                power_capacity_kw=800, cooling_capacity_kw=700, floor_rating_kg_m2=1500, rack_power_limit_kw=40)
    racks = []
    # Row A faces +y (rotation 180) and row B faces -y: fronts meet across a 1.2 m cold aisle.
    rows = {"A": (3000.0, 180.0), "B": (5400.0, 0.0)}
    node = 0
    for row, (y, rot) in rows.items():
        for i in range(8):
            rid = f"{row.lower()}{i + 1:02d}"
            devs = []
            for slot, u in enumerate((5, 17)):
                if row == "B" and i == 7 and slot == 1:
                    continue  # the DGX removed for UFM connectivity (RA Table 4, footnote 1)
                node += 1
                devs.append(MountedDevice(f"{rid}-dgx{slot + 1}", "dgx-b200", u, "front", f"dgx-{node:02d}"))
            # Two 22 kW PDUs per feed: either feed alone carries both nodes (2 x 14.3 kW), so the rack is 2N.
            devs += _pdus(rid, 4, "pdu-415v-32a-3ph")
            racks.append(Rack(rid, f"{row}{i + 1:02d}", "hall-1", "rack-48u-600x1200", 1800 + i * PITCH, y, rot, row,
                              tuple(devs)))
    # Leaves for rails 0-3 at the end of row A, rails 4-7 and the spines at the end of row B.
    leaf_a = [MountedDevice(f"a09-leaf{r + 1}", "qm9700", 20 + 2 * r, "rear", f"leaf-r{r}") for r in range(4)]
    leaf_b = [MountedDevice(f"b09-leaf{r + 1}", "qm9700", 20 + 2 * r, "rear", f"leaf-r{r + 4}") for r in range(4)]
    spines = [MountedDevice(f"b09-spine{s + 1}", "qm9700", 30 + 2 * s, "rear", f"spine-{s + 1}") for s in range(4)]
    x9 = 1800 + 8 * PITCH
    racks.append(Rack("a09", "A09 network", "hall-1", "rack-48u-600x1200", x9, 3000.0, 180.0, "A",
                      tuple(leaf_a + _pdus("a09", 2, "pdu-415v-32a-3ph"))))
    racks.append(Rack("b09", "B09 network", "hall-1", "rack-48u-600x1200", x9, 5400.0, 0.0, "B",
                      tuple(leaf_b + spines + _pdus("b09", 2, "pdu-415v-32a-3ph"))))
    mgmt = [MountedDevice("m01-ufm1", "ufm-appliance", 10, "front", "ufm-compute-1"),
            MountedDevice("m01-ufm2", "ufm-appliance", 12, "front", "ufm-compute-2"),
            MountedDevice("m01-ib1", "sn5600", 20, "rear", "inband-leaf-1"),
            MountedDevice("m01-ib2", "sn5600", 23, "rear", "inband-leaf-2")]
    mgmt += [MountedDevice(f"m01-oob{i + 1}", "sn2201", 30 + i, "rear", f"oob-{i + 1}") for i in range(4)]
    racks.append(Rack("m01", "M01 management", "hall-1", "rack-42u-600x1200", 1800 + 9 * PITCH, 5400.0, 0.0, "B",
                      tuple(mgmt + _pdus("m01", 2, "pdu-415v-32a-3ph"))))
    return Project(name="DGX B200 SuperPOD - 1 scalable unit",
                   description="31 DGX B200 (248 GPUs; one of the SU's 32 gives its leaf ports to UFM, as in the "
                               "reference architecture) in 16 compute racks, the SU's rail-optimized QM9700 "
                               "leaf/spine fabric and a management rack.",
                   halls=(hall,), racks=tuple(racks))


def gb200_nvl72_su() -> Project:
    hall = Hall("hall-1", "Liquid-cooled hall", ((0, 0), (9600, 0), (9600, 8400), (0, 8400)), tile_mm=600,
                power_capacity_kw=1300, cooling_capacity_kw=250, liquid_cooling_capacity_kw=1200,
                floor_rating_kg_m2=2500, rack_power_limit_kw=132)
    racks = []
    for i in range(8):
        rid = f"r{i + 1:02d}"
        racks.append(Rack(rid, f"NVL72-{i + 1:02d}", "hall-1", "rack-48u-600x1200", 2400 + i * PITCH, 3600.0, 0.0,
                          "A", (MountedDevice(f"{rid}-sys", "gb200-nvl72", 1, "front", f"nvl72-{i + 1:02d}"),)))
    served = tuple(r.id for r in racks)
    leaves = [MountedDevice(f"n01-leaf{k + 1}", "qm9700", 5 + k, "rear", f"leaf-{k + 1:02d}") for k in range(20)]
    spines = [MountedDevice(f"n02-spine{k + 1}", "qm9700", 5 + k, "rear", f"spine-{k + 1:02d}") for k in range(16)]
    ufm = [MountedDevice(f"n02-ufm{k + 1}", "ufm-appliance", 30 + 2 * k, "front", f"ufm-compute-{k + 1}")
           for k in range(2)]
    racks.append(Rack("n01", "N01 leaf", "hall-1", "rack-48u-600x1200", 4200.0, 6000.0, 0.0, "B",
                      tuple(leaves + _pdus("n01", 4, "pdu-415v-60a-3ph"))))
    racks.append(Rack("n02", "N02 spine", "hall-1", "rack-48u-600x1200", 4800.0, 6000.0, 0.0, "B",
                      tuple(spines + ufm + _pdus("n02", 4, "pdu-415v-60a-3ph"))))
    cdus = (FloorDevice("cdu-1", "cdu-inrow-2mw", "hall-1", 1200.0, 3600.0, 0.0, "CDU-1", served),
            FloorDevice("cdu-2", "cdu-inrow-2mw", "hall-1", 2400 + 8 * PITCH + 600.0, 3600.0, 0.0, "CDU-2", served))
    return Project(name="GB200 NVL72 SuperPOD - 1 scalable unit",
                   description="8 DGX GB200 NVL72 racks (576 GPUs) with two 2 MW in-row CDUs (N+1) and the "
                               "SU's QM9700 compute fabric in two network racks.",
                   halls=(hall,), racks=tuple(racks), floor_devices=cdus)


def main() -> None:
    catalog = default_catalog()
    from designer.checks import check_space

    for project, path in ((dgx_b200_su(), DGX_B200_SU), (gb200_nvl72_su(), GB200_NVL72_SU)):
        problems = check_space(project, catalog)
        if problems:
            raise SystemExit(f"{path.name}: {problems[0].message}")
        save(project, path)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
