"""Where halls stand on a site, and how far a cable runs between two rooms."""
from __future__ import annotations

import numpy as np
import pytest

from designer.fabric.geometry import SLACK_FRACTION, run_lengths_m
from designer.model import Hall, Project, Rack
from designer.site import HALL_GAP_MM, RackSites, cable_entry, hall_origins


def _hall(hid: str, w: float, d: float, origin=None) -> Hall:
    return Hall(hid, hid.upper(), ((0.0, 0.0), (w, 0.0), (w, d), (0.0, d)), site_origin=origin)


def _rack(rid: str, hall: str, x: float, y: float) -> Rack:
    return Rack(rid, rid, hall, "rack-48u-600x1200", x, y)


def test_halls_without_an_origin_stand_side_by_side_as_the_plan_draws_them():
    halls = (_hall("a", 20_000, 10_000), _hall("b", 30_000, 8_000), _hall("c", 5_000, 5_000, (0.0, 50_000.0)),
             _hall("d", 5_000, 5_000))
    # d, stating none, stands past every hall before it, never on c, which the site placed
    assert hall_origins(halls) == [(0.0, 0.0), (20_000 + HALL_GAP_MM, 0.0), (0.0, 50_000.0),
                                   (50_000 + 2 * HALL_GAP_MM, 0.0)]
    assert cable_entry(halls[1]) == (15_000.0, 0.0)


def test_a_run_between_rooms_goes_by_their_entries():
    # hall a at the site's origin, hall b 100 m to the right and 40 m up
    project = Project(halls=(_hall("a", 20_000, 10_000), _hall("b", 20_000, 10_000, (100_000.0, 40_000.0))),
                      racks=(_rack("r1", "a", 2_000, 7_000), _rack("r2", "a", 18_000, 1_000),
                             _rack("r3", "b", 5_000, 9_000)))
    sites = RackSites.of(project)
    ra, rb = np.array([0, 0, 0]), np.array([1, 2, 0])
    got = sites.horizontal_mm(ra, rb)
    # in one room: |dx| + |dy|
    assert got[0] == pytest.approx(16_000 + 6_000)
    # r1 to a's entry (10 m, 0): 8 + 7 m; a's entry (10, 0) to b's (110, 40) on the site: 100 + 40 m;
    # b's entry (10 m, 0) to r3: 5 + 9 m
    assert got[1] == pytest.approx(15_000 + 140_000 + 14_000)
    assert got[2] == 0
    tops = np.full(3, 2_300.0)
    metres = run_lengths_m(sites, tops, np.array([0]), np.array([1_000.0]), np.array([2]), np.array([1_000.0]))
    run = 169_000 + 2 * (2_300 - 1_000 + 300)
    assert metres[0] == pytest.approx(run * (1 + SLACK_FRACTION) / 1000)


def test_one_room_is_plain_manhattan():
    project = Project(halls=(_hall("a", 20_000, 10_000),), racks=(_rack("r1", "a", 0, 0), _rack("r2", "a", 3, 4)))
    sites = RackSites.of(project)
    assert sites.one_room and sites.horizontal_mm(np.array([0]), np.array([1]))[0] == 7
