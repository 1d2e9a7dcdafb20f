"""The generated 4-SU DGX B200 pod's racks take one role everywhere: the PDF plan's legend and the DXF layers."""
from __future__ import annotations

import ezdxf
import pytest

from designer.analysis import analyze
from designer.fileformat import load
from designer.rack_roles import rack_role
from exporters.dxf import ROLE_LAYERS, write_dxf
from exporters.plan_drawing import plan_drawing

from golden_outputs import GENERATED_DESIGN


@pytest.fixture(scope="module")
def pod(catalog):
    return analyze(load(GENERATED_DESIGN, catalog), catalog)


def test_network_racks_are_network_on_the_pdf_plan(pod, catalog):
    roles = {r.name: rack_role(r, catalog) for r in pod.project.racks}
    assert {role for name, role in roles.items() if "-NET-" in name} == {"network"}
    d = plan_drawing(pod, width=515, height=700)
    assert d.legend[:4] == ["Compute (64)", "Network (10)", "Storage (1)", "Management (2)"]


def test_network_racks_are_on_the_network_layer_of_the_dxf(pod, tmp_path):
    out = tmp_path / "pod.dxf"
    write_dxf(pod, out)
    layer = {e.get_attrib_text("NAME"): e.dxf.layer for e in ezdxf.readfile(out).modelspace().query("INSERT")
             if e.dxf.layer in ROLE_LAYERS.values()}
    assert {layer[f"SU{su:02d}-NET-{ab}"] for su in range(1, 5) for ab in "AB"} == {ROLE_LAYERS["network"]}
    assert layer["STORAGE-01"] == ROLE_LAYERS["storage"] and layer["MGMT-01"] == ROLE_LAYERS["management"]
