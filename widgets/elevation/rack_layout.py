"""What a rack elevation shows, as plain blocks: one per device (or per tray of a rack-scale system).

Kept apart from the painting so tests and other views (a printed elevation in
a report) can read the same layout. A device sits in the U range of one face;
rack-mounted gear is full-depth, so the opposite face shows a "ghost" of it
(that U is taken from both sides, which is also how the collision rule counts).

NVIDIA does not publish the U map of a GB200 NVL72, so its trays are laid out
in the order public photos suggest (power shelves at top and bottom, compute
trays around the NVLink switch trays) and every such block is marked
``illustrative``.
"""
from __future__ import annotations

from dataclasses import dataclass

from catalog import Catalog, DeviceType
from designer.model import MountedDevice, Rack
from designer.rack_roles import device_role, system_components
from designer.rules import occupied_span


@dataclass(frozen=True)
class Block:
    """A drawn rectangle: ``u`` is the lowest U, ``height`` in U; ``component`` set for trays of a system."""

    device_id: str
    label: str
    role: str
    u: float
    height: float
    ghost: bool = False
    component: str | None = None
    illustrative: bool = False
    #: Second line for tall blocks (the catalog name under the device's own name).
    detail: str = ""


@dataclass(frozen=True)
class Strip:
    """A 0U device (vertical PDU) drawn beside the rails; ``side`` 0 = left, 1 = right."""

    device_id: str
    label: str
    role: str
    side: int
    slot: int


def device_label(device: MountedDevice, dev: DeviceType) -> str:
    return device.name or dev.name or dev.id


def layout(rack: Rack, catalog: Catalog, face: str) -> tuple[list[Block], list[Strip]]:
    """Blocks and strips for one face of ``rack``."""
    units = catalog.get(rack.type).rack_units
    blocks: list[Block] = []
    strips: list[Strip] = []
    for device in rack.devices:
        dev = catalog.find(device.type)
        if dev is None:
            continue
        ghost = device.face != face
        span = occupied_span(dev, device, units)
        if span is None:
            if not ghost:
                n = len(strips)
                strips.append(Strip(device.id, device_label(device, dev), device_role(dev), n % 2, n // 2))
            continue
        bottom, top = span
        if dev.fills_rack and dev.components and not ghost:
            parts = system_components(dev, catalog)
            used = sum(p.u_height for _, p in parts)
            u = bottom + max(0.0, ((top - bottom) - used) // 2)
            counters: dict[str, int] = {}
            first = u
            for comp_id, part in parts:
                counters[comp_id] = counters.get(comp_id, 0) + 1
                short = part.name.split("(")[0].replace("GB200 NVL72 ", "").strip()
                blocks.append(Block(device.id, f"{short} {counters[comp_id]}", device_role(part), u,
                                    part.u_height, component=comp_id, illustrative=True))
                u += part.u_height
            # The U above and below the trays are the system's too (the rules let nothing else in them): drawn
            # as its unmapped part, never as empty slots beside a caption that says none is free.
            label = f"{device_label(device, dev)}: part of the system, no tray mapped here"
            for low, high in ((bottom, first), (u, top)):
                if high > low:
                    blocks.append(Block(device.id, label, device_role(dev), low, high - low, ghost=True,
                                        illustrative=True))
            continue
        label = device_label(device, dev)
        detail = dev.name if device.name and not ghost else ""
        if ghost and dev.fills_rack:
            label = f"{label}: {device.face} side; this side holds its NVLink spine, bus bar and manifolds"
        elif ghost:
            label = f"{label} · {device.face}-mounted"
        blocks.append(Block(device.id, label, device_role(dev), bottom, top - bottom, ghost=ghost, detail=detail))
    return blocks, strips


@dataclass(frozen=True)
class RackUse:
    """How a rack's U are used: what is free for more equipment, and for a rack-scale system that takes the
    whole rack, how much of it its trays fill and how much it leaves unmapped (NVIDIA publishes no U map)."""

    units: int
    free: int
    system: str | None = None
    trays_u: float = 0.0

    @property
    def unmapped_u(self) -> float:
        return self.units - self.trays_u if self.system else 0.0


def rack_use(rack: Rack, catalog: Catalog) -> RackUse:
    units = catalog.get(rack.type).rack_units
    for device in rack.devices:
        dev = catalog.find(device.type)
        if dev is not None and dev.fills_rack:
            trays = sum(p.u_height for _, p in system_components(dev, catalog)) if dev.components else units
            return RackUse(units, free_units(rack, catalog), dev.name, float(min(trays, units)))
    return RackUse(units, free_units(rack, catalog))


def free_units(rack: Rack, catalog: Catalog) -> int:
    """U not taken by any device (either face)."""
    units = catalog.get(rack.type).rack_units
    taken = set()
    for device in rack.devices:
        dev = catalog.find(device.type)
        span = occupied_span(dev, device, units) if dev else None
        if span:
            taken.update(range(int(span[0]), int(span[1] + 0.999)))
    return max(0, units - len(taken & set(range(1, units + 1))))
