"""Bandwidth figures: per-GPU scale-out and scale-up, bisection, and collective estimates.

Why per GPU: training plans reason per GPU (its NIC rail, its NVLink ports), and
NVIDIA quotes NVLink per GPU as both directions added (1.8 TB/s for Blackwell),
while collectives are bounded by one direction, so both are given.
Bisection of a non-blocking fat tree is half the endpoints times the port speed
(dcim.md §3.4); an oversubscribed leaf divides what leaves a leaf by its ratio.

Given the fabric's technology (designer/fabric/technology.py), the network side of every
collective runs at what that technology achieves of the line rate (link efficiency, and for
plain RoCE the ECMP load balance once traffic leaves a leaf) with its switches' extra latency on
each network step; ``technology`` says which figures and where they come from. Without one
(plain numbers, no fabric), collectives stay at peak link rates.
"""
from __future__ import annotations

from catalog import Catalog

from ..engines import Context, EngineResult
from . import collectives
from .geometry import Inventory
from .sizing import FatTree
from .technology import path_hops, technology as technology_named

DEFAULT_MESSAGE_BYTES = 1 << 30  # 1 GiB, a typical gradient bucket scale for large models


def bandwidth_figures(*, gpus: int, gpus_per_node: float, rails: int, port_gbps: float, nvlink_gbs: float,
                      domain: int, oversubscription: float = 1.0, endpoints: int | None = None,
                      leaf_uplinks: int | None = None, leaf_down: int | None = None,
                      message_bytes: float = DEFAULT_MESSAGE_BYTES, technology: str | None = None,
                      tiers: int = 2, planes: int = 1) -> dict:
    """All bandwidth figures from plain numbers (Gb/s for ports, GB/s both directions for NVLink).

    ``technology`` (infiniband, spectrum-x, roce; None: peak link rates) sets the network's achievable
    share of the line rate and its latency per step; ``tiers`` and ``planes`` describe the fabric."""
    tech = technology_named(technology) if technology is not None else None
    scale_out_gbps = rails * port_gbps / gpus_per_node if gpus_per_node else 0.0
    scale_out_gbs = scale_out_gbps / 8
    nvlink_one_way = nvlink_gbs / 2
    ports = endpoints if endpoints is not None else int(round(gpus * rails / gpus_per_node)) if gpus_per_node else 0
    up = leaf_uplinks if leaf_uplinks is not None else ports / oversubscription
    bisection_nb = ports * port_gbps / 2 / 1000
    bisection = min(ports, up) * port_gbps / 2 / 1000
    out = {
        "gpus": gpus,
        "nvlink_domain_gpus": domain,
        "per_gpu": {
            "scale_out_gbps": round(scale_out_gbps, 3), "scale_out_gbs": round(scale_out_gbs, 3),
            "scale_out_gbs_beyond_leaf": round(scale_out_gbs / oversubscription, 3),
            "nvlink_gbs_bidirectional": nvlink_gbs, "nvlink_gbs_one_way": nvlink_one_way,
        },
        "nvlink_domain_tbs_bidirectional": round(domain * nvlink_gbs / 1000, 3),
        "bisection_tbps": round(bisection, 3),
        "bisection_tbps_non_blocking": round(bisection_nb, 3),
        "oversubscription": oversubscription,
        "message_bytes": int(message_bytes),
    }
    nodes = gpus / gpus_per_node if gpus_per_node else 0
    beyond_leaf = leaf_down is not None and nodes > leaf_down
    if tech is not None:
        inside, outside = tech.efficiency(False, tiers), tech.efficiency(True, tiers)
        out["per_gpu"]["scale_out_effective_gbs"] = round(scale_out_gbs * inside, 3)
        out["per_gpu"]["scale_out_effective_gbs_beyond_leaf"] = round(scale_out_gbs * outside / oversubscription, 3)
        out["technology"] = tech.to_json(tiers, planes)
    if gpus < 1:
        out["collectives"] = {}
        return out
    net = scale_out_gbs * 1e9 / (oversubscription if beyond_leaf else 1.0)
    alpha_network = collectives.ALPHA_NETWORK_S
    if tech is not None:
        net *= tech.efficiency(beyond_leaf, tiers)
        alpha_network += tech.extra_hop_latency_us(path_hops(tiers) if beyond_leaf else 1) * 1e-6
    groups = {"all_gpus": gpus}
    if domain and gpus > domain:
        groups["one_nvlink_domain"] = domain
    if nvlink_one_way <= 0 or net <= 0 and any(n > (domain or 1) for n in groups.values()):
        # a node with no GPU figure (a catalog entry that names none) or no NIC: every estimate would divide
        # by a bandwidth of zero
        out["collectives"] = {}
        out["collectives_not_estimated"] = ("the node has no GPU-to-GPU bandwidth in the catalog" if nvlink_one_way <= 0
                                            else "the node has no network port for the compute fabric")
        return out
    out["collectives"] = {
        name: {"gpus": n, **collectives.estimates(message_bytes, n, domain or 1, nvlink_one_way * 1e9,
                                                  net if n > domain else scale_out_gbs * 1e9,
                                                  alpha_network=alpha_network)}
        for name, n in groups.items()
    }
    out["collective_assumptions"] = {
        "alpha_nvlink_us": collectives.ALPHA_NVLINK_S * 1e6, "alpha_network_us": round(alpha_network * 1e6, 4),
        "efficiency": ("peak link rates; real NCCL runs reach about 80-90 % of them" if tech is None else
                       f"NVLink at its peak rate; the network at {tech.efficiency(beyond_leaf, tiers):.1%} of "
                       f"line rate ({tech.label}: see technology)"),
    }
    return out


def _node_figures(inv: Inventory, catalog: Catalog) -> tuple[float, int]:
    """(NVLink GB/s per GPU both ways, NVLink domain size) of the design's node type."""
    if not inv.node_type:
        return 0.0, 0
    system = catalog.get(inv.node_type)
    spec = catalog.gpu_spec_of(system)
    return (spec.nvlink_gbps if spec else 0.0), (system.nvlink_domain or system.gpu_count)


def bandwidth_section(inv: Inventory, catalog: Catalog, tree: FatTree | None,
                      message_bytes: float = DEFAULT_MESSAGE_BYTES) -> dict:
    """The ``bandwidth`` section: figures for the design's nodes on the fabric ``tree``."""
    nvlink, domain = _node_figures(inv, catalog)
    gpus = int(round(len(inv.nodes) * inv.gpus_per_node))
    if tree is None:
        return bandwidth_figures(gpus=gpus, gpus_per_node=inv.gpus_per_node or 1, rails=inv.rails, port_gbps=0.0,
                                 nvlink_gbs=nvlink, domain=domain, message_bytes=message_bytes)
    node_port = catalog.get(inv.node_type).ports_of("compute")[0].speed_gbps if inv.node_type else tree.port_gbps
    # every plane carries its share of each node port: a GPU's 800G as 2 x 400G over two planes
    port = min(node_port / tree.planes, tree.port_gbps)
    return bandwidth_figures(gpus=gpus, gpus_per_node=inv.gpus_per_node, rails=tree.rails * tree.planes,
                             port_gbps=port, nvlink_gbs=nvlink, domain=domain,
                             oversubscription=round(tree.actual_oversubscription, 4),
                             endpoints=tree.nodes * tree.rails * tree.planes,
                             leaf_uplinks=tree.links_leaf_spine * tree.planes,
                             leaf_down=tree.leaf_down, message_bytes=message_bytes,
                             technology=tree.technology, tiers=tree.tiers, planes=tree.planes)


def analyze_bandwidth(ctx: Context) -> EngineResult:
    """Bandwidth on the tree the fabric-sizing engine settled on; nothing to stand on when it found none."""
    fabric = ctx["fabric_sizing"]
    if fabric.error is not None:
        # The fabric finding already says why; repeating it here would count one problem twice.
        return EngineResult(section={"status": "error", "error": fabric.error})
    return EngineResult(section=across_pods(bandwidth_section(fabric.inventory, ctx.catalog, fabric.tree), fabric.tree))


def across_pods(out: dict, tree: FatTree | None) -> dict:
    """``out`` with the figures above the pod where the spines are oversubscribed (a three-tier tree built
    with a core oversubscription, :meth:`FatTree.bisection`); as it was otherwise, where ``bisection_tbps``
    already holds across pods."""
    if tree is None or tree.tiers != 3 or tree.core_oversubscription == 1:
        return out
    b = tree.bisection()
    # the headline bisection is the fabric's thinnest cut: above the pod when the spines are oversubscribed
    out["bisection_tbps"] = min(out["bisection_tbps"], b["across_pods_tbps"])
    out["bisection_tbps_across_pods"] = b["across_pods_tbps"]
    out["bisection_tbps_within_pod"] = b["within_pod_tbps"]
    out["oversubscription_across_pods"] = b["oversubscription_across_pods"]
    per_gpu = out["per_gpu"]
    per_gpu["scale_out_gbs_beyond_pod"] = round(per_gpu["scale_out_gbs"] / b["oversubscription_across_pods"], 3)
    return out
