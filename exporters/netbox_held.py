"""The shared objects a NetBox already holds, so that a folder written for it (``export --netbox DIR --netbox-url URL
--netbox-missing-only``) imports without a refused row.

Custom fields, manufacturers, device roles, rack types and device types are shared by every site of a NetBox.
NetBox's import form refuses a row for one it holds ("already exists") and offers no create-if-missing (a row
updates an object only by its NetBox ``id``), so a second design's folder would stop at its first shared file.
Written for a given NetBox, the folder leaves out the rows that NetBox holds, found as NetBox finds a clash: a
custom field by its name, a manufacturer, role or rack type by its name or slug, a device type by its manufacturer
and model or its slug. Only the shared files change; the rows that name those objects name them as before.
"""
from __future__ import annotations

from dataclasses import dataclass

from designer.netbox_api import NetBoxAPI


@dataclass(frozen=True)
class Held:
    url: str
    custom_fields: frozenset[str] = frozenset()
    #: names and slugs, lower case (NetBox's uniqueness is case-insensitive for these)
    manufacturers: frozenset[str] = frozenset()
    roles: frozenset[str] = frozenset()
    rack_types: frozenset[str] = frozenset()
    #: (manufacturer name, model) lower case, and slugs
    device_types: frozenset = frozenset()

    def holds(self, file: str, row: tuple, columns: tuple[str, ...]) -> bool:
        """Whether NetBox holds the object of a shared file's row."""
        value = dict(zip(columns, row))
        if file == "00-custom-fields.csv":
            return value["name"] in self.custom_fields
        keys = {str(value.get("name", "")).lower(), str(value.get("slug", "")).lower()} - {""}
        if file == "03-manufacturers.csv":
            return bool(keys & self.manufacturers)
        if file == "04-device-roles.csv":
            return bool(keys & self.roles)
        if file == "05-rack-types.csv":
            return str(value["slug"]).lower() in self.rack_types
        return False

    def holds_type(self, manufacturer: str, model: str, slug: str) -> bool:
        return (manufacturer.lower(), model.lower()) in self.device_types or slug.lower() in self.device_types


#: the files whose rows a NetBox may already hold
SHARED = ("00-custom-fields.csv", "03-manufacturers.csv", "04-device-roles.csv", "05-rack-types.csv")


def read_held(url: str, token: str, api: NetBoxAPI | None = None) -> Held:
    """What the NetBox at ``url`` holds of the shared objects (raises NetBoxAPIError when it cannot be read)."""
    api = api or NetBoxAPI(url, token)

    def names(endpoint: str) -> frozenset[str]:
        return frozenset(k.lower() for o in api.all(endpoint, brief=1) for k in (o.get("name"), o.get("slug")) if k)

    types = set()
    for o in api.all("dcim/device-types"):
        types.add(((o.get("manufacturer") or {}).get("name", "").lower(), str(o.get("model", "")).lower()))
        types.add(str(o.get("slug", "")).lower())
    return Held(url=api.base, custom_fields=frozenset(o["name"] for o in api.all("extras/custom-fields", brief=1)),
                manufacturers=names("dcim/manufacturers"), roles=names("dcim/device-roles"),
                rack_types=frozenset(str(o.get("slug", "")).lower() for o in api.all("dcim/rack-types", brief=1)),
                device_types=frozenset(types))
