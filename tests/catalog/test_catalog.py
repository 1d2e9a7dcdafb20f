from __future__ import annotations

import json

import pytest

from catalog import CatalogError, UnknownDeviceError, load_catalog
from tests.conftest import edit_json

REQUIRED_IDS = [
    "dgx-a100", "dgx-b200", "dgx-h100", "dgx-h200", "gb200-nvl72", "gb200-compute-tray", "nvlink-switch-tray",
    "gb200-power-shelf", "qm9700", "qm9790", "q3400", "sn5600", "sn2201", "ufm-appliance",
    "pdu-415v-32a-3ph", "cdu-inrack", "cdu-inrow-2mw", "a100", "h100", "h200", "b200", "gb200",
    "osfp-800g-2xsr4", "osfp-800g-2xdr4", "osfp-400g-sr4", "dac-osfp-800g", "acc-osfp-800g", "fiber-mpo12-mmf",
]


def test_every_required_type_is_present(catalog):
    for device_id in REQUIRED_IDS:
        assert device_id in catalog, device_id


def test_racks_cover_the_required_sizes(catalog):
    racks = catalog.of_kind("rack")
    assert {r.rack_units for r in racks} >= {42, 48, 52}
    assert {r.width_mm for r in racks} >= {600.0, 800.0}
    assert all(1070 <= r.depth_mm <= 1200 for r in racks)


def test_dgx_b200_figures_match_the_user_guide(catalog):
    d = catalog.get("dgx-b200")
    assert (d.u_height, d.weight_kg, d.power_max_w) == (10, 142.4, 14300)
    assert d.psu.count == 6 and d.psu.rating_w == 3300 and d.psu.redundant == 1
    assert d.psu.scheme == "5+1"
    assert d.psu.usable_w == 16500
    assert d.gpu == "b200" and d.gpu_count == 8 and d.nvlink_domain == 8
    compute = d.ports_of("compute")[0]
    assert (compute.count, compute.speed_gbps, compute.cage, compute.cages) == (8, 400, "OSFP", 4)
    assert d.figure("power_max_w").source == "S1" and d.figure("power_max_w").evidence == "P"


def test_unconfirmed_figures_are_marked(catalog):
    d = catalog.get("dgx-b200")
    assert d.figure("power_typical_w").unconfirmed
    assert "power_typical_w" in d.unconfirmed_fields
    nvl = catalog.get("gb200-nvl72")
    assert nvl.figure("liquid_fraction").unconfirmed
    assert nvl.figure("psu.redundant").unconfirmed


def test_every_figure_has_a_known_source(catalog):
    for dev in catalog:
        assert dev.figures, dev.id
        for name, fig in dev.figures.items():
            assert fig.source in catalog.sources, (dev.id, name, fig.source)


def test_gb200_nvl72_is_a_rack_scale_system_of_its_parts(catalog):
    nvl = catalog.get("gb200-nvl72")
    assert nvl.kind == "rack_system" and nvl.fills_rack
    parts = {c.id: c.count for c in nvl.components}
    assert parts == {"gb200-compute-tray": 18, "nvlink-switch-tray": 9, "gb200-power-shelf": 8}
    assert nvl.gpu_count == 72 and nvl.nvlink_domain == 72
    shelf = catalog.get("gb200-power-shelf")
    assert shelf.psu.installed_w == 33000
    assert nvl.psu.installed_w == 264000


def test_switch_ports_and_cages(catalog):
    qm = catalog.get("qm9700")
    fabric = qm.ports_of("fabric")[0]
    assert (fabric.count, fabric.speed_gbps, fabric.cages) == (64, 400, 32)
    q3400 = catalog.get("q3400").ports_of("fabric")[0]
    assert (q3400.count, q3400.speed_gbps) == (144, 800)


def test_gpu_peaks(catalog):
    b200 = catalog.get("b200").gpu_spec
    assert (b200.bf16_tflops, b200.fp8_tflops, b200.fp4_tflops, b200.hbm_gb) == (2250, 4500, 9000, 180)
    assert catalog.get("h100").gpu_spec.fp4_tflops is None
    assert catalog.gpu_spec_of(catalog.get("dgx-h200")).hbm_gb == 141


def test_optics_and_cables(catalog):
    assert catalog.get("osfp-800g-2xsr4").links == 2
    assert catalog.get("osfp-400g-sr4").links == 1
    dac = catalog.get("dac-osfp-800g")
    assert dac.lengths_m == (0.5, 1.0, 1.5, 2.0) and dac.media == "dac"
    assert catalog.get("fiber-mpo12-mmf").reach_m == 50


def test_sellable_items_have_a_price_with_currency(catalog):
    for dev in catalog:
        if dev.kind in {"server", "rack_system", "switch", "rack", "transceiver", "cable"}:
            assert dev.price is not None and dev.price.currency == "USD" and dev.price.amount > 0, dev.id


def test_lookup_is_case_insensitive_and_suggests(catalog):
    assert catalog.get("DGX-B200").id == "dgx-b200"
    with pytest.raises(UnknownDeviceError) as err:
        catalog.get("dgx-b20")
    assert "dgx-b200" in str(err.value)


def test_user_folder_overrides_and_extends(tmp_path, catalog):
    user = tmp_path / "mine"
    user.mkdir()
    (user / "dgx-b200.json").write_text(json.dumps({
        "id": "dgx-b200", "kind": "server", "name": "DGX B200 (site-measured)", "manufacturer": "NVIDIA",
        "category": "compute", "source": "EST", "evidence": "U", "u_height": 10, "width_mm": 482.3,
        "depth_mm": 897.1, "weight_kg": 142.4, "power_max_w": 13000, "gpu": "b200", "gpu_count": 8,
        "psu": {"count": 6, "rating_w": 3300, "redundant": 1},
        "ports": [{"role": "compute", "protocol": "infiniband", "speed_gbps": 400, "count": 8}]}))
    (user / "sources.json").write_text(json.dumps({"SITE": {"title": "Site survey"}}))
    (user / "my-server.json").write_text(json.dumps({
        "id": "my-server", "kind": "appliance", "name": "Storage head", "manufacturer": "ACME",
        "category": "storage", "source": "SITE", "u_height": 2, "power_max_w": 800}))
    cat = load_catalog([user])
    assert cat.get("dgx-b200").power_max_w == 13000
    assert cat.get("dgx-b200").name == "DGX B200 (site-measured)"
    assert cat.get("my-server").figure("power_max_w").source == "SITE"
    assert len(cat) == len(catalog) + 1


def test_user_folder_from_environment(tmp_path, monkeypatch):
    user = tmp_path / "envcat"
    user.mkdir()
    (user / "x.json").write_text(json.dumps({"id": "x-box", "kind": "appliance", "name": "X", "manufacturer": "A",
                                             "category": "misc", "source": "EST", "u_height": 1,
                                             "power_max_w": 100}))
    monkeypatch.setenv("PODPLANNER_CATALOG", str(user))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "noconfig"))
    assert "x-box" in load_catalog()


BAD_ENTRIES = [
    (lambda d: d.update(power_max_w="lots"), "power_max_w", "must be a number"),
    (lambda d: d.update(power_max_w=-5), "power_max_w", "outside"),
    (lambda d: d.pop("u_height"), "u_height", "required"),
    (lambda d: d.update(kind="toaster"), "kind", "not one of"),
    (lambda d: d.update(id="DGX B200"), "id", "lowercase"),
    (lambda d: d.update(power_max_w={"value": 14300, "source": "NOWHERE"}), "power_max_w", "not a known source"),
    (lambda d: d.update(power_max_w={"value": 14300, "evidence": "maybe"}), "power_max_w", "evidence"),
    (lambda d: d.update(psu={"count": 2, "rating_w": 3300, "redundant": 2}), "psu.redundant", "leaves none"),
    (lambda d: d.update(gpu_count=8.5), "gpu_count", "whole number"),
    (lambda d: d.update(wattage=3), "wattage", "not a catalog field"),
    (lambda d: d.update(u_height=10.3), "u_height", "multiple of 0.5"),
    (lambda d: d.update(power_typical_w=20000), "power_typical_w", "above power_max_w"),
    (lambda d: d["ports"][0].update(protocol="pigeon"), "ports[0].protocol", "not one of"),
    (lambda d: d.update(price={"amount": 5, "currency": "dollars"}), "price.currency", "ISO 4217"),
    (lambda d: d.update(gpu="tpu-v5"), "gpu", "not a GPU in the catalog"),
    (lambda d: d.update(liquid_fraction=1.5), "liquid_fraction", "outside"),
]


@pytest.mark.parametrize(("breaks", "field", "reason"), BAD_ENTRIES)
def test_bad_catalog_entry_names_file_field_and_reason(catalog_copy, breaks, field, reason):
    path = catalog_copy / "systems" / "dgx-b200.json"
    edit_json(path, breaks)
    with pytest.raises(CatalogError) as err:
        load_catalog([], builtin=catalog_copy)
    msg = str(err.value)
    assert msg.startswith(str(path)), msg
    assert f": {field}:" in msg, msg
    assert reason in msg, msg


def test_broken_json_names_line_and_column(catalog_copy):
    path = catalog_copy / "network" / "qm9700.json"
    path.write_text('{"id": "qm9700",\n  "kind": }')
    with pytest.raises(CatalogError, match=r"qm9700.json: is not valid JSON: .* line 2, column"):
        load_catalog([], builtin=catalog_copy)


def test_duplicate_id_in_builtin_catalog_is_refused(catalog_copy):
    (catalog_copy / "network" / "copy.json").write_text((catalog_copy / "network" / "qm9700.json").read_text())
    with pytest.raises(CatalogError, match="already defined"):
        load_catalog([], builtin=catalog_copy)


def test_missing_component_is_refused(catalog_copy):
    (catalog_copy / "systems" / "nvlink-switch-tray.json").unlink()
    with pytest.raises(CatalogError, match=r"components\[1\]\.id: 'nvlink-switch-tray' is not in the catalog"):
        load_catalog([], builtin=catalog_copy)


def test_missing_user_folder_is_refused(tmp_path):
    with pytest.raises(CatalogError, match="user catalog folder does not exist"):
        load_catalog([tmp_path / "nope"])


def test_every_linkx_part_states_its_link_speed_top_and_connector(catalog):
    """The fabric chooses optics by these fields: a part without them would never be chosen."""
    parts = catalog.of_kind("transceiver", "cable")
    assert parts
    for d in parts:
        assert d.speed_gbps in (400, 800), d.id
        assert d.connector, d.id
        if d.kind == "transceiver" or d.media in ("dac", "acc"):
            assert d.top in ("flat", "finned"), d.id
    modules = catalog.of_kind("transceiver")
    fibres = {(d.media, d.connector) for d in catalog.of_kind("cable") if d.media in ("mmf", "smf")}
    for d in modules:  # every optical connector has a fibre to plug into it
        assert (d.media, d.connector) in fibres, d.id
    unconfirmed_tops = {d.id for d in modules if d.figure("top") and d.figure("top").unconfirmed}
    assert "osfp-800g-dr4" in unconfirmed_tops  # the single-port XDR part's flat top is assumed


def test_a_written_part_keeps_what_the_fabric_chooses_it_by(catalog):
    from catalog.loader import parse_entry
    from catalog.writer import entry_to_json

    for part_id in ("osfp-800g-dr4", "acc-osfp-splitter-1600g-2x800g", "fiber-lc-smf"):
        dev = catalog.get(part_id)
        again = parse_entry(entry_to_json(dev), part_id, catalog.sources)
        assert (again.speed_gbps, again.top, again.connector) == (dev.speed_gbps, dev.top, dev.connector)
    q3400 = catalog.get("q3400")
    assert parse_entry(entry_to_json(q3400), "q3400", catalog.sources).ports[0].top == q3400.ports[0].top
