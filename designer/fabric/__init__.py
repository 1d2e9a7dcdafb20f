"""The fabric engine: rail-optimized fat-tree sizing, the wiring plan, bandwidth and collectives.

Pure functions of a project snapshot and the catalog (numpy, no Qt):

* :func:`size_fat_tree` — closed-form sizing that reproduces NVIDIA's SuperPOD tables;
* :func:`analyze_fabric` — the ``fabric`` section of ``analyze`` plus its findings;
* :func:`bandwidth_section` — the ``bandwidth`` section (per GPU, bisection, collectives);
* :func:`wiring_plan` / :func:`write_cabling_csv` — every cable, port to port, for the CSV export.
"""
from .bandwidth import bandwidth_figures, bandwidth_section
from .engine import analyze_fabric
from .sizing import FabricError, FatTree, size_fat_tree
from .wiring import CSV_COLUMNS, Link, WiringPlan, plan_wiring, wiring_plan, write_cabling_csv

__all__ = [
    "CSV_COLUMNS",
    "FabricError",
    "FatTree",
    "Link",
    "WiringPlan",
    "analyze_fabric",
    "bandwidth_figures",
    "bandwidth_section",
    "plan_wiring",
    "size_fat_tree",
    "wiring_plan",
    "write_cabling_csv",
]
