"""Import a NetBox devicetype-library YAML file as a catalog entry.

NetBox device types carry space, weight, airflow and per-port power draw but no
source for any of it, so every figure imported this way is marked unconfirmed
(evidence ``U``) with the file as its source. Only the safe loader is used:
nothing in the file is executed.

A file is someone else's data, so it is read defensively: YAML aliases are
refused (devicetype-library files use none, and nested aliases expand a few
hundred bytes into gigabytes: the "billion laughs"), the number of nodes and
their nesting are bounded, and every number must be finite and physically
possible. Every problem names the file and the field.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from types import MappingProxyType

import yaml

from .files import FileReadError, read_text
from .loader import ID_RE, MAX_ID_CHARS, NUMBERS, CatalogError, clean_text, finite, parse_entry, quoted
from .records import DeviceType, Figure, PortGroup, Source

#: The largest devicetype-library files (modular chassis) are tens of kB; a MB is far beyond them,
#: and keeps the pure-Python YAML parser, where libyaml is missing, to seconds.
NETBOX_FILE_LIMIT = 1024 * 1024
#: Scalars, mappings and sequences in one file: a 1,000-port switch is under 10,000.
MAX_NODES = 50_000
#: Nesting of mappings and sequences: a device type is three levels deep.
MAX_DEPTH = 32
#: Physical limits (refused beyond, with the field named): a rack is at most 60 U (as catalog entries);
#: one power supply inlet draws at most 200 kW (a 415 V 3-phase 250 A feed is ~180 kW);
#: the fastest port built or announced is 1.6 Tb/s, so 3.2 Tb/s leaves a generation of headroom.
MAX_U = NUMBERS["u_height"][2]
MAX_PORT_DRAW_W = 200_000.0
MAX_PORT_GBPS = 3200.0
MAX_WEIGHT_KG = NUMBERS["weight_kg"][2]

#: devicetype-library's slug pattern, matched whole (``$`` alone would accept a trailing newline).
SLUG_RE = re.compile(r"[-a-z0-9_]+")
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
#: NetBox's ethernet types start with their speed: "400gbase-x-osfp", "1.6tbase-...", "1000base-t" (Mb/s).
_ETHERNET_RE = re.compile(r"(\d{1,7}(?:\.\d{1,3})?)(g|t|base)", re.ASCII)
#: The YAML loader: libyaml's where installed (fast), else PyYAML's own; both are the safe kind.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _interface(kind: str) -> tuple[str, float, str] | None:
    """(protocol, Gb/s, cage) of a NetBox interface type, or None for types without fabric bandwidth."""
    kind = kind.lower()
    if kind.startswith("infiniband-"):
        speed = _SPEEDS.get(kind.split("-", 1)[1])
        return ("infiniband", speed, "") if speed else None
    m = _ETHERNET_RE.match(kind)
    if not m:
        return None
    speed = float(m.group(1)) * {"t": 1000.0, "g": 1.0, "base": 0.001}[m.group(2)]  # "1000base-t" is in Mb/s
    cage = next((c for c in sorted(_CAGES, key=len, reverse=True) if kind.endswith("-" + c)), "")
    if not cage and kind.endswith("base-t"):
        cage = "rj45"
    return ("ethernet", speed, cage.upper())


def _text(file: str, field: str, value: object, *, lines: bool = False) -> str:
    """A string field (a bare number, as YAML reads ``model: 5200``, is taken as its text)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**30:
        value = str(value)
    if not isinstance(value, str):
        raise CatalogError(file, field, f"must be text, got {quoted(value)}")
    try:
        return clean_text(value, lines=lines)
    except ValueError as exc:
        raise CatalogError(file, field, str(exc)) from None


def _list(file: str, field: str, value: object) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise CatalogError(file, field, f"must be a list, got {type(value).__name__}")
    return value


def _slug(data: dict, file: str) -> str:
    """The required fields are there, and the slug is one NetBox and the catalog both accept."""
    for key in ("manufacturer", "model", "slug", "u_height"):
        if key not in data:
            raise CatalogError(file, key, "is required by the devicetype-library schema")
    slug = data["slug"]
    if not isinstance(slug, str) or not SLUG_RE.fullmatch(slug):
        raise CatalogError(file, "slug", f"{quoted(slug)} does not match ^[-a-z0-9_]+$")
    if not ID_RE.fullmatch(slug) or len(slug) > MAX_ID_CHARS:
        # the slug becomes the entry's id and its file name: it must be one the catalog loads back
        raise CatalogError(file, "slug", f"{quoted(slug)} must start with a letter or digit and have at most "
                                         f"{MAX_ID_CHARS} characters")
    return slug


def _weight_airflow(data: dict, file: str, fields: dict, fig) -> None:
    if "weight" in data or "weight_unit" in data:
        unit, weight = data.get("weight_unit"), data.get("weight")
        if not isinstance(unit, str) or unit not in WEIGHT_TO_KG or not finite(weight) or weight < 0:
            raise CatalogError(file, "weight", "needs a number and a weight_unit of kg, g, lb or oz")
        kg = round(float(weight) * WEIGHT_TO_KG[unit], 3)
        if kg > MAX_WEIGHT_KG:
            raise CatalogError(file, "weight", f"{weight:g} {unit} is more than the {MAX_WEIGHT_KG:g} kg any "
                                               "rack-mounted device weighs")
        fields["weight_kg"] = fig("weight_kg", kg)
    if "airflow" in data:
        airflow = data["airflow"]
        if not isinstance(airflow, str) or airflow not in AIRFLOW:
            raise CatalogError(file, "airflow", f"{quoted(airflow)} is not a NetBox airflow choice")
        fields["airflow"] = AIRFLOW[airflow]


def _power_draw(data: dict, file: str, fields: dict, figures: dict[str, Figure]) -> None:
    """The power ports' maximum draw, summed, as the entry's maximum power (when any port gives one)."""
    draws = []
    for i, p in enumerate(_list(file, "power-ports", data.get("power-ports"))):
        if not isinstance(p, dict):
            raise CatalogError(file, f"power-ports[{i}]", "must be a mapping")
        draw = p.get("maximum_draw")
        if draw is not None:
            if not finite(draw) or not 0 <= draw <= MAX_PORT_DRAW_W:
                raise CatalogError(file, f"power-ports[{i}].maximum_draw",
                                   f"{quoted(draw)} is not watts from 0 to {MAX_PORT_DRAW_W:,.0f}")
            draws.append(float(draw))
    if draws:
        # NetBox files differ on whether each redundant supply lists its share or the whole draw;
        # the sum is the safe side for power planning, and the figure is marked unconfirmed.
        total = sum(draws)
        if total > NUMBERS["power_max_w"][2]:
            raise CatalogError(file, "power-ports", f"{total:,.0f} W in all is more than the "
                                                    f"{NUMBERS['power_max_w'][2]:,.0f} W a catalog entry may draw")
        fields["power_max_w"] = total
        figures["power_max_w"] = Figure(total, "netbox", "U",
                                        f"sum of the power ports' maximum_draw in {Path(file).name}; "
                                        "may count redundant supplies twice")


def _port_groups(data: dict, file: str) -> tuple[PortGroup, ...]:
    """The interfaces that carry fabric bandwidth, grouped by role, protocol, speed and cage."""
    groups: Counter = Counter()
    for i, itf in enumerate(_list(file, "interfaces", data.get("interfaces"))):
        if not isinstance(itf, dict) or not isinstance(itf.get("type"), str):
            raise CatalogError(file, f"interfaces[{i}].type", "is required")
        parsed = _interface(itf["type"])
        if parsed is None and itf["type"][:1].isdigit():
            # NetBox's types that start with a digit all start with a speed ("400gbase-x-osfp"): "1e308g..." is none
            raise CatalogError(file, f"interfaces[{i}].type", f"{quoted(itf['type'])} is not a NetBox interface type")
        if parsed is None:
            continue  # virtual, LAG, console and other types carry no fabric bandwidth
        if not 0 < parsed[1] <= MAX_PORT_GBPS:
            raise CatalogError(file, f"interfaces[{i}].type", f"{quoted(itf['type'])} is {parsed[1]:g} Gb/s; a port "
                                                              f"carries more than 0 and at most {MAX_PORT_GBPS:g}")
        role = "oob" if itf.get("mgmt_only") else "fabric"
        groups[(role,) + parsed] += 1
    return tuple(PortGroup(role, proto, speed, count, cage)
                 for (role, proto, speed, cage), count in sorted(groups.items()))


def devicetype_from_yaml(data: object, file: str) -> DeviceType:
    if not isinstance(data, dict):
        raise CatalogError(file, "", "is not a NetBox device type (expected a mapping)")
    slug = _slug(data, file)
    manufacturer = _text(file, "manufacturer", data["manufacturer"])
    model = _text(file, "model", data["model"])
    u = data["u_height"]
    if not finite(u) or not 0 <= u <= MAX_U or u * 2 != int(u * 2):
        raise CatalogError(file, "u_height", f"{quoted(u)} is not a multiple of 0.5 from 0 to {MAX_U:g}")
    # the helpers below add to figures in the order the entry has always listed them
    figures: dict[str, Figure] = {}

    def fig(name: str, value: object) -> object:
        figures[name] = Figure(value, "netbox", "U", f"imported from {Path(file).name}")
        return value

    fields: dict = {"u_height": fig("u_height", float(u))}
    _weight_airflow(data, file, fields, fig)
    _power_draw(data, file, fields, figures)
    ports = _port_groups(data, file)
    for i, p in enumerate(ports):
        fig(f"ports[{i}].speed_gbps", p.speed_gbps)
        fig(f"ports[{i}].count", p.count)
    kind = "switch" if ports and sum(g.count for g in ports) >= 16 else "appliance"
    if kind == "switch":
        fields["power_typical_w"] = fig("power_typical_w", fields.get("power_max_w", 0.0))
    else:
        fields.setdefault("power_max_w", fig("power_max_w", 0.0))
    dev = DeviceType(
        id=slug,
        kind=kind,
        name=f"{manufacturer} {model}",
        manufacturer=manufacturer,
        category="network" if kind == "switch" else "imported",
        part_number=_text(file, "part_number", data.get("part_number", "")),
        description=_text(file, "comments", data.get("comments", ""), lines=True),
        ports=ports,
        figures=MappingProxyType(figures),
        origin=file,
        **fields,
    )
    _check_loadable(dev, file)
    return dev


def _check_loadable(dev: DeviceType, file: str) -> None:
    """Refuse what the catalog would not load back once written (a last net: the checks above name the
    NetBox field; this names the catalog's)."""
    from .writer import entry_to_json  # the writer imports the loader, as this module does

    parse_entry(entry_to_json(dev), file, {"netbox": Source("netbox", "NetBox")})


def _check_events(text: str, file: str) -> None:
    """Walk the YAML's events before building anything: refuse aliases, too many nodes, too deep a nest,
    and a key given twice in one mapping (YAML would keep the last silently: ``model:`` twice)."""
    nodes = depth = 0
    # per open mapping: the keys seen and whether a key comes next; None per open sequence
    open_nodes: list[list | None] = []
    for event in yaml.parse(text, Loader=_LOADER):
        line = event.start_mark.line + 1 if event.start_mark else "?"
        if isinstance(event, yaml.AliasEvent):
            raise CatalogError(file, "", f"line {line}: YAML aliases (*{str(event.anchor)[:40]}) are not accepted; "
                                         "NetBox device types use none")
        if isinstance(event, (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            nodes += 1
            if nodes > MAX_NODES:
                raise CatalogError(file, "", f"holds more than {MAX_NODES:,} YAML values; no device type is "
                                             "that large")
            mapping = open_nodes[-1] if open_nodes else None
            if mapping is not None:
                keys, key_next = mapping
                if key_next and isinstance(event, yaml.ScalarEvent):
                    if event.value in keys:
                        raise CatalogError(file, "", f"line {line}: key {quoted(event.value)} is given twice in one "
                                                     "mapping (the last would silently replace the first)")
                    keys.add(event.value)
                mapping[1] = not key_next
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise CatalogError(file, "", f"nests more than {MAX_DEPTH} levels deep; a device type has three")
            open_nodes.append([set(), True] if isinstance(event, yaml.MappingStartEvent) else None)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
            open_nodes.pop()


def load_yaml(text: str, file: str) -> object:
    """A NetBox YAML document, built only after its events passed :func:`_check_events` (no aliases, a
    bounded size and depth); every failure is one :class:`CatalogError` naming ``file``."""
    try:
        _check_events(text, file)
        return yaml.load(text, Loader=_LOADER)
    except CatalogError:
        raise
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise CatalogError(file, "", f"is not valid YAML{where}") from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        # a tag whose value its constructor refuses: !!timestamp 2025-13-45, an !!int beyond Python's digits
        raise CatalogError(file, "", f"is not valid YAML ({type(exc).__name__}: {str(exc)[:80]})") from None


def _read_yaml(path: Path) -> object:
    try:
        text = read_text(path, NETBOX_FILE_LIMIT)
    except FileReadError as exc:
        raise CatalogError(str(path), "", exc.reason) from None
    return load_yaml(text, str(path))


def import_devicetype(path: Path | str) -> DeviceType:
    path = Path(path)
    return devicetype_from_yaml(_read_yaml(path), str(path))
