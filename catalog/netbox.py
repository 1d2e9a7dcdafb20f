"""Import a NetBox devicetype-library YAML file as a catalog entry.

NetBox device types carry space, weight, airflow and per-port power draw but no
source for any of it, so every figure imported this way is marked unconfirmed
(evidence ``U``) with the file as its source. Only ``yaml.safe_load`` is used:
nothing in the file is executed.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from types import MappingProxyType

import yaml

from .files import FileReadError, read_text
from .loader import CATALOG_FILE_LIMIT, CatalogError
from .records import DeviceType, Figure, PortGroup

SLUG_RE = re.compile(r"^[-a-z0-9_]+$")
WEIGHT_TO_KG = {"kg": 1.0, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523125}
AIRFLOW = {
    "front-to-rear": "front-to-rear",
    "rear-to-front": "rear-to-front",
    "left-to-right": "side-to-side",
    "right-to-left": "side-to-side",
    "side-to-rear": "mixed",
    "rear-to-side": "mixed",
    "bottom-to-top": "mixed",
    "top-to-bottom": "mixed",
    "passive": "passive",
    "mixed": "mixed",
}
# NetBox interface type -> (protocol, Gb/s per port, cage)
_SPEEDS = {"sdr": 10, "ddr": 20, "qdr": 40, "fdr10": 40, "fdr": 56, "edr": 100, "hdr": 200, "ndr": 400, "xdr": 800}


_CAGES = {"osfp", "osfp-rhs", "osfp1600", "qsfp", "qsfp28", "qsfp56", "qsfp112", "qsfpdd", "qsfp-dd",
          "sfp", "sfp28", "sfp56", "sfp112", "cfp2", "rj45"}


def _interface(kind: str) -> tuple[str, float, str] | None:
    """(protocol, Gb/s, cage) of a NetBox interface type, or None for types without fabric bandwidth."""
    kind = kind.lower()
    if kind.startswith("infiniband-"):
        speed = _SPEEDS.get(kind.split("-", 1)[1])
        return ("infiniband", speed, "") if speed else None
    m = re.match(r"^(\d+(?:\.\d+)?)(g|t|base)", kind)
    if not m:
        return None
    speed = float(m.group(1)) * {"t": 1000.0, "g": 1.0, "base": 0.001}[m.group(2)]  # "1000base-t" is in Mb/s
    cage = next((c for c in sorted(_CAGES, key=len, reverse=True) if kind.endswith("-" + c)), "")
    if not cage and kind.endswith("base-t"):
        cage = "rj45"
    return ("ethernet", speed, cage.upper())


def devicetype_from_yaml(data: object, file: str) -> DeviceType:
    if not isinstance(data, dict):
        raise CatalogError(file, "", "is not a NetBox device type (expected a mapping)")
    for key in ("manufacturer", "model", "slug", "u_height"):
        if key not in data:
            raise CatalogError(file, key, "is required by the devicetype-library schema")
    slug = data["slug"]
    if not isinstance(slug, str) or not SLUG_RE.match(slug):
        raise CatalogError(file, "slug", f"{slug!r} does not match ^[-a-z0-9_]+$")
    u = data["u_height"]
    if isinstance(u, bool) or not isinstance(u, (int, float)) or u < 0 or u * 2 != int(u * 2):
        raise CatalogError(file, "u_height", f"{u!r} is not a multiple of 0.5")
    figures: dict[str, Figure] = {}

    def fig(name: str, value: object) -> object:
        figures[name] = Figure(value, "netbox", "U", f"imported from {Path(file).name}")
        return value

    fields: dict = {"u_height": fig("u_height", float(u))}
    if "weight" in data or "weight_unit" in data:
        unit = data.get("weight_unit")
        weight = data.get("weight")
        if unit not in WEIGHT_TO_KG or isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
            raise CatalogError(file, "weight", "needs a number and a weight_unit of kg, g, lb or oz")
        fields["weight_kg"] = fig("weight_kg", round(weight * WEIGHT_TO_KG[unit], 3))
    if "airflow" in data:
        if data["airflow"] not in AIRFLOW:
            raise CatalogError(file, "airflow", f"{data['airflow']!r} is not a NetBox airflow choice")
        fields["airflow"] = AIRFLOW[data["airflow"]]

    draws = []
    for i, p in enumerate(data.get("power-ports") or []):
        if not isinstance(p, dict):
            raise CatalogError(file, f"power-ports[{i}]", "must be a mapping")
        draw = p.get("maximum_draw")
        if draw is not None:
            if isinstance(draw, bool) or not isinstance(draw, (int, float)) or draw < 0:
                raise CatalogError(file, f"power-ports[{i}].maximum_draw", f"{draw!r} is not watts")
            draws.append(float(draw))
    if draws:
        # NetBox files differ on whether each redundant supply lists its share or the whole draw;
        # the sum is the safe side for power planning, and the figure is marked unconfirmed.
        fields["power_max_w"] = sum(draws)
        figures["power_max_w"] = Figure(fields["power_max_w"], "netbox", "U",
                                        f"sum of the power ports' maximum_draw in {Path(file).name}; "
                                        "may count redundant supplies twice")

    groups: Counter = Counter()
    for i, itf in enumerate(data.get("interfaces") or []):
        if not isinstance(itf, dict) or not isinstance(itf.get("type"), str):
            raise CatalogError(file, f"interfaces[{i}].type", "is required")
        parsed = _interface(itf["type"])
        if parsed is None:
            continue  # virtual, LAG, console and other types carry no fabric bandwidth
        role = "oob" if itf.get("mgmt_only") else "fabric"
        groups[(role,) + parsed] += 1
    ports = tuple(PortGroup(role, proto, speed, count, cage)
                  for (role, proto, speed, cage), count in sorted(groups.items()))
    for i, p in enumerate(ports):
        fig(f"ports[{i}].speed_gbps", p.speed_gbps)
        fig(f"ports[{i}].count", p.count)
    kind = "switch" if ports and sum(g.count for g in ports) >= 16 else "appliance"
    if kind == "switch":
        fields["power_typical_w"] = fig("power_typical_w", fields.get("power_max_w", 0.0))
    else:
        fields.setdefault("power_max_w", fig("power_max_w", 0.0))
    return DeviceType(
        id=slug,
        kind=kind,
        name=f"{data['manufacturer']} {data['model']}",
        manufacturer=str(data["manufacturer"]),
        category="network" if kind == "switch" else "imported",
        part_number=str(data.get("part_number", "")),
        description=str(data.get("comments", "")),
        ports=ports,
        figures=MappingProxyType(figures),
        origin=file,
        **fields,
    )


def import_devicetype(path: Path | str) -> DeviceType:
    path = Path(path)
    try:
        data = yaml.safe_load(read_text(path, CATALOG_FILE_LIMIT))
    except FileReadError as exc:
        raise CatalogError(str(path), "", exc.reason) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise CatalogError(str(path), "", f"is not valid YAML{where}") from None
    return devicetype_from_yaml(data, str(path))
