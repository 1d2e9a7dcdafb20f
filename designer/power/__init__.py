"""The power engine: draw per device, rack, row and hall; rack feeds and PDUs; the chain above the racks.

Pure functions of a project snapshot and the catalog (numpy, no Qt):

* :mod:`.engine` — :func:`analyze_power`, the engine of ``analyze``: draw, supplies and their
  redundancy, rack limits, hall headroom, PUE;
* :mod:`.feeds` — :func:`rack_feeds`: what each of a rack's two feeds and its inlets carry, per phase,
  in normal operation, with a feed lost and at the transient peak;
* :mod:`.chain` — :func:`power_chain`: each row's busway or panel per feed, each hall's UPS and generators.
"""
from .chain import busiest_runs, power_chain
from .engine import HEADROOM_WARNING, PowerResult, analyze_power, pdu_capacity_kw, rack_limits_kw
from .feeds import SQRT3, RackFeeds, rack_feeds

__all__ = [
    "HEADROOM_WARNING",
    "SQRT3",
    "PowerResult",
    "RackFeeds",
    "analyze_power",
    "busiest_runs",
    "pdu_capacity_kw",
    "power_chain",
    "rack_feeds",
    "rack_limits_kw",
]
