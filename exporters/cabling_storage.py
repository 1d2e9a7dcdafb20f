"""The storage fabric's rows of the cabling plan: its links (:func:`designer.storage.links.storage_links`) in the
columns of the compute fabric's rows, written after them with ``network`` "storage".

The same conventions as the compute rows: lengths are the orderable ones the storage fabric's bill counts, a
splitter fibre's two links share one cable (the first owns it), one transceiver per cage, a label names the
rack and U of its near end and then its far end, and every text a spreadsheet could run as a formula gets a
quote in front in the CSV. Per-device texts are made once per device and picked per link by index.
"""
from __future__ import annotations

import numpy as np

from designer.analysis import Analysis
from designer.quote.lines import cable_part_number
from designer.storage.links import LINK_TIERS, StorageLinks, storage_links

from .cell_text import csv_texts, needs_escape

NETWORK = "storage"


def storage_cabling(analysis: Analysis) -> StorageLinks:
    """The design's storage links, made when an export asks for them."""
    return storage_links(analysis.project, analysis.catalog)[1]


def _u_text(u) -> str:
    return "" if u is None else f"{u:g}"


def _port_text(ports: np.ndarray) -> np.ndarray:
    named = {p: f" {p}" if p[:1].isalpha() else f" P{p}" for p in set(ports.tolist())}
    return np.asarray([named[p] for p in ports.tolist()], dtype=object)


def _device_tables(analysis: Analysis, links: StorageLinks, tray_units) -> tuple[list, list, list, list, list]:
    """Per device of the link list: rack id, rack name, lowest U (a compute tray's own), name, label."""
    project, catalog = analysis.project, analysis.catalog
    racks = project.racks
    rack_ids, rack_names, us, names, labels = [], [], [], [], []
    for i, (ri, d, tray) in enumerate(links.devices):
        rack = racks[ri]
        dtype = catalog.find(d.type)
        name = d.name or (dtype.name if dtype else d.id)
        u = d.u
        if tray and dtype is not None:
            trays = tray_units(dtype, d, catalog.get(rack.type).rack_units, catalog)
            u = trays[tray - 1] if tray <= len(trays) else d.u
            name = f"{name} compute tray {tray}"
        rack_ids.append(rack.id)
        rack_names.append(rack.name or rack.id)
        us.append(u)
        names.append(name)
        labels.append(links.label(i))
    return rack_ids, rack_names, us, names, labels


def storage_columns(analysis: Analysis, links: StorageLinks, *, for_csv: bool, tray_units, separator: str) -> dict:
    """The rows' text and numbers by column, what counts cables and modules, and whether a text needs quoting.

    ``tray_units``: the lowest U of each compute tray, as the compute rows place them (``cabling._tray_units``);
    ``separator``: between a label's near end and far end.
    """
    catalog = analysis.catalog
    a, b = links.a_dev, links.b_dev
    rack_ids, rack_names, dev_u, dev_name, dev_label = _device_tables(analysis, links, tray_units)
    dev_u_text = [_u_text(u) for u in dev_u]
    dev_end = [f"{rn} U{ut}" if ut else f"{rn} {nm}" for rn, ut, nm in zip(rack_names, dev_u_text, dev_name)]
    # Cables by (id, length) and modules by id: a handful of each, made once and picked per link by index.
    cable_ids, cable_idx = np.unique(links.cable.astype(str), return_inverse=True)
    lens, len_idx = np.unique(links.length_m, return_inverse=True)
    combos, combo_idx = np.unique(cable_idx * len(lens) + len_idx, return_inverse=True)
    parts = [cable_part_number(catalog.get(str(cable_ids[c // len(lens)])), float(lens[c % len(lens)]))
             for c in combos.tolist()]
    pn, ordering = [p for p, _ in parts], [o for _, o in parts]
    modules, module_idx = np.unique(np.concatenate([links.a_transceiver, links.b_transceiver]).astype(str),
                                    return_inverse=True)
    mod_text = modules.tolist()
    mod_pn = [catalog.get(m).part_number if m else "" for m in mod_text]
    a_mod_idx, b_mod_idx = module_idx[:len(links)], module_idx[len(links):]
    quoting = any(("," in v or '"' in v or "\n" in v or "\r" in v)
                  for t in (rack_ids, rack_names, dev_name, dev_label, dev_end, pn, ordering, mod_pn) for v in t)
    # a switch's port reads "P3/1" as on the compute rows; a node's storage port by its name ("S1")
    a_end = np.asarray(dev_end, dtype=object)[a] + _port_text(links.a_port)
    b_end = np.asarray(dev_end, dtype=object)[b] + _port_text(links.b_port)
    a_lead = b_lead = ""
    if for_csv:  # escaped once per device or distinct value, as the compute rows are
        rack_ids, rack_names, dev_name, dev_label, pn, ordering, mod_text, mod_pn = (
            csv_texts(t) for t in (rack_ids, rack_names, dev_name, dev_label, pn, ordering, mod_text, mod_pn))
        lead = np.asarray(["'" if needs_escape(e) else "" for e in dev_end], dtype=object)
        a_lead, b_lead = lead[a], lead[b]

    def pick(values, index):
        return np.asarray(values, dtype=object)[index].tolist()

    n = len(links)
    text = {
        "a_device": pick(dev_label, a), "a_port": links.a_port.tolist(), "b_device": pick(dev_label, b),
        "b_port": links.b_port.tolist(), "tier": pick(LINK_TIERS, links.tier), "medium": links.medium.tolist(),
        "cable": links.cable.tolist(), "length_m": pick([f"{m:g}" for m in lens.tolist()], len_idx),
        "a_transceiver": pick(mod_text, a_mod_idx), "b_transceiver": pick(mod_text, b_mod_idx),
        "rail": [""] * n, "a_rack": pick(rack_ids, a), "b_rack": pick(rack_ids, b),
        "a_rack_name": pick(rack_names, a), "a_u": pick(dev_u_text, a),
        "b_rack_name": pick(rack_names, b), "b_u": pick(dev_u_text, b),
        "a_device_name": pick(dev_name, a), "b_device_name": pick(dev_name, b),
        "cable_part_number": pick(pn, combo_idx), "cable_ordering_part_number": pick(ordering, combo_idx),
        "a_transceiver_part_number": pick(mod_pn, a_mod_idx), "b_transceiver_part_number": pick(mod_pn, b_mod_idx),
        "a_label": (a_lead + a_end + separator + b_end).tolist(),
        "b_label": (b_lead + b_end + separator + a_end).tolist(),
        "plane": [""] * n, "network": [NETWORK] * n,
    }
    numbers = {"length_m": links.length_m.tolist(), "rail": [None] * n,
               "a_u": pick(dev_u, a), "b_u": pick(dev_u, b)}
    return {"text": text, "numbers": numbers, "owner": links.owner, "length_m": links.length_m,
            # negative: never one of the compute fabric's cage keys
            "a_cage": -1 - links.a_cage, "b_cage": -1 - links.b_cage, "quoting": quoting}
