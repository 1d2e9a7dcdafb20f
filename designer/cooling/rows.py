"""Air per row: what each row draws, the share of the air handlers' airflow that reaches it, and the
temperature of the air at its racks' inlets; the hall's supply and return air.

The model, and why:

- Supply air leaves the air handlers at the design supply temperature (the setting ``air_supply_c``; ASHRAE's
  recommended inlet envelope is 18-27 °C for classes A1-A4, handoff-facilities C.4, [S]).
- A row's exhaust is its supply plus the sensible-heat rise of its air heat through the air it draws:
  dT = P / (rho x cp x V), 1.2 kg/m³ and 1,005 J/(kg·K), V from the racks' airflow (the catalog's, else the
  air delta-T's).
- Where the air handlers' airflow goes. A contained aisle is a closed plenum: the racks of contained rows draw
  what they need from the air the hall's units push into it, so those rows share it in proportion to what they
  draw. An open cold aisle gets what its floor tiles pass, one perforated tile before each rack position, so an
  open row gets the hall's airflow in proportion to its racks; air an open row does not draw bypasses to the
  return. The contained rows share what the open rows leave.
- A row that gets less air than it draws takes the rest from its own exhaust: with a supply Y and a draw X of
  exhaust mixed in fully, the inlet settles at supply + (X / Y - 1) x dT (the steady state of
  T_in = (Y x T_s + (X - Y) x (T_in + dT)) / X). That inlet is held to the hall's class: over the
  allowable maximum is an error; short of air but within it, a warning (the racks run on recirculated air).
- The return air at the units: supply plus the hall's air heat through the larger of the airflows moved and
  drawn (air the racks do not draw bypasses them and cools the return).

- The same with the hall's largest air handler off (N+1 is the design case: a unit is serviced or fails and
  the rest carry the room): each row's share of what the other units move, and its inlet then. A row whose
  inlet then goes over the class is a warning (the room is not N+1 for it); a hall of one unit has no such
  case (the hall's own finding says it has no unit to spare).

Without air handlers on the floor, or when a unit states no airflow, nothing is known of the delivery: the rows
have their draw and exhaust, and their inlet is the supply.
"""
from __future__ import annotations

import numpy as np

from ..arrays import DesignArrays
from ..facility import INLET_CLASSES
from ..findings import Finding
from ..formatting import quantity
from ..model import Project

AIR_DENSITY = 1.2  # kg/m³
AIR_CP = 1005.0  # J/(kg·K)
M3S_TO_CFM = 2118.88
#: Rows listed by name in one finding, before "…"
NAMED_ROWS = 4


def air_rise_k(kw: np.ndarray | float, cfm: np.ndarray | float) -> np.ndarray:
    """Sensible-heat temperature rise of ``kw`` carried by ``cfm`` of air, K (0 where no air moves)."""
    kw, cfm = np.asarray(kw, dtype=float), np.asarray(cfm, dtype=float)
    m3s = cfm / M3S_TO_CFM
    return np.divide(kw * 1000.0, AIR_DENSITY * AIR_CP * m3s, out=np.zeros(np.broadcast(kw, m3s).shape),
                     where=m3s > 0)


def delivered_cfm(flow: float, demand: np.ndarray, racks: np.ndarray, open_: np.ndarray) -> np.ndarray:
    """Each row's share of a hall's airflow ``flow``: open rows by their racks, contained rows by their draw
    from what the open rows leave (see the module's docstring)."""
    share = np.zeros(len(demand))
    total_racks = float(racks.sum())
    if total_racks > 0:
        share[open_] = flow * racks[open_] / total_racks
    left = max(0.0, flow - float(share[open_].sum()))
    drawn = float(demand[~open_].sum())
    if drawn > 0:
        share[~open_] = left * demand[~open_] / drawn
    elif (~open_).any() and total_racks > 0:  # contained rows that draw nothing: the rest by their racks
        share[~open_] = left * racks[~open_] / float(racks[~open_].sum() or 1)
    return share


def inlet_c(supply_c: float, demand: np.ndarray, delivered: np.ndarray, rise: np.ndarray) -> np.ndarray:
    """The inlet air of rows drawing ``demand`` and given ``delivered`` (CFM), exhaust ``rise`` K above their inlet:
    the supply where the row gets what it draws, warmer by the exhaust it takes back where it does not."""
    short = (delivered < demand) & (demand > 0)
    ratio = np.divide(demand, delivered, out=np.full(len(demand), np.inf), where=delivered > 0)
    out = np.full(len(demand), float(supply_c))
    # only the short rows: a row with no air and no rise (inf × 0) is at the supply, not NaN
    out[short] = supply_c + (ratio[short] - 1.0) * np.asarray(rise, dtype=float)[short]
    return out


def row_air(project: Project, arrays: DesignArrays, supply_c: float, rack_air: np.ndarray, rack_cfm: np.ndarray,
            containment: list[str | None], room: list[dict]) -> tuple[list[dict], list[dict], list[Finding]]:
    """Per row its air (``cooling.rows``), per hall its supply and return air (added to ``cooling.halls``),
    and the findings of rows whose inlet air warms."""
    order, row_of = arrays.rows
    n = len(order)
    air = np.bincount(row_of, weights=rack_air, minlength=n) if n else np.zeros(0)
    demand = np.bincount(row_of, weights=rack_cfm, minlength=n) if n else np.zeros(0)
    racks = np.bincount(row_of, minlength=n).astype(float) if n else np.zeros(0)
    open_ = np.zeros(n, dtype=bool)  # a row's containment is its racks' (designer/cooling/air.py: one per row)
    open_[row_of[np.fromiter((c == "none" for c in containment), dtype=bool, count=len(containment))]] = True
    rise = air_rise_k(air, demand)
    delivered, delivered_n1 = np.full(n, np.nan), np.full(n, np.nan)
    row_hall = np.asarray([h for h, _ in order], dtype=np.int64)
    halls, findings = [], []
    for h in range(len(project.halls)):
        mine = np.nonzero(row_hall == h)[0]
        handlers = room[h].get("air_handlers")  # room_air gives one entry per hall
        flow = handlers.get("airflow_cfm") if handlers else None
        hall_air, hall_cfm = float(air[mine].sum()), float(demand[mine].sum())
        moved = max(hall_cfm, float(flow)) if flow is not None else hall_cfm
        halls.append({"supply_c": round(supply_c, 2),
                      "return_c": round(supply_c + float(air_rise_k(hall_air, moved)), 2)})
        if flow is None or not len(mine):
            continue
        delivered[mine] = delivered_cfm(float(flow), demand[mine], racks[mine], open_[mine])
        if len(handlers["units"]) > 1 and handlers.get("airflow_n_minus_1_cfm") is not None:
            delivered_n1[mine] = delivered_cfm(float(handlers["airflow_n_minus_1_cfm"]), demand[mine], racks[mine],
                                               open_[mine])
    known, known_n1 = ~np.isnan(delivered), ~np.isnan(delivered_n1)
    inlet, inlet_n1 = np.full(n, supply_c), np.full(n, np.nan)
    inlet[known] = inlet_c(supply_c, demand[known], delivered[known], rise[known])
    inlet_n1[known_n1] = inlet_c(supply_c, demand[known_n1], delivered_n1[known_n1], rise[known_n1])
    rows = [{"hall": project.halls[h].id, "row": name, "racks": int(k), "containment": "none" if o else "contained",
             "air_kw": round(a, 3), "demand_cfm": round(d), "delivered_cfm": None if np.isnan(y) else round(y),
             "exhaust_c": None if not np.isfinite(t) else round(t + r, 2),
             "inlet_c": None if not np.isfinite(t) else round(t, 2),
             "delivered_n_minus_1_cfm": None if np.isnan(y1) else round(y1),
             "inlet_n_minus_1_c": None if not np.isfinite(t1) else round(t1, 2)}
            for (h, name), k, o, a, d, y, t, r, y1, t1 in zip(order, racks.tolist(), open_.tolist(), air.tolist(),
                                                              demand.tolist(), delivered.tolist(), inlet.tolist(),
                                                              rise.tolist(), delivered_n1.tolist(), inlet_n1.tolist())]
    short = np.nonzero(known & (delivered < demand))[0]
    # rows within their class with every unit running that go over it with the largest unit off
    hi = np.asarray([INLET_CLASSES[project.halls[h].facility.inlet_class][1] for h in row_hall.tolist()])
    lost = np.nonzero(known_n1 & (delivered_n1 < demand) & (inlet <= hi + 1e-9)
                      & ~(np.nan_to_num(inlet_n1, nan=np.inf) <= hi + 1e-9))[0]
    if len(short) or len(lost):
        first_rack = np.zeros(n, dtype=np.int64)  # each row's first rack, the finding's place for the row
        seen, first = np.unique(row_of, return_index=True)
        first_rack[seen] = first
        for h in np.unique(row_hall[short]).tolist():
            mine = [(int(k), rows[k]) for k in short[row_hall[short] == h]]
            findings += _hall_findings(project, project.halls[h], mine, first_rack, supply_c)
        for h in np.unique(row_hall[lost]).tolist():
            mine = [(int(k), rows[k]) for k in lost[row_hall[lost] == h]]
            findings.append(_unit_off_finding(project, project.halls[h], mine, first_rack,
                                              len(room[h]["air_handlers"]["units"])))
    return rows, halls, findings


def _group(project: Project, rows: list[tuple[int, dict]], first_rack: np.ndarray, inlet_key: str
           ) -> tuple[str, dict, str, tuple[str, ...]]:
    """A group of rows for one finding: their names (the first few), the warmest by ``inlet_key``, how warm it
    gets, and each row's first rack as the finding's places."""
    named = [row["row"] or "(no row)" for _, row in rows]
    who = ", ".join(named[:NAMED_ROWS]) + (" …" if len(named) > NAMED_ROWS else "")
    worst = max(rows, key=lambda kr: kr[1][inlet_key] if kr[1][inlet_key] is not None else np.inf)[1]
    hot = "without limit" if worst[inlet_key] is None else f"to {quantity(worst[inlet_key], '°C')}"
    return who, worst, hot, tuple(f"rack:{project.racks[int(first_rack[k])].id}" for k, _ in rows)


def _unit_off_finding(project: Project, hall, rows: list[tuple[int, dict]], first_rack: np.ndarray,
                      units: int) -> Finding:
    """A hall's rows that go over its class with the largest air handler off: the room is not N+1 for them."""
    hi = INLET_CLASSES[hall.facility.inlet_class][1]
    who, worst, hot, racks = _group(project, rows, first_rack, "inlet_n_minus_1_c")
    text = (f"hall {hall.label}: with the largest of its {units} air handlers off, "
            f"{'row' if len(rows) == 1 else f'{len(rows)} rows'} ({who}) "
            f"{'gets less air than it draws' if len(rows) == 1 else 'get less air than they draw'} "
            f"(row {worst['row'] or '(no row)'}: "
            f"{quantity(worst['delivered_n_minus_1_cfm'], 'CFM')} for {quantity(worst['demand_cfm'], 'CFM')}) and "
            f"the inlet air warms {hot}, over the {quantity(hi, '°C')} class {hall.facility.inlet_class} allows: "
            f"the air handling is not N+1 for {'it' if len(rows) == 1 else 'them'}; add a unit's airflow")
    return Finding("warning", "row-air-unit-off", text, f"hall:{hall.id}", racks)


def _hall_findings(project: Project, hall, short_rows: list[tuple[int, dict]], first_rack: np.ndarray,
                   supply_c: float) -> list[Finding]:
    """One finding per kind for a hall's rows short of air: those over the class's allowable inlet, the others."""
    hi = INLET_CLASSES[hall.facility.inlet_class][1]
    over, short = [], []
    for k, row in short_rows:
        (over if row["inlet_c"] is None or row["inlet_c"] > hi + 1e-9 else short).append((k, row))
    out = []
    for group, severity, code in ((over, "error", "row-inlet-over-class"), (short, "warning", "row-air-short")):
        if not group:
            continue
        who, worst, hot, racks = _group(project, group, first_rack, "inlet_c")
        text = (f"hall {hall.label}: {'row' if len(group) == 1 else f'{len(group)} rows'} ({who}) "
                f"{'draws' if len(group) == 1 else 'draw'} more air than the air handlers deliver to "
                f"{'it' if len(group) == 1 else 'them'} (row {worst['row'] or '(no row)'}: "
                f"{quantity(worst['delivered_cfm'], 'CFM')} for {quantity(worst['demand_cfm'], 'CFM')}), so "
                f"exhaust air comes back to the inlets: up {hot} from the {quantity(supply_c, '°C')} supply")
        text += (f", over the {quantity(hi, '°C')} class {hall.facility.inlet_class} allows" if severity == "error"
                 else f", within class {hall.facility.inlet_class}'s {quantity(hi, '°C')}")
        text += ": add air handlers' airflow, or contain the aisles" if severity == "error" else ""
        out.append(Finding(severity, code, text, f"hall:{hall.id}", racks))
    return out
