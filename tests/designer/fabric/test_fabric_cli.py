"""`podplanner fabric` as designer/cli/main.py wires it: add_parser + run."""
from __future__ import annotations

import argparse
import json

import pytest

from designer.cli import fabric as cli
from designer.fabric import FabricError


def parse(*argv):
    p = argparse.ArgumentParser(prog="podplanner")
    sub = p.add_subparsers(dest="command")
    cli.add_parser(sub)
    return p.parse_args(["fabric", *argv])


def test_json_keys_and_table_4_row(catalog, capsys):
    assert cli.run(parse("--endpoints", "1024", "--reserved-ports", "4", "--json"), catalog) == 0
    doc = json.loads(capsys.readouterr().out)
    for key in ("endpoints", "nodes", "tiers", "leaf", "spine", "core", "links", "max_endpoints", "cables",
                "transceivers", "ports", "max_endpoints_by_tiers"):
        assert key in doc
    assert (doc["nodes"], doc["leaf"], doc["spine"], doc["core"]) == (127, 32, 16, 0)
    assert doc["links"] == {"node_leaf": 1020, "leaf_spine": 1024, "spine_core": 0}
    assert doc["max_endpoints"] == 2048


def test_flags_and_text_table(catalog, capsys):
    args = parse("--endpoints", "10369", "--switch", "Q3400", "--rails", "8", "--su-nodes", "72", "--tiers", "auto",
                 "--oversubscription", "1")
    assert cli.run(args, catalog) == 0
    out = capsys.readouterr().out
    assert "3 tiers" in out and "leaf" in out and "fiber-mpo12-smf" in out and "osfp-1600g-2xdr4" in out


@pytest.mark.parametrize("argv, text", [
    (("--endpoints", "256", "--rails", "0"), "rails"),
    (("--endpoints", "70000"), "more than 3 tiers"),
    (("--endpoints", "256", "--switch", "qm9701"), "unknown device id 'qm9701'; did you mean"),
    (("--endpoints", "4096", "--tiers", "2"), "need 3 tiers"),
    (("--endpoints", "256", "--oversubscription", "0.5"), "oversubscription"),
    (("--endpoints", "256", "--node-port-gbps", "-400"), "--node-port-gbps"),
    (("--endpoints", "256", "--node-cage-ports", "17"), "--node-cage-ports"),
])
def test_bad_requests_raise_one_line_fabric_errors(catalog, argv, text):
    with pytest.raises(FabricError, match=text) as info:
        cli.run(parse(*argv), catalog)
    assert "\n" not in str(info.value) and str(info.value).startswith("podplanner fabric: ")


def test_node_ports_pick_the_node_side_optics(catalog, capsys):
    # the QM9700 default: DGX B200-style 400G twin-port flat cages
    assert cli.run(parse("--endpoints", "256", "--json"), catalog) == 0
    assert "osfp-800g-2xsr4-flat" in json.loads(capsys.readouterr().out)["transceivers"]
    # 400G twin-port nodes on XDR switches: no part joins them, and the sizing says so
    assert cli.run(parse("--endpoints", "256", "--switch", "q3400", "--node-port-gbps", "400", "--json"),
                   catalog) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "osfp-800g-2xsr4-flat" not in doc["transceivers"] and "osfp-1600g-2xdr4" in doc["transceivers"]
    assert any("no catalog parts join a 400G twin-port OSFP cage, flat top" in n for n in doc["notes"])
