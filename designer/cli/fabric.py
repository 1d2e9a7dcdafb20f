"""``podplanner fabric``: size a compute fabric from the command line, without a design file.

``designer/cli/main.py`` wires it in with ``add_parser(subparsers)`` and
``run(args, catalog)``; every bad value raises :class:`FabricError` (a ValueError)
with one line that names the flag.
"""
from __future__ import annotations

import math

from catalog import Catalog, UnknownDeviceError

from ..fabric.sizing import FabricError, size_fat_tree
from .json_output import print_json


def add_parser(subparsers):
    p = subparsers.add_parser("fabric", help="size a rail-optimized fat tree (leaf/spine/core, cables, optics)")
    p.add_argument("--endpoints", type=int, required=True, metavar="N",
                   help="fabric-facing ports to connect (node NIC ports plus reserved ports)")
    p.add_argument("--switch", default="qm9700", metavar="ID", help="switch catalog id (default: qm9700)")
    p.add_argument("--rails", type=int, default=8, metavar="R", help="fabric ports per node (default: 8)")
    p.add_argument("--su-nodes", type=int, default=32, metavar="S", help="nodes per scalable unit (default: 32)")
    p.add_argument("--tiers", default="auto", choices=("auto", "2", "3"), help="switch tiers (default: auto)")
    p.add_argument("--oversubscription", type=float, default=1.0, metavar="X",
                   help="down:up ratio at the leaf, 1 = non-blocking (default: 1)")
    p.add_argument("--core-oversubscription", type=float, default=1.0, metavar="X",
                   help="down:up ratio at the spines of a three-tier tree, above the pod (Meta's RoCE "
                        "clusters: 7); fewer spine uplinks and cores (default: 1)")
    p.add_argument("--reserved-ports", type=int, default=0, metavar="P",
                   help="ports for management appliances such as UFM; they take node slots (default: 0)")
    p.add_argument("--node-port-gbps", type=float, default=0.0, metavar="G",
                   help="node port speed in Gb/s, which picks the node-side optics (default: the switch's)")
    p.add_argument("--node-cage-ports", type=int, default=0, metavar="C",
                   help="node ports per cage: 2 for DGX H100/B200 twin-port OSFP, 1 for DGX B300 "
                        "(default: 2 at 400 Gb/s, else 1)")
    p.add_argument("--planes", default="1", metavar="N",
                   help="independent planes, 1 or 2: 2 splits each node port in two halves, one per plane, as "
                        "Spectrum-X twin-plane fabrics do (needs a switch whose ports split, such as sn5610; "
                        "default: 1)")
    p.add_argument("--json", action="store_true", help="print the sizing as one JSON document")
    return p


def run(args, catalog: Catalog) -> int:
    try:
        switch = catalog.get(args.switch)
    except UnknownDeviceError as exc:
        raise FabricError(f"podplanner fabric: --switch: {exc}") from None
    speed = args.node_port_gbps or next((g.speed_gbps for g in switch.ports if g.role == "fabric"), 400.0)
    if not 0 < speed <= 1e5:
        raise FabricError(f"podplanner fabric: --node-port-gbps must be a speed in Gb/s, got {args.node_port_gbps!r}")
    cage = args.node_cage_ports or (2 if speed == 400 else 1)
    if not 1 <= cage <= 16:
        raise FabricError(f"podplanner fabric: --node-cage-ports must be 1 to 16, got {args.node_cage_ports!r}")
    core = args.core_oversubscription
    if not (math.isfinite(core) and 1 <= core <= 64):
        raise FabricError(f"podplanner fabric: --core-oversubscription must be a down:up ratio from 1 to 64 "
                          f"(1 = as many spine uplinks as downlinks), got {core:g}")
    if str(args.planes).strip() not in ("1", "2"):
        raise FabricError(f"podplanner fabric: --planes: must be 1 or 2, got {args.planes!r}")
    planes = int(str(args.planes).strip())
    group = next((g for g in switch.ports if g.role == "fabric"), None)
    if planes == 2 and group is not None and group.breakout < 2:
        raise FabricError(f"podplanner fabric: --planes 2: the {switch.id}'s {group.speed_gbps:g}G ports do not "
                          f"split, so a node port cannot be shared by two planes; use an Ethernet switch whose "
                          f"ports split (sn5610, sn5600)")
    try:
        tree = size_fat_tree(args.endpoints, switch, rails=args.rails, su_nodes=args.su_nodes, tiers=args.tiers,
                             oversubscription=args.oversubscription, reserved_ports=args.reserved_ports,
                             node_cage_ports=cage, node_port_gbps=speed, planes=planes,
                             core_oversubscription=core)
    except FabricError as exc:
        raise FabricError(f"podplanner fabric: {exc}") from None
    doc = tree.to_json(catalog)
    if args.json:
        print_json(doc)
        return 0
    print(render(doc))
    return 0


def render(doc: dict) -> str:
    """A readable table of a sizing document."""
    planes = doc.get("planes", 1)
    lines = [f"{doc['endpoints']:,} endpoints on {doc['switch']} ({doc['radix']} x {doc['port_gbps']:g} Gb/s): "
             f"{doc['nodes']:,} nodes x {doc['rails']} rails, {doc['reserved_ports']} reserved ports, "
             f"{doc['tiers']} tiers, {doc['oversubscription']:g}:1"
             + (f"; {planes} planes, each node port split over them (counts below are all planes; one plane: "
                f"{doc['per_plane']['leaf']:,} leaf, {doc['per_plane']['spine']:,} spine, "
                f"{doc['per_plane']['core']:,} core)" if planes > 1 else ""),
             "", f"{'tier':8}{'switches':>10}{'ports':>10}{'used':>10}{'free':>10}{'links up':>12}"]
    up = {"leaf": doc["links"]["leaf_spine"], "spine": doc["links"]["spine_core"], "core": 0}
    for tier in ("leaf", "spine", "core"):
        p = doc["ports"][tier]
        lines.append(f"{tier:8}{doc[tier]:>10,}{p['total']:>10,}{p['used']:>10,}{p['free']:>10,}{up[tier]:>12,}")
    lines.append(f"{'node':8}{'':>10}{'':>10}{'':>10}{'':>10}{doc['links']['node_leaf']:>12,}")
    lines += ["", "largest fabric: " + ", ".join(f"{t} tiers {n:,}" for t, n in doc["max_endpoints_by_tiers"].items())
              + " endpoints (this switch, non-blocking: "
              + ", ".join(f"{n:,}" for n in doc["radix_max_endpoints_by_tiers"].values()) + ")", "", "cables:"]
    lines += [f"  {n:>10,} x {cid}" for cid, n in doc["cables"].items()]
    lines.append("transceivers:")
    lines += [f"  {n:>10,} x {cid}" for cid, n in doc["transceivers"].items()]
    if "bisection" in doc:  # spines oversubscribed above the pod
        b = doc["bisection"]
        lines.append(f"above the pod: spines {doc['core_oversubscription']:g}:1 ({doc['spine_ports']['down']} "
                     f"ports down, {doc['spine_ports']['up']} up); bisection {b['across_pods_tbps']:,g} Tb/s across "
                     f"pods, {b['within_pod_tbps']:,g} Tb/s within a pod of {b['pod_endpoints']:,} endpoints")
    lines += [f"note: {n}" for n in doc.get("notes", [])]
    return "\n".join(lines)
