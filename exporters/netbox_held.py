"""The shared objects a NetBox already holds, so that a folder written for it (``export --netbox DIR --netbox-url URL
--netbox-missing-only``) imports without a refused row.

Custom fields, manufacturers, device roles, rack types and device types are shared by every site of a NetBox.
NetBox's import form refuses a row for one it holds ("already exists") and offers no create-if-missing (a row
updates an object only by its NetBox ``id``), so a second design's folder would stop at its first shared file.
Written for a given NetBox, the folder leaves out the rows that NetBox holds, found as NetBox finds a clash: a
custom field by its name; a manufacturer or role by its name or slug, case aside; a rack type or device type by
its manufacturer and its model or slug. The rows that name a held object then name it as NetBox spells it (its
import looks names up exactly). A held device type made before the export gave types their power ports (a
PodPlanner type whose slug is a catalog id, without power-port templates) brings none to its devices: their
ports and a PDU's outlets are then rows of their own (13-power-ports.csv, 14-power-outlets.csv).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from designer.netbox_api import NetBoxAPI
from designer.power.cords import supply_ports

from .netbox_types import slug


def _key(text) -> str:
    return str(text or "").strip().lower()


@dataclass(frozen=True)
class Held:
    url: str
    custom_fields: frozenset[str] = frozenset()
    #: name or slug, lower case -> NetBox's name
    manufacturers: dict = field(default_factory=dict)
    roles: dict = field(default_factory=dict)
    #: (manufacturer, model) and (manufacturer, slug), lower case -> NetBox's (manufacturer, model)
    rack_types: dict = field(default_factory=dict)
    device_types: dict = field(default_factory=dict)
    #: (manufacturer, model) lower case of the device types that have power-port templates
    powered_types: frozenset = frozenset()

    def holds(self, file: str, row: tuple, columns: tuple[str, ...]) -> bool:
        """Whether NetBox holds the object of a shared file's row."""
        value = dict(zip(columns, row))
        if file == "00-custom-fields.csv":
            return value["name"] in self.custom_fields
        if file == "03-manufacturers.csv":
            return self.manufacturer(value["name"], value["slug"]) is not None
        if file == "04-device-roles.csv":
            return self.role(value["name"], value["slug"]) is not None
        if file == "05-rack-types.csv":
            return self.rack_type(value["manufacturer"], value["model"], value["slug"]) is not None
        return False

    def manufacturer(self, name: str, slug: str = "") -> str | None:
        return self.manufacturers.get(_key(name)) or self.manufacturers.get(_key(slug))

    def role(self, name: str, slug: str = "") -> str | None:
        return self.roles.get(_key(name)) or self.roles.get(_key(slug))

    def rack_type(self, manufacturer: str, model: str, slug: str) -> tuple[str, str] | None:
        maker = _key(self.manufacturer(manufacturer) or manufacturer)
        return self.rack_types.get((maker, _key(model))) or self.rack_types.get((maker, _key(slug)))

    def device_type(self, manufacturer: str, model: str, slug: str) -> tuple[str, str] | None:
        maker = _key(self.manufacturer(manufacturer) or manufacturer)
        return self.device_types.get((maker, _key(model))) or self.device_types.get((maker, _key(slug)))

    def powered(self, manufacturer: str, model: str) -> bool:
        return (_key(manufacturer), _key(model)) in self.powered_types


#: the files whose rows a NetBox may already hold
SHARED = ("00-custom-fields.csv", "03-manufacturers.csv", "04-device-roles.csv", "05-rack-types.csv")


def read_held(url: str, token: str, api: NetBoxAPI | None = None) -> Held:
    """What the NetBox at ``url`` holds of the shared objects (raises NetBoxAPIError when it cannot be read)."""
    api = api or NetBoxAPI(url, token)

    def names(endpoint: str) -> dict:
        out = {}
        for o in api.all(endpoint):
            for k in (o.get("name"), o.get("slug")):
                if k:
                    out.setdefault(_key(k), o["name"])
        return out

    def typed(endpoint: str) -> tuple[dict, dict]:
        out, by_id = {}, {}
        for o in api.all(endpoint):
            exact = ((o.get("manufacturer") or {}).get("name", ""), str(o.get("model", "")))
            by_id[o.get("id")] = exact
            for k in (o.get("model"), o.get("slug")):
                if k:
                    out.setdefault((_key(exact[0]), _key(k)), exact)
        return out, by_id

    device_types, by_id = typed("dcim/device-types")
    powered = {by_id[t["device_type"]["id"]] for t in api.all("dcim/power-port-templates")
               if (t.get("device_type") or {}).get("id") in by_id}
    return Held(url=api.base, custom_fields=frozenset(o["name"] for o in api.all("extras/custom-fields")),
                manufacturers=names("dcim/manufacturers"), roles=names("dcim/device-roles"),
                rack_types=typed("dcim/rack-types")[0], device_types=device_types,
                powered_types=frozenset((_key(m), _key(model)) for m, model in powered))


def held_unpowered(held: Held, device_type: dict, refs: dict, catalog) -> set[str]:
    """The devices (ids) whose type NetBox holds without power-port templates, though this export's type has
    ports: NetBox will not make them, so their ports (and a PDU's outlets) must be rows of their own."""
    unpowered = set()
    for t in set(device_type.values()):
        exact = held.device_type(refs[t][0], refs[t][1], slug(t))
        if exact is not None and not held.powered(*exact) and supply_ports(catalog.find(t), catalog):
            unpowered.add(t)
    return {d for d, t in device_type.items() if t in unpowered}


def apply_held(held: Held, rows: dict, columns: dict) -> int:
    """Leave out of ``rows`` the shared rows NetBox holds and name what it holds as NetBox spells it in the rows
    that refer to it; returns how many rows were left out."""
    col = {name: {c: i for i, c in enumerate(columns[name])} for name in columns}
    rack_type_of = {r[col["05-rack-types.csv"]["model"]]: (r[col["05-rack-types.csv"]["manufacturer"]],
                                                          r[col["05-rack-types.csv"]["slug"]])
                    for r in rows["05-rack-types.csv"]}
    left_out = 0
    for name in SHARED:
        kept = [r for r in rows[name] if not held.holds(name, r, columns[name])]
        left_out += len(rows[name]) - len(kept)
        rows[name] = kept

    def renamed(row, changes: dict) -> tuple:
        out = list(row)
        for i, value in changes.items():
            out[i] = value
        return tuple(out)

    c = col["05-rack-types.csv"]
    rows["05-rack-types.csv"] = [renamed(r, {c["manufacturer"]: held.manufacturer(r[c["manufacturer"]])
                                             or r[c["manufacturer"]]}) for r in rows["05-rack-types.csv"]]
    c = col["06-racks.csv"]
    out = []
    for r in rows["06-racks.csv"]:
        maker, type_slug = rack_type_of.get(r[c["rack_type"]], ("", ""))
        exact = held.rack_type(maker, r[c["rack_type"]], type_slug)
        out.append(renamed(r, {c["rack_type"]: exact[1]}) if exact else r)
    rows["06-racks.csv"] = out
    c = col["08-devices.csv"]
    out = []
    for r in rows["08-devices.csv"]:
        maker, model = r[c["manufacturer"]], r[c["device_type"]]
        exact = held.device_type(maker, model, slug(r[c["cf_podplanner_type"]]))
        maker, model = exact or (held.manufacturer(maker) or maker, model)
        out.append(renamed(r, {c["manufacturer"]: maker, c["device_type"]: model,
                               c["role"]: held.role(r[c["role"]]) or r[c["role"]]}))
    rows["08-devices.csv"] = out
    return left_out
