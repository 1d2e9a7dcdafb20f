"""The sized fat tree as a record: its counts per plane, the ports each switch uses, its optics and its
document; and the port rules the sizing shares with it (a switch's fabric ports, split to a speed; a leaf's
down:up split; a spine's uplinks above the pod). :mod:`.sizing` decides the counts.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from catalog import Catalog, DeviceType, default_catalog

from . import media

ROCE_NOTE = ("RoCE fabric built rail-optimized as NVIDIA's reference architectures build theirs (NIC r of every "
             "node on a rail-r leaf, a leaf serving many racks), not as Meta's RoCE clusters are (one top-of-rack "
             "switch per rack of 16 GPUs, hardware-2026.md §5.4); the tiers and the oversubscription above the pod "
             "are counted alike")

#: Ports per node cage on the node side when nothing else is known (DGX: twin-port OSFP).
DEFAULT_NODE_CAGE_PORTS = 2


class FabricError(ValueError):
    """A fabric request that cannot be built (bad value, too many endpoints, forbidden tier)."""


def smallest_divisor_at_least(n: int, minimum: int) -> int | None:
    """The smallest divisor of ``n`` that is >= ``minimum`` (None if there is none)."""
    for d in range(max(1, minimum), n + 1):
        if n % d == 0:
            return d
    return None


def fabric_ports(switch: DeviceType, speed_gbps: float = 0.0):
    """The switch's fabric port group, or FabricError when it has none.

    With ``speed_gbps`` below the ports' own speed, the group as the switch runs it split to that speed
    (an SN5610's 64 x 800G as 128 x 400G, twin-port modules in its cages), when the catalog says its ports
    split that far; FabricError otherwise.
    """
    group = next((g for g in switch.ports if g.role == "fabric"), None)
    if group is None:
        raise FabricError(f"{switch.id} is not a fabric switch: it has no fabric ports")
    if not speed_gbps or speed_gbps >= group.speed_gbps:
        return group
    ways = group.speed_gbps / speed_gbps
    if abs(ways - round(ways)) > 1e-9 or round(ways) > group.breakout:
        what = (f"its {group.speed_gbps:g}G ports split at most {group.breakout} ways "
                f"({group.speed_gbps / group.breakout:g}G)" if group.breakout > 1
                else f"its {group.speed_gbps:g}G ports do not split")
        raise FabricError(f"{switch.id} cannot run {speed_gbps:g}G fabric ports: {what}")
    n = int(round(ways))
    return replace(group, speed_gbps=speed_gbps, count=group.count * n, ports_per_cage=group.ports_per_cage * n,
                   breakout=1)


def technology_of(switch: DeviceType) -> str:
    """``infiniband`` for a Quantum switch, ``spectrum-x`` for an Ethernet one (the RAs' Spectrum-X fabric)."""
    group = next((g for g in switch.ports if g.role == "fabric"), None)
    return "spectrum-x" if group is not None and group.protocol == "ethernet" else "infiniband"


def leaf_split(radix: int, oversubscription: float) -> tuple[int, int]:
    """(down, up) ports of a leaf for a down:up ratio; rounds toward less oversubscription."""
    up = math.ceil(radix / (1.0 + oversubscription) - 1e-9)
    return radix - up, up


@dataclass(frozen=True)
class FatTree:
    """One sized fabric. Counts are switches and 400G-class links (one cable per link)."""

    switch: str
    radix: int
    port_gbps: float
    switch_cage_ports: int
    endpoints: int
    reserved_ports: int
    rails: int
    su_nodes: int
    oversubscription: float
    tiers: int
    nodes: int
    leaf_down: int
    leaf_up: int
    leaf: int
    spine: int
    core: int
    pods: int
    pod_leaves: int  # leaves in a full pod (3 tiers) or all leaves (2 tiers)
    pod_spines: int  # spines of a full pod
    last_pod_leaves: int
    last_pod_spines: int
    core_group: int  # cores per core group (3 tiers)
    core_ports_per_pod: int  # ports each pod gets on each core of a group
    max_by_tiers: dict = field(compare=False)
    radix_max_by_tiers: dict = field(compare=False)
    node_cage_ports: int = DEFAULT_NODE_CAGE_PORTS
    #: reserved (UFM) ports that found no free node slot on the leaves: the fabric is full without them
    reserved_unplaced: int = 0
    #: the node ports' speed, Gb/s (0: the switch's port speed); UFM ports run at the switch's speed
    node_port_gbps: float = 0.0
    #: independent copies of the tree (Spectrum-X twin-plane: each GPU port split in two, one half per plane).
    #: Every count field above is one plane's; the ``*_switches`` properties and :meth:`to_json` count all.
    planes: int = 1
    #: "infiniband", "spectrum-x" or "roce": what the switches run
    technology: str = "infiniband"
    #: down:up ratio at the spines, above the pod (3 tiers); 1 = as many uplinks as downlinks
    core_oversubscription: float = 1.0
    #: spine positions that share one core group: an oversubscribed spine layer sends so few uplinks that
    #: a core's ports serve the same spine position of every pod more than once over (1 at a 1:1 spine)
    core_share: int = 1

    # -- every plane ------------------------------------------------------
    @property
    def leaf_switches(self) -> int:
        return self.leaf * self.planes

    @property
    def spine_switches(self) -> int:
        return self.spine * self.planes

    @property
    def core_switches(self) -> int:
        return self.core * self.planes

    @property
    def switches(self) -> int:
        return (self.leaf + self.spine + self.core) * self.planes

    # -- derived counts ---------------------------------------------------
    @property
    def cabled_endpoints(self) -> int:
        return self.nodes * self.rails + self.reserved_ports

    @property
    def blocks(self) -> int:
        return self.leaf // self.rails

    @property
    def scalable_units(self) -> int:
        """Whole SUs of nodes: the reserved (UFM) ports never count as one."""
        return math.ceil(self.nodes / self.su_nodes)

    @property
    def links_node_leaf(self) -> int:
        return self.cabled_endpoints

    @property
    def links_leaf_spine(self) -> int:
        return self.leaf * self.leaf_up

    @property
    def links_spine_core(self) -> int:
        if self.tiers != 3:
            return 0
        if self.core_oversubscription == 1:
            return self.links_leaf_spine
        full = (self.pods - 1) * self.pod_spines * self.spine_uplinks_of_pod(0) if self.pods > 1 else 0
        return full + self.last_pod_spines * self.spine_uplinks_of_pod(self.pods - 1)

    @property
    def spine_down(self) -> int:
        """Ports of a spine that face leaves (3 tiers; its uplinks follow them): k/2 at a 1:1 spine."""
        return leaf_split(self.radix, self.core_oversubscription)[0]

    @property
    def max_endpoints(self) -> int:
        return self.max_by_tiers[self.tiers]

    @property
    def actual_oversubscription(self) -> float:
        return self.leaf_down / self.leaf_up

    def pod_of_leaf(self, p: int) -> tuple[int, int]:
        """(leaves, spines) of pod ``p``."""
        if p == self.pods - 1:
            return self.last_pod_leaves, self.last_pod_spines
        return self.pod_leaves, self.pod_spines

    # -- ports per switch -------------------------------------------------
    def leaf_down_used(self) -> np.ndarray:
        """Down ports used on each leaf (index = block * rails + rail)."""
        d, r = self.leaf_down, self.rails
        blocks = np.arange(self.blocks)
        per_block = np.clip(self.nodes - blocks * d, 0, d)
        used = np.repeat(per_block, r)
        if self.reserved_ports:
            i = np.arange(self.reserved_ports)
            slot = self.nodes + i // r
            used += np.bincount((slot // d) * r + i % r, minlength=self.leaf)[: self.leaf]
        return used

    def spine_ports_used(self) -> np.ndarray:
        used = []
        for p in range(self.pods):
            leaves, spines = self.pod_of_leaf(p)
            down = leaves * self.leaf_up // spines
            used += [down + (self.spine_uplinks_of_pod(p) if self.tiers == 3 else 0)] * spines
        return np.asarray(used, dtype=np.int64)

    def spine_downlinks_of_pod(self, p: int) -> int:
        """Links from the leaves of pod ``p`` to each of its spines."""
        leaves, spines = self.pod_of_leaf(p)
        return leaves * self.leaf_up // spines

    def spine_uplinks_of_pod(self, p: int) -> int:
        """Links from each spine of pod ``p`` to the cores: its downlinks over the spine's ratio, rounded up."""
        return spine_uplinks(self.spine_downlinks_of_pod(p), self.core_oversubscription)

    # -- bandwidth --------------------------------------------------------
    def bisection(self) -> dict:
        """Bisection over every plane, Tb/s (one direction), of the whole fabric and of one full pod.

        A cut through a fat tree is bounded by the thinnest tier it crosses: the node links, the leaf
        uplinks, and (across pods, 3 tiers) the spine uplinks; half of that crosses a bisection. Within a
        pod the spine ratio plays no part; across pods it does.
        """
        n, gbps = self.planes, self.port_gbps
        node_links = self.nodes * self.rails
        across = min(node_links, self.links_leaf_spine, self.links_spine_core if self.tiers == 3 else node_links)
        pod_nodes = min(self.nodes, (self.pod_leaves // self.rails) * self.leaf_down)
        pod_links = min(pod_nodes * self.rails, self.pod_leaves * self.leaf_up)
        return {"across_pods_tbps": round(across * gbps * n / 2 / 1000, 3),
                "within_pod_tbps": round(pod_links * gbps * n / 2 / 1000, 3),
                "pod_endpoints": pod_nodes * self.rails * n,
                "oversubscription_across_pods": round(self.oversubscription_across_pods, 4)}

    @property
    def oversubscription_across_pods(self) -> float:
        """What a node port's traffic to another pod shares: the leaf's ratio times the spines' (never below 1)."""
        return max(1.0, self.actual_oversubscription) * max(1.0, self.actual_core_oversubscription)

    @property
    def actual_core_oversubscription(self) -> float:
        """Down:up of a full pod's spines as built (1 with two tiers)."""
        if self.tiers != 3:
            return 1.0
        return self.spine_downlinks_of_pod(0) / self.spine_uplinks_of_pod(0)

    def core_ports_used(self) -> np.ndarray:
        if self.tiers < 3:
            return np.zeros(0, dtype=np.int64)
        used = np.zeros((self.pod_spines, self.core_group), dtype=np.int64)
        for p in range(self.pods):
            _, spines = self.pod_of_leaf(p)
            up = self.spine_uplinks_of_pod(p)
            chunk = self.core_ports_per_pod  # a partial pod fills its cores' ports as a full one will
            per_core = np.clip(up - np.arange(self.core_group) * chunk, 0, chunk)
            used[:spines] += per_core
        if self.core_share > 1:  # spine positions j, j+1, ... of one share land on the same cores
            shared = np.zeros((-(-self.pod_spines // self.core_share), self.core_group), dtype=np.int64)
            np.add.at(shared, np.arange(self.pod_spines) // self.core_share, used)
            used = shared
        return used.ravel()

    def ports(self) -> dict:
        """Ports per tier over every plane: total, used facing down and up, free."""
        k, n = self.radix, self.planes
        leaf_down = int(self.leaf_down_used().sum()) * n
        leaf_up = self.links_leaf_spine * n
        spine_used = int(self.spine_ports_used().sum()) * n
        core_used = int(self.core_ports_used().sum()) * n
        out = {
            "leaf": {"total": self.leaf_switches * k, "down_used": leaf_down, "up_used": leaf_up,
                     "used": leaf_down + leaf_up, "free": self.leaf_switches * k - leaf_down - leaf_up},
            "spine": {"total": self.spine_switches * k, "down_used": leaf_up, "up_used": self.links_spine_core * n,
                      "used": spine_used, "free": self.spine_switches * k - spine_used},
            "core": {"total": self.core_switches * k, "down_used": core_used, "up_used": 0,
                     "used": core_used, "free": self.core_switches * k - core_used},
        }
        return out

    def _cages(self, catalog: Catalog) -> tuple[media.Cage, media.Cage, media.Cage]:
        """(switch, node, reserved) cages: the switch's as the catalog has it, NIC cages flat-top OSFP."""
        switch = catalog.find(self.switch)
        group = next((g for g in switch.ports if g.role == "fabric"), None) if switch is not None else None
        if group is not None:  # as the switch runs them: split to the planes' speed
            group = replace(group, speed_gbps=self.port_gbps, ports_per_cage=self.switch_cage_ports)
        sw = media.cage_of(group, True) if group is not None else \
            media.Cage(self.port_gbps, self.switch_cage_ports, "", "OSFP", True)
        node = media.Cage(self.node_port_gbps or self.port_gbps, self.node_cage_ports, "flat", "OSFP")
        return sw, node, media.Cage(self.port_gbps, 1, "flat", "OSFP")

    def optics(self, catalog: Catalog) -> tuple[dict, dict, list[str]]:
        """Cables and transceivers by catalog id, all-optical as NVIDIA's RAs count them, and notes.

        One fibre per link, of the first class (multimode, then single-mode) in which the
        catalog has modules for both ends at their port speeds; the shortest-reach, cheapest
        module of that class per cage: a switch module per switch cage that carries a link,
        node modules per node cage, single-port modules on reserved (UFM) ports.
        """
        parts = media.parts_table(catalog)
        sw, node, res = self._cages(catalog)
        cables: dict[str, int] = {}
        xcvr: dict[str, int] = {}
        notes: list[str] = []

        def join(a: media.Cage, links: int, what: str) -> tuple[str | None, str | None]:
            """Count the fibre of ``links`` links between ``a`` and a switch; (switch module, ``a``'s module)."""
            speed = min(a.speed_gbps, sw.speed_gbps)
            cls = next((c for c in range(len(parts.classes))
                        if parts.options(a, c) and parts.options(sw, c) and parts.fibres(c, speed)), None)
            if cls is None:
                notes.append(f"no catalog parts join a {a.label()} to the {self.switch} {sw.label()}: the "
                             f"{links:,} {what} links are left out of the cable and transceiver counts")
                return None, None
            fibre = parts.fibres(cls, speed)[0].id
            cables[fibre] = cables.get(fibre, 0) + links
            return parts.options(sw, cls)[0].id, parts.options(a, cls)[0].id

        n = self.planes
        ups = (self.links_leaf_spine + self.links_spine_core) * n
        up_mod = join(sw, ups, "switch-to-switch")[0] if ups else None
        node_mod, node_part = join(node, self.nodes * self.rails * n, "node") if self.nodes else (None, None)
        res_mod, res_part = join(res, self.reserved_ports * n, "reserved-port") if self.reserved_ports \
            else (None, None)
        if node_part is not None:  # a node cage carries one port of each plane
            xcvr[node_part] = xcvr.get(node_part, 0) + self.nodes * -(-self.rails * n // self.node_cage_ports)
        if res_part is not None:
            xcvr[res_part] = xcvr.get(res_part, 0) + self.reserved_ports * n
        for part, cages in self._switch_cages(up_mod, node_mod, res_mod).items():
            xcvr[part] = xcvr.get(part, 0) + cages * n
        return cables, {k: v for k, v in sorted(xcvr.items()) if v}, notes

    def _switch_cages(self, up_mod: str | None, node_mod: str | None, res_mod: str | None) -> dict[str, int]:
        """Switch modules by id: one per switch cage that carries a link; a cage of down ports and one of up
        ports are counted apart only when they take different modules."""
        cpp = self.switch_cage_ports
        down = self.leaf_down_used()
        out: dict[str, int] = {}

        def add(part: str | None, n: int) -> None:
            if part is not None and n:
                out[part] = out.get(part, 0) + n

        spines = int((-(-self.spine_ports_used() // cpp)).sum()) + int((-(-self.core_ports_used() // cpp)).sum())
        if up_mod == node_mod and (up_mod == res_mod or not self.reserved_ports):
            add(up_mod, int((-(-(down + self.leaf_up) // cpp)).sum()) + spines)
            return out
        res_cages = -(-self.reserved_ports // cpp)
        add(node_mod, int((-(-down // cpp)).sum()) - res_cages)
        add(res_mod, res_cages)
        add(up_mod, self.leaf * -(-self.leaf_up // cpp) + spines)
        return out

    def to_json(self, catalog: Catalog | None = None, *, parts: bool = True) -> dict:
        """The sizing as a document, with the all-optical parts count from ``catalog`` (the default catalog
        when None) unless ``parts`` is False (a wired design counts its own)."""
        cables, xcvr, part_notes = self.optics(catalog or default_catalog()) if parts else ({}, {}, [])
        notes = []
        spare = self.endpoints - self.reserved_ports - self.reserved_unplaced - self.nodes * self.rails
        if spare:
            notes.append(f"{spare} of the {self.endpoints:,} endpoints make no whole node of {self.rails} rails "
                         "and are left without a cable")
        if self.reserved_unplaced:
            notes.append(f"{self.reserved_unplaced} appliance (UFM) ports find no free node slot: every leaf "
                         "port carries a node or an uplink, and they open no leaf block of their own")
        notes += part_notes
        if self.technology == "roce":
            notes.append(ROCE_NOTE)
        n = self.planes
        plane_links = {"node_leaf": self.links_node_leaf, "leaf_spine": self.links_leaf_spine,
                       "spine_core": self.links_spine_core}
        return {
            "switch": self.switch, "radix": self.radix, "port_gbps": self.port_gbps,
            "technology": self.technology, "planes": n,
            "endpoints": self.endpoints, "reserved_ports": self.reserved_ports, "nodes": self.nodes,
            "rails": self.rails, "su_nodes": self.su_nodes, "scalable_units": self.scalable_units,
            "tiers": self.tiers, "oversubscription": round(self.actual_oversubscription, 4),
            **self._core_json(),
            "leaf": self.leaf_switches, "spine": self.spine_switches, "core": self.core_switches,
            "switches": self.switches,
            "per_plane": {"leaf": self.leaf, "spine": self.spine, "core": self.core, "links": plane_links},
            "leaf_ports": {"down": self.leaf_down, "up": self.leaf_up},
            "pods": self.pods if self.tiers == 3 else 0,
            "links": {k: v * n for k, v in plane_links.items()},
            "ports": self.ports(),
            "max_endpoints": self.max_endpoints,
            "max_endpoints_by_tiers": {str(t): n for t, n in self.max_by_tiers.items()},
            "radix_max_endpoints_by_tiers": {str(t): n for t, n in self.radix_max_by_tiers.items()},
            **({"cables": cables, "cables_total": sum(cables.values()), "transceivers": xcvr,
                "assumption": "no floor plan: every link optical (multimode fibre where the catalog has it at the "
                              "port speed, else single-mode), as in NVIDIA's RA tables"} if parts else {}),
            "notes": notes,
        }


    def _core_json(self) -> dict:
        """The spines' own ratio and the bisection across pods and within one: given only when the spines are
        oversubscribed (a 1:1 spine layer's documents stay as they were; its ``bisection_tbps`` is the fabric's)."""
        if self.core_oversubscription == 1:
            return {}
        return {"core_oversubscription": round(self.actual_core_oversubscription, 4),
                "core_oversubscription_requested": self.core_oversubscription,
                "spine_ports": {"down": self.spine_down, "up": self.radix - self.spine_down} if self.tiers == 3
                else {"down": self.radix, "up": 0},
                "bisection": self.bisection()}


#: What a RoCE tree here is and is not: the NVIDIA RAs' rail-optimized leaves, not Meta's rack switch.


def spine_uplinks(down: int, core_oversubscription: float) -> int:
    """Uplinks of a spine with ``down`` leaf links at a down:up ratio; rounds toward less oversubscription."""
    if core_oversubscription == 1:
        return down
    return max(1, math.ceil(down / core_oversubscription - 1e-9))
