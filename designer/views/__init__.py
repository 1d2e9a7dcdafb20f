"""Typed views of an analysis: how the exporters, the window and the CLI's text read the engines' figures.

``analysis.power.cooling_equipment_kw``, ``analysis.fabric.tiers``, ``analysis.rack("su01-01").liquid_kw``:
each section of ``analyze --json`` has a frozen view class here whose attributes are its keys, so a
misspelt name fails where it is read and a figure an engine no longer writes fails where the view is
built (:class:`ViewError`, naming its path) instead of printing 0. ``analyze --json`` itself still
prints the engines' sections as they wrote them; the views only read them.
"""
from .base import Rows, ViewError, build, build_all, require, undeclared
from .bill import BomLine, BomSection, BomView, CostView
from .cooling import CduLoop, CoolingView, FloorView, HallCooling, RackCooling, RackFloor, RowAir
from .fabric import BandwidthView, FabricView, RoomLink
from .power import HallPower, PowerView, RackPower, RowPower
from .rack import RackIndex, RackView
from .storage import StorageView
from .summary import DeviceCounts, FindingView, Summary, SwitchCounts
from .training import TrainingView

#: The view of each section of ``analyze --json``.
SECTION_VIEWS = {"power": PowerView, "cooling": CoolingView, "floor": FloorView, "fabric": FabricView,
                 "bandwidth": BandwidthView, "training": TrainingView, "bom": BomView, "cost": CostView,
                 "devices": DeviceCounts, "storage": StorageView}

__all__ = ["SECTION_VIEWS", "BandwidthView", "BomLine", "BomSection", "BomView", "CduLoop", "CoolingView",
           "CostView", "DeviceCounts", "FabricView", "FindingView", "FloorView", "HallCooling", "HallPower",
           "PowerView", "RackCooling", "RackFloor", "RackIndex", "RackPower", "RackView", "RoomLink", "RowAir",
           "RowPower", "Rows", "StorageView", "Summary", "SwitchCounts", "TrainingView", "ViewError", "build",
           "build_all", "require", "undeclared"]
