"""A design read back from its NetBox export keeps its compute fabric's kind and planes."""
from __future__ import annotations

import json

from designer.cli import main
from exporters import cli as export_command


def test_a_netbox_round_trip_keeps_the_fabric_kind_and_planes(tmp_path, capsys):
    design = tmp_path / "x.podplan.json"
    assert main(["new", "superpod", "--system", "dgx-b300", "--fabric", "spectrum-x", "--sus", "1",
                 "-o", str(design)]) == 0
    assert main(["export", str(design), "--netbox", str(tmp_path / "nb")], commands=[export_command]) == 0
    back = tmp_path / "back.podplan.json"
    assert main(["new", "from-netbox", str(tmp_path / "nb"), "-o", str(back)]) == 0
    settings = json.loads(back.read_text())["settings"]
    # NetBox holds no settings: the SN5610 leaves named for planes a and b say what the fabric is
    assert (settings["fabric_technology"], settings["fabric_planes"]) == ("spectrum-x", 2)
    capsys.readouterr()
    assert main(["analyze", str(back), "--json"]) == 0
    fabric = json.loads(capsys.readouterr().out)["fabric"]
    assert (fabric["leaf"], fabric["spine"], fabric["placed"]["leaf"], fabric["wired_links"]["node_leaf"]) == \
        (16, 8, 16, 1024)


def test_an_infiniband_design_comes_back_without_the_settings(tmp_path, capsys):
    design = tmp_path / "ib.podplan.json"
    assert main(["new", "superpod", "--system", "dgx-b200", "--sus", "1", "-o", str(design)]) == 0
    assert main(["export", str(design), "--netbox", str(tmp_path / "nb")], commands=[export_command]) == 0
    back = tmp_path / "back.podplan.json"
    assert main(["new", "from-netbox", str(tmp_path / "nb"), "-o", str(back)]) == 0
    assert "fabric_technology" not in json.loads(back.read_text())["settings"]
