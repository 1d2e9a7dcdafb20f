"""The management networks' rows of the cabling plan: their links (:func:`designer.management.links
.management_links`) in the columns of the compute fabric's rows, written after the storage fabric's with
``network`` "oob" or "inband", so a pull list covers every network of the design.

The same conventions as the storage rows (:mod:`.cabling_storage`, whose per-device tables these rows share):
lengths are orderable ones, a label names the rack and U of its near end and then its far end, and every text
a spreadsheet could run as a formula gets a quote in front in the CSV. Tiers: ``node-switch`` and ``uplink`` on
the OOB network, ``node-leaf`` and ``leaf-spine`` on the in-band one. Each link is its own cable. The ``cable``
column holds the catalog id where the catalog has the part (the multimode and single-mode fibres), else what
the part is ("Cat6A patch cord", "400G passive copper (DAC)"): the catalog has no patch cords and no QSFP28 or
QSFP112 copper, so those rows name a part to order by its description. The management links' transceivers are
not listed (the catalog has no 100 G QSFP28 or 400 G QSFP112 optics for them).
"""
from __future__ import annotations

import numpy as np

from designer.analysis import Analysis
from designer.quote.lines import cable_part_number
from designer.management.links import NETWORKS, ManagementLinks, management_links

from .cabling_storage import _device_tables, _port_text, _u_text
from .cell_text import csv_texts, needs_escape

#: per link network: (the cabling plan's network, its tier)
NETWORK_TIERS = {"oob": ("oob", "node-switch"), "oob-uplink": ("oob", "uplink"),
                 "inband": ("inband", "node-leaf"), "inband-uplink": ("inband", "leaf-spine")}
#: cage keys of these rows start here, far below the storage fabric's (negative) ones: never one of theirs
CAGE_BASE = -(1 << 40)


def management_cabling(analysis: Analysis) -> ManagementLinks:
    """The design's management links, made when an export asks for them."""
    return management_links(analysis.project, analysis.catalog)


def cable_text(links: ManagementLinks) -> list[str]:
    """Per link: the catalog id of its cable, or what the part is where the catalog has none."""
    out = []
    for cable, medium, a, b in zip(links.cable.tolist(), links.medium.tolist(), links.a_speed.tolist(),
                                   links.b_speed.tolist()):
        if cable:
            out.append(cable)
        elif medium == "cat6a":
            out.append("Cat6A patch cord")
        else:
            out.append(f"{min(a, b):g}G passive copper (DAC)" if medium == "dac" else f"{medium} fibre")
    return out


def management_columns(analysis: Analysis, links: ManagementLinks, *, for_csv: bool, tray_units,
                       separator: str) -> dict:
    """The rows' text and numbers by column, as :func:`.cabling_storage.storage_columns` gives the storage
    fabric's; ``tray_units`` and ``separator`` as there."""
    a, b = links.a_dev, links.b_dev
    n = len(links)
    rack_ids, rack_names, dev_u, dev_name, dev_label = _device_tables(analysis, links, tray_units)
    dev_u_text = [_u_text(u) for u in dev_u]
    dev_end = [f"{rn} U{ut}" if ut else f"{rn} {nm}" for rn, ut, nm in zip(rack_names, dev_u_text, dev_name)]
    lens, len_idx = np.unique(links.length_m, return_inverse=True)
    nets = [NETWORK_TIERS[NETWORKS[k]] for k in links.network.tolist()]
    cables = cable_text(links)
    parts: dict[tuple, tuple[str, str]] = {}  # (catalog cable, length) -> part numbers, each made once
    for key in zip(links.cable.tolist(), links.length_m.tolist()):
        if key[0] and key not in parts:
            parts[key] = cable_part_number(analysis.catalog.get(key[0]), key[1])
    pn = [parts.get(k, ("", ""))[0] for k in zip(links.cable.tolist(), links.length_m.tolist())]
    ordering = [parts.get(k, ("", ""))[1] for k in zip(links.cable.tolist(), links.length_m.tolist())]
    quoting = any(("," in v or '"' in v or "\n" in v or "\r" in v)
                  for t in (rack_ids, rack_names, dev_name, dev_label, dev_end, pn, ordering) for v in t)
    a_end = np.asarray(dev_end, dtype=object)[a] + _port_text(links.a_port)
    b_end = np.asarray(dev_end, dtype=object)[b] + _port_text(links.b_port)
    a_lead = b_lead = ""
    if for_csv:
        rack_ids, rack_names, dev_name, dev_label, cables, pn, ordering = (
            csv_texts(t) for t in (rack_ids, rack_names, dev_name, dev_label, cables, pn, ordering))
        lead = np.asarray(["'" if needs_escape(e) else "" for e in dev_end], dtype=object)
        a_lead, b_lead = lead[a], lead[b]

    def pick(values, index):
        return np.asarray(values, dtype=object)[index].tolist()

    text = {
        "a_device": pick(dev_label, a), "a_port": links.a_port.tolist(), "b_device": pick(dev_label, b),
        "b_port": links.b_port.tolist(), "tier": [t for _, t in nets], "medium": links.medium.tolist(),
        "cable": list(cables), "length_m": pick([f"{m:g}" for m in lens.tolist()], len_idx),
        "a_transceiver": [""] * n, "b_transceiver": [""] * n,
        "rail": [""] * n, "a_rack": pick(rack_ids, a), "b_rack": pick(rack_ids, b),
        "a_rack_name": pick(rack_names, a), "a_u": pick(dev_u_text, a),
        "b_rack_name": pick(rack_names, b), "b_u": pick(dev_u_text, b),
        "a_device_name": pick(dev_name, a), "b_device_name": pick(dev_name, b),
        "cable_part_number": list(pn), "cable_ordering_part_number": list(ordering),
        "a_transceiver_part_number": [""] * n, "b_transceiver_part_number": [""] * n,
        "a_label": (a_lead + a_end + separator + b_end).tolist(),
        "b_label": (b_lead + b_end + separator + a_end).tolist(),
        "plane": [""] * n, "network": [net for net, _ in nets],
    }
    numbers = {"length_m": links.length_m.tolist(), "rail": [None] * n,
               "a_u": pick(dev_u, a), "b_u": pick(dev_u, b)}
    keys = CAGE_BASE - np.arange(2 * n, dtype=np.int64)
    return {"text": text, "numbers": numbers, "owner": np.ones(n, dtype=bool), "length_m": links.length_m,
            "a_cage": keys[:n], "b_cage": keys[n:], "quoting": quoting}
