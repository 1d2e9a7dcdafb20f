"""Which switches and appliances go into which network rack, and where the central band's racks stand."""
from __future__ import annotations

from .layout import TILE, Grid, row_places, side_by_side
from .networks import NetworkPlan
from .spec import SystemProfile


def su_network_items(net: NetworkPlan, profile: SystemProfile, sus: int, ufm_in_band: bool = False
                      ) -> list[tuple[list, list]]:
    """Per scalable unit, the switches of its two network racks (row A, row B) as ``(id, type, name, face)``.

    A leaf block goes to the SU of its first node slot (reserved UFM slots: the last SU). In a
    three-tier fabric each pod's spines are spread over the network racks of the pod's SUs, so a
    leaf's uplinks stay in its part of the hall and only the spine-to-core runs cross to the band.
    """
    tree = net.compute
    su_of_block = [min(blk * tree.leaf_down // profile.nodes_per_su, sus - 1) for blk in range(tree.blocks)]
    out: list[tuple[list, list]] = [([], []) for _ in range(sus)]
    blk_width = max(4, len(str(tree.blocks)))
    for p in range(tree.planes):
        tag, key = plane_tag(tree, p)
        for blk, su in enumerate(su_of_block):
            for r in range(tree.rails):
                out[su][0 if r < tree.rails / 2 else 1].append(
                    (f"leaf{key}{blk + 1}r{r}", tree.switch, f"leaf-{tag}{blk + 1:0{blk_width}d}-r{r}", "rear"))
    if tree.tiers == 3:
        width = max(4, len(str(tree.spine)))
        for p in range(tree.planes):
            tag, key = plane_tag(tree, p)
            first_spine = 0
            for pod in range(tree.pods):
                leaves, spines = tree.pod_of_leaf(pod)
                first_blk = pod * tree.pod_leaves // tree.rails
                pod_sus = sorted({su_of_block[k] for k in range(first_blk, first_blk + leaves // tree.rails)})
                for j in range(spines):
                    su = pod_sus[j % len(pod_sus)]
                    i = first_spine + j
                    out[su][(j // len(pod_sus)) % 2].append(
                        (f"spine{key}{i + 1}", tree.switch, f"spine-{tag}{i + 1:0{width}d}", "rear"))
                first_spine += spines
    if net.storage is not None:
        # the extra leaves interleaved over the SUs, not all in the first ones: the storage fabric deals each hall's
        # nodes over its own leaves on a site, so every hall needs its share
        spread = _interleaved(net.storage.leaf - net.storage_appliance_leaves, sus)
        first = 0
        for su in range(sus):
            for k in range(spread[su]):
                first += 1
                out[su][k % 2].append((f"st{first}", net.storage.switch, f"storage-leaf-{first:04d}", "rear"))
    # The compute UFM appliances plug into the last leaf block's reserved slots (RA Table 4): they stand
    # beside those leaves, in the last SU's row-B network rack, so their cables stay short.
    if not ufm_in_band:
        out[sus - 1][1].extend((f"ufm{i + 1}", net.ufm_type, f"ufm-compute-{i + 1}", "front")
                               for i in range(net.ufm_compute))
    first = 0
    for su, n in enumerate(_spread(net.oob, sus)):
        for k in range(n):
            first += 1
            out[su][k % 2].append((f"oob{first}", "sn2201", f"oob-{first:04d}", "rear"))
    return out


def plane_tag(tree, p: int) -> tuple[str, str]:
    """(name infix, id infix) of plane ``p``'s switches: "a-" and "a" on a twin-plane fabric, nothing on one
    plane, so that a single-plane design keeps its names and plane A's switches sort before plane B's."""
    if tree.planes == 1:
        return "", ""
    letter = "ab"[p]
    return f"{letter}-", letter


def upper_tier_name(tree) -> str:
    """The third tier as each technology names it: core (InfiniBand), super-spine (the Ethernet RAs)."""
    return "core" if tree.technology == "infiniband" else "superspine"


def _spread(total: int, parts: int) -> list[int]:
    """``total`` split over ``parts`` as evenly as whole numbers allow, earlier parts first."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _interleaved(total: int, parts: int) -> list[int]:
    """``total`` split over ``parts`` as evenly as whole numbers allow, the larger parts spread out among the rest."""
    return [(i + 1) * total // parts - i * total // parts for i in range(parts)]


def central_items(net: NetworkPlan, ufm_in_band: bool = False) -> dict[str, list]:
    """The band's racks by title: each a list of ``(id suffix, type, name, face)``."""
    tree = net.compute
    out: dict[str, list] = {}
    top = upper_tier_name(tree)
    for p in range(tree.planes):
        tag, key = plane_tag(tree, p)
        if tree.tiers < 3:  # three-tier spines stand with their pods (see su_network_items)
            out.setdefault("SPINE", []).extend((f"spine{key}{i + 1}", tree.switch, f"spine-{tag}{i + 1:04d}", "rear")
                                               for i in range(tree.spine))
        if tree.core:
            out.setdefault(top.upper(), []).extend((f"{top}{key}{i + 1}", tree.switch, f"{top}-{tag}{i + 1:04d}",
                                                    "rear") for i in range(tree.core))
    if net.storage is not None:
        s = net.storage
        first = s.leaf - net.storage_appliance_leaves
        out["STORAGE"] = [(f"sts{i + 1}", s.switch, f"storage-spine-{i + 1:04d}", "rear") for i in range(s.spine)] + \
                         [(f"stc{i + 1}", s.switch, f"storage-core-{i + 1:04d}", "rear") for i in range(s.core)]
        # the appliances' leaves stand in the appliances' racks, so their links stay inside those racks
        leaves = [(f"st{i + 1}", s.switch, f"storage-leaf-{i + 1:04d}", "rear") for i in range(first, s.leaf)]
        if net.storage_plan is None:
            out["STORAGE"] += leaves
    if net.storage_plan is not None:  # the appliances, in racks of their own with their leaves
        a = net.storage_plan
        width = max(4, len(str(a.count)))
        arrays = [(f"sa{i + 1}", a.appliance, f"storage-array-{i + 1:0{width}d}", "front") for i in range(a.count)]
        # each leaf beside the block of appliances whose first ports it takes (the storage fabric's dealing rule)
        k = max(len(leaves), 1)
        # (appliance i is in block i * k // count, so block j starts at the ceiling of j * count / k)
        out["ARRAY"] = [item for j in range(k) for item in
                        leaves[j:j + 1] + arrays[-(-j * a.count // k):-(-(j + 1) * a.count // k)]]
    if net.inband is not None or net.inband_management:
        items = []
        if net.inband is not None:
            items += [(f"ibs{i + 1}", "sn5600", f"inband-spine-{i + 1:02d}", "rear") for i in range(net.inband.spine)]
            items += [(f"ibl{i + 1}", "sn5600", f"inband-leaf-{i + 1:02d}", "rear") for i in range(net.inband.leaf)]
        items += [(f"ibm{i + 1}", "sn2201", f"inband-mgmt-leaf-{i + 1:02d}", "rear")
                  for i in range(net.inband_management)]
        out["INBAND"] = items
    mgmt = [(f"ufm{i + 1}", net.ufm_type, f"ufm-compute-{i + 1}", "front")
            for i in range(net.ufm_compute if ufm_in_band else 0)]
    mgmt += [(f"sufm{i + 1}", "ufm-appliance", f"storage-ufm-{i + 1}", "front") for i in range(net.ufm_storage)]
    mgmt += [(f"mn{i + 1}", "mgmt-node", f"mgmt-node-{i + 1:02d}", "front") for i in range(net.management_nodes)]
    out["MGMT"] = mgmt
    return {k: v for k, v in out.items() if v}


def band_places(grid: Grid):
    """Rack positions of the band, nearest the hall's centre line first (spines go there)."""
    places = []
    slots = int(grid.row_mm // TILE)
    for bp in range(grid.band_pairs):
        for col in range(grid.columns):
            x0, y0 = grid.band_origin(bp, col)
            label = f"N{bp + 1}{chr(65 + col) if grid.columns > 1 else ''}"
            a, b_ = row_places(x0, y0, [TILE] * slots, [TILE] * slots, label)
            places += a + b_
    cx = grid.width_mm / 2
    cy = grid.depth_mm / 2
    return sorted(places, key=lambda p: (abs(p.x - cx) + abs(p.y - cy), p.x, p.y))


def group_places(slots: list, start: int, count: int, title: str) -> list:
    """The ``count`` places from ``start`` a band's group of racks takes, in the order its racks fill them: the
    storage appliances' racks side by side (:func:`.layout.side_by_side`), as a block of appliances may run on into
    the next rack; any other group nearest the centre first."""
    places = slots[start:start + count]
    return side_by_side(places) if title == "ARRAY" else places
