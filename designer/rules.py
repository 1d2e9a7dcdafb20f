"""Rack-space rules shared by the file loader, the commands and the checks."""
from __future__ import annotations

from catalog import Catalog, DeviceType
from catalog.loader import finite

from .model import MountedDevice, Rack


def rack_units(catalog: Catalog, rack: Rack) -> int:
    return catalog.get(rack.type).rack_units


def occupied_span(device_type: DeviceType, device: MountedDevice, units: int) -> tuple[float, float] | None:
    """The [bottom, top) U interval a device takes, or None for a 0U device."""
    if device_type.fills_rack:
        return (1.0, units + 1.0)
    if device.u is None or device_type.u_height == 0:
        return None
    return (device.u, device.u + device_type.u_height)


def span_problem(device_type: DeviceType, device: MountedDevice, units: int) -> str | None:
    """Why a device cannot sit where it says in a rack of ``units`` U, or None."""
    u = device.u
    if u is not None:
        if isinstance(u, bool) or not isinstance(u, (int, float)) or not finite(u):
            return f"U must be a number, got {u!r}"
        if isinstance(u, float) and not (u * 2).is_integer():
            return f"{u:g} is not a whole or half U"
    if device_type.fills_rack:
        if device_type.u_height > units:
            return f"{device_type.id} needs a {device_type.u_height:g} U rack, the rack has {units} U"
        # it takes the whole rack wherever it says it starts; a U it states must still be in the rack
        if u is None or 1 <= u <= units:
            return None
    elif device_type.u_height == 0:
        # A 0U device (a PDU on the side of the rack) takes no unit; a U it states is where along the
        # rails it hangs, which must still be inside the rack.
        if u is None or 1 <= u <= units:
            return None
    elif device.u is None:
        return f"{device_type.id} is {device_type.u_height:g} U high and needs a U position"
    if device.u < 1:
        return f"{device.u:g} is below the rack's first U"
    if device.u > units:
        return f"{device.u:g} is above the rack's {units} U"
    top = device.u + device_type.u_height - 1
    if top > units:
        return f"{device_type.id} at U{device.u:g} reaches U{top:g}, above the rack's {units} U"
    return None


def u_span_problem(catalog: Catalog, rack: Rack, device: MountedDevice, ignore: str | None = None) -> str | None:
    """Why ``device`` cannot go into ``rack`` (overflow or collision), or None if it fits."""
    units = rack_units(catalog, rack)
    dtype = catalog.get(device.type)
    problem = span_problem(dtype, device, units)
    if problem:
        return f"rack {rack.name or rack.id}: {problem}"
    span = occupied_span(dtype, device, units)
    if span is None:
        return None
    for other in rack.devices:
        if other.id == ignore:
            continue
        other_span = occupied_span(catalog.get(other.type), other, units)
        if other_span and other_span[0] < span[1] and span[0] < other_span[1]:
            return (f"rack {rack.name or rack.id}: {device.type} at U{span[0]:g} collides with "
                    f"{other.name or other.type} at U{other_span[0]:g}")
    return None


def rack_space_problem(catalog: Catalog, rack: Rack, types: dict | None = None) -> str | None:
    """The first reason any device of ``rack`` cannot sit where it says (overflow or collision), or None.

    One sort of the devices' spans instead of one scan per device, so a new rack of many
    devices is checked in n log n; the messages are :func:`u_span_problem`'s.
    """
    types = {} if types is None else types
    rtype = types.get(rack.type) or types.setdefault(rack.type, catalog.get(rack.type))
    units = rtype.rack_units
    spans = []
    for d in rack.devices:
        dtype = types.get(d.type) or types.setdefault(d.type, catalog.get(d.type))
        problem = span_problem(dtype, d, units)
        if problem:
            return f"rack {rack.name or rack.id}: {problem}"
        span = occupied_span(dtype, d, units)
        if span is not None:
            spans.append((span[0], span[1], d))
    for (b, _, d), (b0, _, d0) in collisions(spans):
        return f"rack {rack.name or rack.id}: {d.type} at U{b:g} collides with {d0.name or d0.type} at U{b0:g}"
    return None


def collisions(spans: list[tuple]):
    """Pairs ``(span, earlier span it collides with)`` of ``(bottom, top, ...)`` spans, in one sweep up the
    rack: a span collides with the one reaching highest below it. ``spans`` is sorted in place."""
    spans.sort(key=lambda s: s[0])
    highest = None
    for span in spans:
        if highest is not None and span[0] < highest[1]:
            yield span, highest
        if highest is None or span[1] > highest[1]:
            highest = span
