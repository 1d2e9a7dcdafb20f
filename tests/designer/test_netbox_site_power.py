"""``new from-netbox --url``: a rack PodPlanner did not write takes its power limit from its NetBox power feeds."""
from __future__ import annotations

import csv

from designer.netbox_site import feed_limits_kw, site_folder
from designer.settings import Settings


def feed(rack, kind, watts):
    return {"rack": {"id": rack}, "type": {"value": kind}, "available_power": watts}


def test_a_racks_limit_is_the_weaker_side_of_its_feeds():
    feeds = [feed(1, "primary", 17734), feed(1, "primary", 17734), feed(1, "redundant", 17734),
             feed(2, "primary", 22170), feed(3, "redundant", 0), {"rack": None, "available_power": 5000},
             feed(4, "primary", 20000), feed(4, "primary", 20000),
             {**feed(5, "primary", 20000), "status": {"value": "offline"}}]
    # rack 1: two feeds on A, one on B -> B alone carries 17.7 kVA; rack 2: one feed; rack 4: two feeds nobody
    # marked A and B (NetBox's default type is primary): a pair, half of them; an offline feed counts for nothing
    assert feed_limits_kw(feeds, power_factor=1.0) == {1: 17.734, 2: 22.17, 4: 20.0}
    # volt-amperes to real power at the design's power factor
    assert feed_limits_kw([feed(2, "primary", 22170)], power_factor=0.95) == {2: 21.061}  # 21.0615 rounded to a watt


class FakeNetBox:
    """Answers site_folder's reads from tables of objects."""

    base = "http://nb.example"

    def __init__(self, tables):
        self.tables = tables

    def all(self, endpoint, **filters):
        return list(self.tables.get(endpoint, []))


def test_site_folder_writes_the_feed_limit_only_for_racks_podplanner_did_not_write(tmp_path):
    site = {"id": 1, "name": "Existing hall", "slug": "existing", "status": {"value": "active"}}
    location = {"id": 5, "name": "Hall A", "slug": "hall-a", "status": {"value": "active"}, "custom_fields": {}}
    theirs = {"id": 10, "name": "A01", "location": {"id": 5}, "status": {"value": "active"}, "custom_fields": {}}
    ours = {"id": 11, "name": "A02", "location": {"id": 5}, "status": {"value": "active"},
            "custom_fields": {"podplanner_id": "r2", "podplanner_power_limit_kw": None}}
    api = FakeNetBox({"dcim/sites": [site], "dcim/locations": [location], "dcim/racks": [theirs, ours],
                      "dcim/power-feeds": [feed(10, "primary", 22170), feed(10, "redundant", 22170),
                                           feed(11, "primary", 22170)]})
    site_folder(api, "existing", tmp_path)
    with open(tmp_path / "06-racks.csv", encoding="utf-8", newline="") as fh:
        limits = {r["name"]: r["cf_podplanner_power_limit_kw"] for r in csv.DictReader(fh)}
    assert Settings().power_factor == 0.95
    assert limits == {"A01": "21.061", "A02": ""}  # 22,170 VA x 0.95
