"""Whether a site's InfiniBand fabric reaches its upper tier: the longest run from a data hall's SU network racks to
a network room's upper-tier racks against the longest optic the switch's cages take. A site past the reach is built
on Spectrum-X instead (:func:`designer.generate.build.generate`)."""
from __future__ import annotations

from dataclasses import replace

from catalog import Catalog

from .layout import Grid
from .rack_filling import RackBuilder
from .site import (DEFAULT_HALLS_PER_BUILDING, UPPER_TITLES, Room, longest_upper_run_m, place_rooms,
                   upper_tier_reach_m)
from .spec import GenerateError, SuperpodSpec, SystemProfile


class OutOfReach(GenerateError):
    """A site whose InfiniBand fabric has runs no optic of its cages spans."""


def check_reach(laid: list, origins: dict, far: dict[str, float], catalog: Catalog, spec: SuperpodSpec,
                 profile: SystemProfile, how: str) -> None:
    """OutOfReach when the site's longest run to its upper tier is past the longest optic its switches take;
    ``far``: each room's farthest rack from its entry (:func:`farthest_from_entry`); ``how``: "about" for the site
    as built, "at least" for a layout that will only spread."""
    longest = longest_upper_run_m(laid, origins, far, catalog)
    reach = upper_tier_reach_m(catalog, spec, profile)
    if longest > reach:
        raise OutOfReach(f"across this site the InfiniBand fabric's runs to its upper tier would reach {how} "
                         f"{longest:,.0f} m, past the {reach:,.0f} m of the longest optic its {spec.switch} cages "
                         "take")


def check_reach_early(ranges: list[tuple[int, int]], grids: list[Grid], nets: list[tuple[Room, RackBuilder, Grid]],
                       seg, buildings: int, catalog: Catalog, spec: SuperpodSpec, profile: SystemProfile,
                       hall_mm: tuple[float, float] | None, gallery: float) -> None:
    """OutOfReach for a site whose upper-tier runs are past the optics' reach before a rack of its halls is placed.

    Why it is a lower bound of what the site as built is counted at: a room as built is its stated size, or its
    racks' grid with up to two air-handler galleries beside it (:func:`air_handling.plan_room`), and deeper where
    its walls need the length; its electrical room adds depth, not width. Deeper rooms only move building rows apart
    (:func:`place_rooms`: rooms of a building share its corridor). Along a row a room's entry can come nearer another
    building's rooms by no more than the widening of its building's rooms, so each room's run is taken that much
    shorter here (where the built count adds the room's farthest rack). A site past the reach by this count is past
    it as built, and is rebuilt on Spectrum-X without placing its million objects first. ``seg``: the halls'
    segment plan (each SU's network items), ``hall_mm``: the halls' stated size, ``gallery``: an air-handler
    gallery's width."""
    per_building = spec.halls_per_building or DEFAULT_HALLS_PER_BUILDING
    # a hall of a stated size is built at that size; any other room at its grid, up to two galleries wider
    halls = [Room(f"hall-{h + 1}", "", h // per_building, "data", *(hall_mm or (g.width_mm, g.depth_mm)))
             for h, g in enumerate(grids)]
    rooms = halls + [replace(room, width_mm=g.width_mm, depth_mm=g.depth_mm) for room, _, g in nets]
    wider = [0.0] * buildings
    for r in rooms:
        wider[r.building] += 0.0 if r.kind == "data" and hall_mm is not None else 2 * gallery
    far = {room.id: -wider[room.building] for room, (first, last) in zip(halls, ranges)
           if any(items for su in range(first, last) for items in seg.network_items[su])}
    far |= {room.id: -wider[room.building] for room, b, _ in nets
            if any(r.name.startswith(UPPER_TITLES) for r in b.racks)}
    check_reach(rooms, place_rooms(rooms, buildings), far, catalog, spec, profile, "at least")
