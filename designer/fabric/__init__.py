"""The fabric engine: rail-optimized fat-tree sizing, the wiring plan, bandwidth and collectives.

Pure functions of a project snapshot and the catalog (numpy, no Qt):

* :func:`size_fat_tree` — closed-form sizing that reproduces NVIDIA's SuperPOD tables;
* :func:`size_fabric` — the fabric-sizing engine: the design's endpoints and the one tree they need;
* :func:`analyze_fabric` — the fabric engine: that tree's wiring plan, cables, optics and findings;
* :func:`analyze_bandwidth` — the bandwidth engine (per GPU, bisection, collectives) on that tree;
* :func:`plan_wiring` — every cable, port to port, that the cabling export writes.
"""
from .bandwidth import analyze_bandwidth, bandwidth_figures, bandwidth_section
from .engine import FabricResult, SizingResult, analyze_fabric, size_fabric, size_for_design
from .sizing import FabricError, FatTree, size_fat_tree
from .wiring import LINK_COLUMNS, Link, WiringPlan, plan_wiring

__all__ = [
    "LINK_COLUMNS",
    "FabricError",
    "FabricResult",
    "FatTree",
    "SizingResult",
    "Link",
    "WiringPlan",
    "analyze_bandwidth",
    "analyze_fabric",
    "bandwidth_figures",
    "bandwidth_section",
    "plan_wiring",
    "size_fabric",
    "size_fat_tree",
    "size_for_design",
]
