"""The generator over the sizes of both reference architectures, and the RA's own figures (hardware.md §5-§7)."""
from __future__ import annotations

import pytest
import shapely
from shapely.geometry import Polygon

from designer.checks import check_space
from designer.fabric.sizing import size_fat_tree

from ._support import RACK_D, RACK_W, bad_findings, count_prefixes, count_types, footprint, it_max_kw, show

MATRIX = [("dgx-b200", n) for n in (1, 2, 4, 8, 16, 32, 64)] + [("gb200-nvl72", n) for n in (1, 2, 4, 8, 16)]
#: Compute-fabric ports per node: 8 per DGX B200, 72 per NVL72 rack (18 trays x 4); 4 UFM ports reserved.
RAILS = {"dgx-b200": 8, "gb200-nvl72": 4}
UFM_PORTS = 4


def _ids(case):
    return f"{case[0]}-{case[1]}su"


@pytest.mark.parametrize("case", MATRIX, ids=_ids)
def test_no_error_or_warning(design, case):
    _, a = design(*case)
    bad = bad_findings(a)
    assert not bad, show(bad)


@pytest.mark.parametrize("case", MATRIX, ids=_ids)
def test_placed_switches_equal_the_engine_and_an_independent_sizing(design, catalog, case):
    system, sus = case
    g, a = design(system, sus)
    s = a.result("fabric").section
    assert s["placed"] == {"leaf": s["leaf"], "spine": s["spine"], "core": s["core"]}
    types = count_types(g.project)
    if system == "dgx-b200":
        nodes = types["dgx-b200"]
        endpoints = nodes * 8 + UFM_PORTS
    else:
        racks = types["gb200-nvl72"]
        endpoints = racks * 72 + UFM_PORTS
    tree = size_fat_tree(endpoints, catalog.get("qm9700"), rails=RAILS[system], reserved_ports=UFM_PORTS)
    assert (s["leaf"], s["spine"], s["core"], s["tiers"]) == (tree.leaf, tree.spine, tree.core, tree.tiers)
    # the switches really are in the racks, by name
    names = count_prefixes(g.project)
    assert (names["leaf"], names["spine"], names["core"]) == (tree.leaf, tree.spine, tree.core)
    assert types["qm9700"] >= tree.leaf + tree.spine + tree.core


@pytest.mark.parametrize("case", MATRIX, ids=_ids)
def test_gpu_count(design, catalog, case):
    system, sus = case
    g, a = design(system, sus)
    expected = (32 * sus - 1) * 8 if system == "dgx-b200" else 8 * sus * 72
    counted = sum(catalog.get(t).gpu_count * n for t, n in count_types(g.project).items()
                  if catalog.get(t).gpu_count)
    assert a.summary_json["gpus"] == counted == g.gpus == expected


@pytest.mark.parametrize("case", MATRIX, ids=_ids)
def test_it_power_is_the_sum_of_the_devices(design, catalog, case):
    g, a = design(*case)
    expected = it_max_kw(g.project, catalog)
    assert a.result("power").it_max_kw == pytest.approx(expected, rel=1e-6)
    assert a.summary_json["it_power_max_kw"] == pytest.approx(expected, rel=1e-6)
    assert g.it_max_kw == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("case", MATRIX, ids=_ids)
def test_racks_within_power_limit_and_hall_and_space_rules(design, catalog, case):
    g, a = design(*case)
    project = g.project
    halls = {h.id: h for h in project.halls}
    polys = {h.id: Polygon(h.outline) for h in project.halls}
    over, outside = [], []
    for r in project.racks:
        assert catalog.get(r.type).width_mm == RACK_W and catalog.get(r.type).depth_mm == RACK_D
        limit = r.power_limit_kw if r.power_limit_kw is not None else halls[r.hall].rack_power_limit_kw
        if not polys[r.hall].covers(footprint(r.x, r.y, r.rotation)):
            outside.append(r.name)
        if limit is None:  # a rack-scale system: held to its feeds (the power engine's rack-over-limit check)
            continue
        kw = sum((catalog.get(d.type).power_max_w or 0) for d in r.devices
                 if catalog.get(d.type).kind != "cdu") / 1000
        if kw > limit + 1e-9:
            over.append(f"{r.name}: {kw:.1f} kW > {limit} kW")
    for f in project.floor_devices:
        t = catalog.get(f.type)
        if not polys[f.hall].covers(footprint(f.x, f.y, f.rotation, t.width_mm, t.depth_mm)):
            outside.append(f.name)
    assert not over
    assert not outside
    p = a.result("power")
    assert (p.rack_max_kw <= p.rack_limit_kw + 1e-9).all()
    space = check_space(project, catalog)
    assert space == [], show(space)
    # no two footprints of one hall overlap (independently of the placement index)
    for hall in project.halls:
        shapes = [footprint(r.x, r.y, r.rotation) for r in project.racks if r.hall == hall.id]
        shapes += [footprint(f.x, f.y, f.rotation, catalog.get(f.type).width_mm, catalog.get(f.type).depth_mm)
                   for f in project.floor_devices if f.hall == hall.id]
        tree = shapely.STRtree(shapes)
        left, right = tree.query(shapes, predicate="intersects")
        keep = left < right
        areas = shapely.area(shapely.intersection([shapes[i] for i in left[keep]], [shapes[j] for j in right[keep]]))
        assert not (areas > 1.0).any(), hall.id  # mm²: footprints may touch, not overlap


# -- the RA's figures ----------------------------------------------------------------------------------

def test_four_su_dgx_b200_is_the_ra_figure(design):
    """hardware.md §5.1: the 4-SU DGX B200 SuperPOD's switches, UFM and management nodes."""
    g, a = design("dgx-b200", 4)
    names = count_prefixes(g.project)
    types = count_types(g.project)
    assert (names["leaf"], names["spine"], names["core"]) == (32, 16, 0)
    assert (names["storage-leaf"], names["storage-spine"]) == (8, 4)
    assert names["oob"] == 16
    assert (names["inband-spine"], names["inband-leaf"], names["inband-mgmt-leaf"]) == (2, 2, 2)
    assert (names["ufm-compute"], names["storage-ufm"]) == (2, 2)
    assert names["mgmt-node"] == 7
    assert names["dgx"] == 127
    # by type: 32 + 16 + 8 + 4 QM9700; 16 + 2 SN2201; 2 + 2 SN5600; 4 UFM; 7 management nodes
    assert types["qm9700"] == 60
    assert types["sn2201"] == 18
    assert types["sn5600"] == 4
    assert types["ufm-appliance"] == 4
    assert types["mgmt-node"] == 7
    assert types["dgx-b200"] == 127
    # the names say which switch each is
    for prefix, type_id in (("leaf-", "qm9700"), ("spine", "qm9700"), ("storage-leaf", "qm9700"),
                            ("storage-spine", "qm9700"), ("oob", "sn2201"), ("inband-leaf", "sn5600"),
                            ("inband-spine", "sn5600"), ("inband-mgmt-leaf", "sn2201"),
                            ("ufm-compute", "ufm-appliance"), ("storage-ufm", "ufm-appliance"),
                            ("mgmt-node", "mgmt-node")):
        got = {d.type for r in g.project.racks for d in r.devices if d.name.startswith(prefix)}
        assert got == {type_id}, (prefix, got)
    links = a.result("fabric").section["links"]
    assert links == {"node_leaf": 1020, "leaf_spine": 1024, "spine_core": 0}
    assert a.result("fabric").section["wired_links"] == links


@pytest.mark.parametrize(("sus", "nodes", "gpus", "leaf", "spine", "node_leaf", "leaf_spine"), [
    (1, 31, 248, 8, 4, 252, 256),
    (2, 63, 504, 16, 8, 508, 512),
    (3, 95, 760, 24, 16, 764, 768),
    (4, 127, 1016, 32, 16, 1020, 1024),
])
def test_table_4_rows(design, sus, nodes, gpus, leaf, spine, node_leaf, leaf_spine):
    """RA-11334-001 Table 4, row by row (hardware.md §5.2)."""
    g, a = design("dgx-b200", sus)
    s = a.result("fabric").section
    names = count_prefixes(g.project)
    assert (g.nodes, a.summary_json["gpus"]) == (nodes, gpus)
    assert (names["leaf"], names["spine"]) == (leaf, spine)
    assert s["placed"] == {"leaf": leaf, "spine": spine, "core": 0}
    assert s["links"] == {"node_leaf": node_leaf, "leaf_spine": leaf_spine, "spine_core": 0}
